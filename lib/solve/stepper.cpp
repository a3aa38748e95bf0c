#include "lib/solve/stepper.hpp"

#include <chrono>

namespace rockperm::solve {

namespace {
// Message tags: the direction a message travels.
constexpr int tag_up = 11, tag_down = 12, tag_back_up = 13, tag_back_down = 14;
}  // namespace

Stepper::Stepper(backend::Backend& backend, backend::Propagation propagation)
    : backend_(backend), propagation_(propagation) {}

Stepper::Stepper(backend::Backend& backend, backend::Propagation propagation, const parallel::Comm& comm,
                 const parallel::SlabDomain& domain, const lattice::SparseLattice& local, bool device_buffers)
    : backend_(backend),
      propagation_(propagation),
      comm_(&comm),
      domain_(domain),
      ranges_(parallel::slab_ranges(local, domain)) {
  const auto lists = parallel::build_halo_lists(local, domain);
  for (const auto& l : lists) counts_.push_back(l.size() * storage_bytes(backend.storage()));  // bytes
  backend_.set_halo_lists(lists, device_buffers);
}

// Sends list `to_lower` down and `to_upper` up, receives into `from_lower` and `from_upper`,
// then unpacks those. The forward exchange carries boundary slots into the neighbours' ghosts;
// the backward one (fused odd step) returns the ghost slots to their owners.
void Stepper::transfers(int to_lower, int from_lower, int to_upper, int from_upper, int tag_up, int tag_down,
                        std::vector<parallel::Comm::Transfer>& sends,
                        std::vector<parallel::Comm::Transfer>& receives) const {
  const parallel::SlabDomain& d = *domain_;
  if (d.lower >= 0) {
    sends.push_back({d.lower, tag_down, backend_.halo_buffer(to_lower), counts_[to_lower]});
    receives.push_back({d.lower, tag_up, backend_.halo_buffer(from_lower), counts_[from_lower]});
  }
  if (d.upper >= 0) {
    sends.push_back({d.upper, tag_up, backend_.halo_buffer(to_upper), counts_[to_upper]});
    receives.push_back({d.upper, tag_down, backend_.halo_buffer(from_upper), counts_[from_upper]});
  }
}

std::vector<parallel::Comm::Transfer> Stepper::receive_endpoints() const {
  std::vector<parallel::Comm::Transfer> sends, receives;
  if (!domain_) return receives;
  transfers(parallel::send_down, parallel::recv_low, parallel::send_up, parallel::recv_high, tag_up, tag_down, sends,
            receives);
  if (propagation_ == backend::Propagation::fused) {
    transfers(parallel::recv_low, parallel::send_down, parallel::recv_high, parallel::send_up, tag_back_up,
              tag_back_down, sends, receives);
  }
  return receives;
}

void Stepper::start(int to_lower, int from_lower, int to_upper, int from_upper, int tag_up, int tag_down) {
  std::vector<parallel::Comm::Transfer> sends, receives;
  transfers(to_lower, from_lower, to_upper, from_upper, tag_up, tag_down, sends, receives);
  backend_.wait_halo();
  const auto start = std::chrono::steady_clock::now();
  if (exchanger_) {
    exchanger_->exchange(sends, receives);
  } else {
    pending_ = comm_->start_exchange(sends, receives);
  }
  mpi_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void Stepper::finish(int from_lower, int from_upper) {
  const auto start = std::chrono::steady_clock::now();
  pending_.wait();
  mpi_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (domain_->lower >= 0) backend_.unpack_halo(from_lower);
  if (domain_->upper >= 0) backend_.unpack_halo(from_upper);
}

template <class Interior>
void Stepper::interior_and_exchange(bool backward, Interior&& interior) {
  // forward: boundary slots into the neighbours' ghosts; backward (fused odd step): the ghost
  // slots back to the ranks that own them
  const int to_lower = backward ? parallel::recv_low : parallel::send_down;
  const int from_lower = backward ? parallel::send_down : parallel::recv_low;
  const int to_upper = backward ? parallel::recv_high : parallel::send_up;
  const int from_upper = backward ? parallel::send_up : parallel::recv_high;
  const auto start_exchange = [&] {
    start(to_lower, from_lower, to_upper, from_upper, backward ? tag_back_up : tag_up,
          backward ? tag_back_down : tag_down);
  };
  if (backend_.blocks_on_interior() && !exchanger_) {
    start_exchange();
    interior();
  } else {
    interior();  // enqueued: it runs while this rank waits for the messages
    start_exchange();
  }
  finish(from_lower, from_upper);
}

bool Stepper::advance(std::int64_t step) {
  if (!domain_) return rockperm::backend::advance(backend_, propagation_, step);
  backend_.begin_step(step);
  const parallel::SlabDomain& d = *domain_;
  const bool odd = propagation_ == backend::Propagation::fused && step % 2 == 1;
  if (odd) {
    backend_.begin_boundary();
    backend_.fused_odd(ranges_.low);
    backend_.fused_odd(ranges_.high);
    if (d.lower >= 0) backend_.pack_halo(parallel::recv_low);
    if (d.upper >= 0) backend_.pack_halo(parallel::recv_high);
    backend_.end_boundary();
    interior_and_exchange(true, [&] { backend_.fused_odd(ranges_.interior); });
    return true;
  }
  backend_.begin_boundary();
  backend_.collide(ranges_.low);
  backend_.collide(ranges_.high);
  if (d.lower >= 0) backend_.pack_halo(parallel::send_down);
  if (d.upper >= 0) backend_.pack_halo(parallel::send_up);
  backend_.end_boundary();
  interior_and_exchange(false, [&] { backend_.collide(ranges_.interior); });
  if (propagation_ == backend::Propagation::fused) return false;
  backend_.swap(backend_.all());
  return true;
}

physics::FlowSums Stepper::sums() {
  const physics::FlowSums local = backend_.sums();
  return comm_ ? comm_->sum(local) : local;
}

bool Stepper::hold_density(bool keep_change) {
  const bool held = backend_.hold_density(keep_change);
  const std::uint64_t missing = comm_ ? comm_->sum(std::uint64_t{held ? 0u : 1u}) : (held ? 0u : 1u);
  return missing == 0;
}

physics::DensityProducts Stepper::density_products() {
  const double local_peak = backend_.density_change_peak();
  const auto peak = static_cast<float>(comm_ ? comm_->max(local_peak) : local_peak);
  const float scale = physics::products_scale(peak);
  if (scale == 0.0f) return {};
  const physics::DensityProducts local = backend_.density_products(scale);
  if (!comm_) return local;
  const std::vector<std::int64_t> sums = comm_->sum(std::vector<std::int64_t>{local.d11, local.d21, local.d22});
  return physics::DensityProducts{sums[0], sums[1], sums[2]};
}

std::uint64_t Stepper::halo_bytes_per_step() const {
  if (!domain_) return 0;
  return counts_[parallel::send_down] + counts_[parallel::send_up];
}

}  // namespace rockperm::solve
