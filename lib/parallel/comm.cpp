#include "lib/parallel/comm.hpp"

#include <cstdlib>
#include <cstring>

#include "lib/base/error.hpp"
#include "rockperm/config.hpp"

#if ROCKPERM_HAVE_MPI
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#define ROCKPERM_MPI_CHECK(expr)                                                                  \
  do {                                                                                            \
    const int rockperm_mpi_err_ = (expr);                                                         \
    if (rockperm_mpi_err_ != MPI_SUCCESS) {                                                       \
      char text[MPI_MAX_ERROR_STRING];                                                            \
      int len = 0;                                                                                \
      MPI_Error_string(rockperm_mpi_err_, text, &len);                                            \
      throw ::rockperm::RuntimeFailure(std::string("MPI call ") + #expr + " failed at " + __FILE__ + \
                                       ":" + std::to_string(__LINE__) + ": " + std::string(text, len)); \
    }                                                                                             \
  } while (0)
#endif

namespace rockperm {

MpiSession::MpiSession(int* argc, char*** argv) {
#if ROCKPERM_HAVE_MPI
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) MPI_Init(argc, argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
#else
  (void)argc;
  (void)argv;
#endif
}

MpiSession::~MpiSession() {
#if ROCKPERM_HAVE_MPI
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
#endif
}

Comm Comm::world() {
  Comm c;
#if ROCKPERM_HAVE_MPI
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) {
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &c.size_);
  }
#endif
  return c;
}

void Comm::exchange(const std::vector<Transfer>& sends, const std::vector<Transfer>& receives) const {
#if ROCKPERM_HAVE_MPI
  if (size_ > 1 || !sends.empty()) {
    std::vector<MPI_Request> requests;
    requests.reserve(sends.size() + receives.size());
    for (const auto& r : receives) {
      requests.emplace_back();
      ROCKPERM_MPI_CHECK(MPI_Irecv(r.data, static_cast<int>(r.count), MPI_FLOAT, r.peer, r.tag, MPI_COMM_WORLD,
                                   &requests.back()));
    }
    for (const auto& s : sends) {
      requests.emplace_back();
      ROCKPERM_MPI_CHECK(MPI_Isend(s.data, static_cast<int>(s.count), MPI_FLOAT, s.peer, s.tag, MPI_COMM_WORLD,
                                   &requests.back()));
    }
    ROCKPERM_MPI_CHECK(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
    return;
  }
#endif
  // one process: every message goes to itself; match sends to receives by tag
  for (const auto& r : receives) {
    for (const auto& s : sends) {
      if (s.tag == r.tag) {
        if (s.count != r.count) throw Error("internal: self-exchange of mismatched sizes");
        std::memcpy(r.data, s.data, s.count * sizeof(float));
      }
    }
  }
}

FlowSums Comm::sum(const FlowSums& local) const {
#if ROCKPERM_HAVE_MPI
  if (size_ > 1) {
    double mine[8] = {local.mass,     local.velocity[0], local.velocity[1], local.velocity[2],
                      local.speed,    local.max_speed,   local.finite ? 1.0 : 0.0, 0.0};
    std::vector<double> all(8 * static_cast<std::size_t>(size_));
    ROCKPERM_MPI_CHECK(MPI_Gather(mine, 8, MPI_DOUBLE, all.data(), 8, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    double total[8] = {0, 0, 0, 0, 0, 0, 1, 0};
    if (rank_ == 0) {
      for (int r = 0; r < size_; ++r) {
        const double* v = &all[8 * r];
        for (int k = 0; k < 5; ++k) total[k] += v[k];
        total[5] = std::max(total[5], v[5]);
        total[6] = std::min(total[6], v[6]);
      }
    }
    ROCKPERM_MPI_CHECK(MPI_Bcast(total, 8, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    FlowSums s;
    s.mass = total[0];
    for (int a = 0; a < 3; ++a) s.velocity[a] = total[1 + a];
    s.speed = total[4];
    s.max_speed = total[5];
    s.finite = total[6] > 0.5;
    return s;
  }
#endif
  return local;
}

std::vector<double> Comm::sum(const std::vector<double>& local) const {
#if ROCKPERM_HAVE_MPI
  if (size_ > 1) {
    const std::size_t n = local.size();
    std::vector<double> all(rank_ == 0 ? n * static_cast<std::size_t>(size_) : 0);
    ROCKPERM_MPI_CHECK(MPI_Gather(local.data(), static_cast<int>(n), MPI_DOUBLE, all.data(), static_cast<int>(n),
                                  MPI_DOUBLE, 0, MPI_COMM_WORLD));
    std::vector<double> total(n, 0.0);
    if (rank_ == 0) {
      for (int r = 0; r < size_; ++r)
        for (std::size_t k = 0; k < n; ++k) total[k] += all[r * n + k];
    }
    ROCKPERM_MPI_CHECK(MPI_Bcast(total.data(), static_cast<int>(n), MPI_DOUBLE, 0, MPI_COMM_WORLD));
    return total;
  }
#endif
  return local;
}

namespace {
double allreduce(double local, int size, bool maximum) {
#if ROCKPERM_HAVE_MPI
  if (size > 1) {
    double out = 0;
    ROCKPERM_MPI_CHECK(MPI_Allreduce(&local, &out, 1, MPI_DOUBLE, maximum ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD));
    return out;
  }
#else
  (void)size;
  (void)maximum;
#endif
  return local;
}
}  // namespace

double Comm::max(double local) const { return allreduce(local, size_, true); }

double Comm::sum(double local) const { return allreduce(local, size_, false); }

std::uint64_t Comm::sum(std::uint64_t local) const {
#if ROCKPERM_HAVE_MPI
  if (size_ > 1) {
    unsigned long long in = local, out = 0;
    ROCKPERM_MPI_CHECK(MPI_Allreduce(&in, &out, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    return out;
  }
#endif
  return local;
}

std::vector<std::string> Comm::gather(const std::string& local) const {
  std::vector<std::uint8_t> bytes(local.begin(), local.end());
  bytes.push_back(0);
  const std::vector<std::uint8_t> all = gather_bytes(bytes);
  std::vector<std::string> out;
  if (rank_ != 0) return out;
  std::string current;
  for (const std::uint8_t b : all) {
    if (b == 0) {
      out.push_back(current);
      current.clear();
    } else {
      current.push_back(static_cast<char>(b));
    }
  }
  return out;
}

std::vector<std::uint8_t> Comm::gather_bytes(const std::vector<std::uint8_t>& local) const {
#if ROCKPERM_HAVE_MPI
  if (size_ > 1) {
    const int mine = static_cast<int>(local.size());
    std::vector<int> counts(size_), displs(size_);
    ROCKPERM_MPI_CHECK(MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD));
    std::vector<std::uint8_t> all;
    if (rank_ == 0) {
      std::size_t total = 0;
      for (int r = 0; r < size_; ++r) {
        displs[r] = static_cast<int>(total);
        total += counts[r];
      }
      all.resize(total);
    }
    ROCKPERM_MPI_CHECK(MPI_Gatherv(local.data(), mine, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE,
                                   0, MPI_COMM_WORLD));
    return all;
  }
#endif
  return local;
}

int Comm::scatter(const std::vector<int>& values) const {
#if ROCKPERM_HAVE_MPI
  if (size_ > 1) {
    int mine = 0;
    ROCKPERM_MPI_CHECK(
        MPI_Scatter(values.data(), 1, MPI_INT, &mine, 1, MPI_INT, 0, MPI_COMM_WORLD));
    return mine;
  }
#endif
  return values.at(0);
}

void Comm::broadcast(std::vector<std::uint8_t>& bytes) const {
#if ROCKPERM_HAVE_MPI
  if (size_ > 1) {
    unsigned long long n = bytes.size();
    ROCKPERM_MPI_CHECK(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD));
    bytes.resize(n);
    ROCKPERM_MPI_CHECK(MPI_Bcast(bytes.data(), static_cast<int>(n), MPI_BYTE, 0, MPI_COMM_WORLD));
  }
#else
  (void)bytes;
#endif
}

void Comm::send_bytes(int peer, const std::vector<std::uint8_t>& bytes) const {
#if ROCKPERM_HAVE_MPI
  unsigned long long n = bytes.size();
  ROCKPERM_MPI_CHECK(MPI_Send(&n, 1, MPI_UNSIGNED_LONG_LONG, peer, 1, MPI_COMM_WORLD));
  // in chunks: MPI counts are int
  for (std::size_t off = 0; off < bytes.size(); off += 1u << 30) {
    const int len = static_cast<int>(std::min<std::size_t>(bytes.size() - off, 1u << 30));
    ROCKPERM_MPI_CHECK(MPI_Send(bytes.data() + off, len, MPI_BYTE, peer, 2, MPI_COMM_WORLD));
  }
#else
  (void)peer;
  (void)bytes;
  throw Error("internal: send_bytes without MPI");
#endif
}

std::vector<std::uint8_t> Comm::receive_bytes(int peer) const {
#if ROCKPERM_HAVE_MPI
  unsigned long long n = 0;
  ROCKPERM_MPI_CHECK(MPI_Recv(&n, 1, MPI_UNSIGNED_LONG_LONG, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  std::vector<std::uint8_t> bytes(n);
  for (std::size_t off = 0; off < bytes.size(); off += 1u << 30) {
    const int len = static_cast<int>(std::min<std::size_t>(bytes.size() - off, 1u << 30));
    ROCKPERM_MPI_CHECK(MPI_Recv(bytes.data() + off, len, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
  return bytes;
#else
  (void)peer;
  throw Error("internal: receive_bytes without MPI");
#endif
}

void Comm::barrier() const {
#if ROCKPERM_HAVE_MPI
  if (size_ > 1) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

void Comm::abort(int code) const {
#if ROCKPERM_HAVE_MPI
  if (size_ > 1) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

bool Comm::cuda_aware() const {
  // Asked of the library loaded at run time: the compile-time MPIX_CUDA_AWARE_SUPPORT
  // describes the build machine's Open MPI (Debian's says 0), not the cluster's.
#if ROCKPERM_HAVE_MPI && defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

}  // namespace rockperm
