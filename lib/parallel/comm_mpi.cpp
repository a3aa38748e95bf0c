// A Comm over an MPI communicator it owns (freed with the last copy). The only file that
// names MPI_COMM_WORLD.
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <string>

#include "lib/base/error.hpp"
#include "lib/parallel/comm_impl.hpp"

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

namespace rockperm::parallel {

namespace {

// The requests of one started exchange.
struct PendingRequests final : detail::PendingTransfers {
  std::vector<MPI_Request> requests;
  void wait() override {
    ROCKPERM_MPI_CHECK(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
  }
};

class MpiComm final : public detail::CommImpl {
 public:
  // `owned`: free the communicator with this object (not for MPI_COMM_WORLD)
  MpiComm(MPI_Comm comm, bool owned) : comm_(comm), owned_(owned) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiComm() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (owned_ && !finalized) MPI_Comm_free(&comm_);
  }
  MpiComm(const MpiComm&) = delete;
  MpiComm& operator=(const MpiComm&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::shared_ptr<const CommImpl> split(int color, int key) const override {
    MPI_Comm out = MPI_COMM_NULL;
    ROCKPERM_MPI_CHECK(MPI_Comm_split(comm_, color, key, &out));
    MPI_Comm_set_errhandler(out, MPI_ERRORS_RETURN);
    return std::make_shared<MpiComm>(out, true);
  }

  std::unique_ptr<detail::PendingTransfers> start_exchange(const std::vector<Comm::Transfer>& sends,
                                                           const std::vector<Comm::Transfer>& receives) const override {
    auto pending = std::make_unique<PendingRequests>();
    std::vector<MPI_Request>& requests = pending->requests;
    requests.reserve(sends.size() + receives.size());
    for (const auto& r : receives) {
      requests.emplace_back();
      ROCKPERM_MPI_CHECK(MPI_Irecv(r.data, static_cast<int>(r.bytes), MPI_BYTE, r.peer, r.tag, comm_, &requests.back()));
    }
    for (const auto& s : sends) {
      requests.emplace_back();
      ROCKPERM_MPI_CHECK(MPI_Isend(s.data, static_cast<int>(s.bytes), MPI_BYTE, s.peer, s.tag, comm_, &requests.back()));
    }
    return pending;
  }

  std::vector<double> gather(const std::vector<double>& local) const override {
    const int n = static_cast<int>(local.size());
    std::vector<double> all(rank_ == 0 ? local.size() * static_cast<std::size_t>(size_) : 0);
    ROCKPERM_MPI_CHECK(MPI_Gather(local.data(), n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, 0, comm_));
    return all;
  }

  void broadcast(std::vector<double>& values) const override {
    ROCKPERM_MPI_CHECK(MPI_Bcast(values.data(), static_cast<int>(values.size()), MPI_DOUBLE, 0, comm_));
  }

  double allreduce(double local, bool maximum) const override {
    double out = 0;
    ROCKPERM_MPI_CHECK(MPI_Allreduce(&local, &out, 1, MPI_DOUBLE, maximum ? MPI_MAX : MPI_SUM, comm_));
    return out;
  }

  std::uint64_t allreduce(std::uint64_t local) const override {
    unsigned long long in = local, out = 0;
    ROCKPERM_MPI_CHECK(MPI_Allreduce(&in, &out, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm_));
    return out;
  }

  void allreduce(std::vector<std::int64_t>& values) const override {
    ROCKPERM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT64_T,
                                     MPI_SUM, comm_));
  }

  std::vector<std::uint8_t> gather_bytes(const std::vector<std::uint8_t>& local) const override {
    // point to point in 1 GiB chunks (send_bytes): MPI counts and displacements are int, and a rank
    // of a large run holds more than 2 GiB (the trust report's velocities of 712 M cells: 2.85 GB)
    if (rank_ != 0) {
      send_bytes(0, local.data(), local.size());
      return {};
    }
    std::vector<std::uint8_t> all(local);
    for (int r = 1; r < size_; ++r) {
      const UninitializedBytes part = receive_bytes(r);
      all.insert(all.end(), part.begin(), part.end());
    }
    return all;
  }

  int scatter(const std::vector<int>& values) const override {
    int mine = 0;
    ROCKPERM_MPI_CHECK(MPI_Scatter(values.data(), 1, MPI_INT, &mine, 1, MPI_INT, 0, comm_));
    return mine;
  }

  void broadcast(std::vector<std::uint8_t>& bytes) const override {
    unsigned long long n = bytes.size();
    ROCKPERM_MPI_CHECK(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, comm_));
    bytes.resize(n);
    for (std::size_t off = 0; off < bytes.size(); off += 1u << 30) {  // in chunks: MPI counts are int
      const int len = static_cast<int>(std::min<std::size_t>(bytes.size() - off, 1u << 30));
      ROCKPERM_MPI_CHECK(MPI_Bcast(bytes.data() + off, len, MPI_BYTE, 0, comm_));
    }
  }

  void send_bytes(int peer, const std::uint8_t* bytes, std::size_t size) const override {
    unsigned long long n = size;
    ROCKPERM_MPI_CHECK(MPI_Send(&n, 1, MPI_UNSIGNED_LONG_LONG, peer, 1, comm_));
    for (std::size_t off = 0; off < size; off += 1u << 30) {  // in chunks: MPI counts are int
      const int len = static_cast<int>(std::min<std::size_t>(size - off, 1u << 30));
      ROCKPERM_MPI_CHECK(MPI_Send(bytes + off, len, MPI_BYTE, peer, 2, comm_));
    }
  }

  UninitializedBytes receive_bytes(int peer) const override {
    unsigned long long n = 0;
    ROCKPERM_MPI_CHECK(MPI_Recv(&n, 1, MPI_UNSIGNED_LONG_LONG, peer, 1, comm_, MPI_STATUS_IGNORE));
    UninitializedBytes bytes(n);  // every byte received below
    for (std::size_t off = 0; off < bytes.size(); off += 1u << 30) {
      const int len = static_cast<int>(std::min<std::size_t>(bytes.size() - off, 1u << 30));
      ROCKPERM_MPI_CHECK(MPI_Recv(bytes.data() + off, len, MPI_BYTE, peer, 2, comm_, MPI_STATUS_IGNORE));
    }
    return bytes;
  }

  void barrier() const override { ROCKPERM_MPI_CHECK(MPI_Barrier(comm_)); }

  [[noreturn]] void abort(int code) const override {
    MPI_Abort(MPI_COMM_WORLD, code);  // the whole job: only main() ends the process
    std::exit(code);
  }

  bool cuda_aware() const override {
    // Asked of the library loaded at run time: the compile-time MPIX_CUDA_AWARE_SUPPORT
    // describes the build machine's Open MPI (Debian's says 0), not the cluster's.
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    return MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
  }

 private:
  MPI_Comm comm_;
  bool owned_;
  int rank_ = 0, size_ = 1;
};

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized && !launched_by_mpi()) return;  // one process: Comm::world() is Comm()
  if (!initialized) {
    MPI_Init(argc, argv);
    owned_ = true;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

MpiSession::~MpiSession() {
  if (!owned_) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

Comm Comm::world() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) return Comm();
  return Comm(std::make_shared<MpiComm>(MPI_COMM_WORLD, false));
}

}  // namespace rockperm::parallel
