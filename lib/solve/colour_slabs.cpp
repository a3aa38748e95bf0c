#include "lib/solve/colour_slabs.hpp"

#include "lib/base/error.hpp"

namespace rockperm::solve {

namespace {

// tags of the two directions (a rank whose neighbours below and above are one rank, or itself,
// tells them apart by these)
constexpr int tag_up = 6901, tag_down = 6902;

}  // namespace

ColourSlabs::ColourSlabs(std::unique_ptr<backend::ColourBackend> rank, const parallel::Comm& comm,
                         const parallel::SlabDomain& domain, const lattice::SparseLattice& local, std::int64_t nz)
    : ColourBackend(rank->params(), rank->storage()), rank_(std::move(rank)), comm_(comm), domain_(domain),
      local_(local), nz_(nz) {
  const auto& offsets = local.plane_offsets();
  const std::int64_t first = domain.ghost_low ? 1 : 0, last = first + (domain.slab.z_end - domain.slab.z_begin) - 1;
  const auto range = [&](std::int64_t z, std::uint64_t (&out)[2]) {
    out[0] = offsets[z];
    out[1] = offsets[z + 1];
  };
  range(first, bottom_);
  range(last, top_);
  if (domain.ghost_low) range(0, ghost_low_);
  if (domain.ghost_high) range(last + 1, ghost_high_);
  step_ = rank_->step();
}

std::string ColourSlabs::description() const {
  return rank_->description() + ", slab " + std::to_string(domain_.rank + 1) + " of " + std::to_string(domain_.ranks);
}

void ColourSlabs::exchange(Halo what) {
  using T = parallel::Comm::Transfer;
  const auto size = [&](const std::uint64_t (&r)[2]) { return halo_bytes(what, r[1] - r[0]); };
  std::vector<T> sends, receives;
  if (domain_.lower >= 0) {
    send_down_.resize(size(bottom_));
    rank_->pack_halo(what, -1, bottom_[0], bottom_[1], send_down_.data());
    sends.push_back({domain_.lower, tag_down, send_down_.data(), send_down_.size()});
    from_low_.resize(size(ghost_low_));
    receives.push_back({domain_.lower, tag_up, from_low_.data(), from_low_.size()});
  }
  if (domain_.upper >= 0) {
    send_up_.resize(size(top_));
    rank_->pack_halo(what, +1, top_[0], top_[1], send_up_.data());
    sends.push_back({domain_.upper, tag_up, send_up_.data(), send_up_.size()});
    from_high_.resize(size(ghost_high_));
    receives.push_back({domain_.upper, tag_down, from_high_.data(), from_high_.size()});
  }
  comm_.exchange(sends, receives);
  if (domain_.lower >= 0) rank_->unpack_halo(what, +1, ghost_low_[0], ghost_low_[1], from_low_.data());
  if (domain_.upper >= 0) rank_->unpack_halo(what, -1, ghost_high_[0], ghost_high_[1], from_high_.data());
}

void ColourSlabs::phase_pass() {
  rank_->phase_pass();
  exchange(Halo::phase);
}

void ColourSlabs::collide_pass() {
  rank_->collide_pass();
  exchange(Halo::populations);
  step_ = rank_->step();
}

ColourSlabs::FixedSums ColourSlabs::fixed_sums_now(int plane_axis) {
  const FixedSums mine = rank_->fixed_sums_now(plane_axis);
  // one sum over the ranks: the totals, then the planes' bins by global plane
  std::vector<std::int64_t> all(mine.totals.begin(), mine.totals.end());
  const std::size_t totals = all.size();
  if (plane_axis >= 0) {
    const std::int64_t planes = plane_axis == 2 ? nz_ : local_.dims()[plane_axis];
    all.resize(totals + 4 * static_cast<std::size_t>(planes), 0);
    for (std::size_t local = 0; local < mine.planes.size() / 4; ++local) {
      const std::int64_t global = plane_axis == 2 ? domain_.planes[local] : static_cast<std::int64_t>(local);
      for (int f = 0; f < 4; ++f) all[totals + 4 * static_cast<std::size_t>(global) + f] += mine.planes[4 * local + f];
    }
  }
  all = comm_.sum(all);
  FixedSums out;
  out.cells = comm_.sum(mine.cells);
  // below 2^53 (a speed below 2^21): exact as a double
  out.fastest = static_cast<std::uint64_t>(comm_.max(static_cast<double>(mine.fastest)));
  out.totals.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(totals));
  out.planes.assign(all.begin() + static_cast<std::ptrdiff_t>(totals), all.end());
  return out;
}

}  // namespace rockperm::solve
