#include "lib/parallel/comm.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "lib/base/error.hpp"
#include "lib/parallel/comm_impl.hpp"

namespace rockperm::parallel {

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (std::getenv(name)) return true;
  }
  const char* forced = std::getenv("ROCKPERM_MPI");
  return forced && std::string(forced) == "1";
}

Comm::Comm() : Comm(detail::serial_comm()) {}

Comm::Comm(std::shared_ptr<const detail::CommImpl> impl)
    : impl_(std::move(impl)), rank_(impl_->rank()), size_(impl_->size()) {}

Comm Comm::split(int color, int key) const { return Comm(impl_->split(color, key)); }

void Comm::exchange(const std::vector<Transfer>& sends, const std::vector<Transfer>& receives) const {
  start_exchange(sends, receives).wait();
}

Comm::Pending Comm::start_exchange(const std::vector<Transfer>& sends, const std::vector<Transfer>& receives) const {
  return Pending(impl_->start_exchange(sends, receives));
}

Comm::Pending::Pending() = default;
Comm::Pending::Pending(std::unique_ptr<detail::PendingTransfers> transfers) : transfers_(std::move(transfers)) {}
Comm::Pending::Pending(Pending&&) noexcept = default;
Comm::Pending& Comm::Pending::operator=(Pending&& other) noexcept {
  if (this != &other) {
    if (transfers_) transfers_->wait();  // the buffers of the exchange it holds are still in use
    transfers_ = std::move(other.transfers_);
  }
  return *this;
}
Comm::Pending::~Pending() {
  if (!transfers_) return;
  try {
    transfers_->wait();
  } catch (...) {  // a destructor does not throw: the error that ends the run is already on its way
  }
}

void Comm::Pending::wait() {
  if (!transfers_) return;
  auto transfers = std::move(transfers_);
  transfers->wait();
}

physics::FlowSums Comm::sum(const physics::FlowSums& local) const {
  if (size_ == 1) return local;
  constexpr std::size_t fields = 11;  // mass, velocity, speed, max speed, finite, grey velocity, padding
  const std::vector<double> mine = {local.mass,  local.velocity[0], local.velocity[1],        local.velocity[2],
                                    local.speed, local.max_speed,   local.finite ? 1.0 : 0.0, local.grey_velocity[0],
                                    local.grey_velocity[1], local.grey_velocity[2], 0.0};
  const std::vector<double> all = impl_->gather(mine);
  std::vector<double> total = {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
  if (rank_ == 0) {
    for (int r = 0; r < size_; ++r) {
      const double* v = &all[fields * r];
      for (int k = 0; k < 5; ++k) total[k] += v[k];
      total[5] = std::max(total[5], v[5]);
      total[6] = std::min(total[6], v[6]);
      for (int k = 7; k < 10; ++k) total[k] += v[k];
    }
  }
  impl_->broadcast(total);
  physics::FlowSums s;
  s.mass = total[0];
  for (int a = 0; a < 3; ++a) s.velocity[a] = total[1 + a];
  s.speed = total[4];
  s.max_speed = total[5];
  s.finite = total[6] > 0.5;
  for (int a = 0; a < 3; ++a) s.grey_velocity[a] = total[7 + a];
  return s;
}

std::vector<double> Comm::sum(const std::vector<double>& local) const {
  if (size_ == 1) return local;
  const std::size_t n = local.size();
  const std::vector<double> all = impl_->gather(local);
  std::vector<double> total(n, 0.0);
  if (rank_ == 0) {
    for (int r = 0; r < size_; ++r)
      for (std::size_t k = 0; k < n; ++k) total[k] += all[r * n + k];
  }
  impl_->broadcast(total);
  return total;
}

std::vector<std::int64_t> Comm::sum(const std::vector<std::int64_t>& local) const {
  std::vector<std::int64_t> total = local;
  if (size_ > 1) impl_->allreduce(total);
  return total;
}

double Comm::max(double local) const { return impl_->allreduce(local, true); }
double Comm::sum(double local) const { return impl_->allreduce(local, false); }
std::uint64_t Comm::sum(std::uint64_t local) const { return impl_->allreduce(local); }

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
  return impl_->gather_bytes(local);
}
int Comm::scatter(const std::vector<int>& values) const { return impl_->scatter(values); }
void Comm::broadcast(std::vector<std::uint8_t>& bytes) const { impl_->broadcast(bytes); }
void Comm::send_bytes(int peer, const std::uint8_t* bytes, std::size_t size) const {
  impl_->send_bytes(peer, bytes, size);
}
UninitializedBytes Comm::receive_bytes(int peer) const { return impl_->receive_bytes(peer); }
void Comm::barrier() const { impl_->barrier(); }
void Comm::abort(int code) const { impl_->abort(code); }
bool Comm::cuda_aware() const { return impl_->cuda_aware(); }

void collectively(const Comm& comm, const std::function<void()>& work) {
  // the failure as "code<US>field<US>detail"; code 0 = none
  int code = 0;
  std::string field, detail;
  try {
    work();
  } catch (const InputError& e) {
    code = e.exit_code();
    field = e.field();
    detail = e.detail();
  } catch (const PhysicsError& e) {
    code = e.exit_code();
    field = e.reason();
    detail = e.what();
  } catch (const Error& e) {
    code = e.exit_code();
    detail = e.what();
  }
  if (comm.sum(std::uint64_t{code != 0 ? 1u : 0u}) == 0) return;
  // the lowest failing rank's failure, on every rank
  const char us = '\x1f';
  const std::vector<std::string> all = comm.gather(std::to_string(code) + us + field + us + detail);
  std::vector<std::uint8_t> first;
  if (comm.root()) {
    for (const std::string& s : all) {
      if (s[0] != '0') {
        first.assign(s.begin(), s.end());
        break;
      }
    }
  }
  comm.broadcast(first);
  const std::string text(first.begin(), first.end());
  const std::size_t a = text.find(us), b = text.find(us, a + 1);
  const int failed_code = std::stoi(text.substr(0, a));
  const std::string failed_field = text.substr(a + 1, b - a - 1), what = text.substr(b + 1);
  try {
    throw_error(failed_code, failed_field, what);
  } catch (Error& e) {
    e.all_ranks = true;
    throw;
  }
}

}  // namespace rockperm::parallel
