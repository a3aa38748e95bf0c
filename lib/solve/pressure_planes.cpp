#include "lib/solve/pressure_planes.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "lib/base/error.hpp"
#include "lib/base/uninitialized.hpp"

namespace rockperm::solve {

double PressureProfile::mean_rho(std::int64_t first, std::int64_t end) const {
  double sum = 0;
  int planes = 0;
  for (std::int64_t p = first; p < end; ++p) {
    if (cells[p] == 0) continue;
    sum += 1.0 + drho_sum[p] / cells[p];
    ++planes;
  }
  if (planes == 0) {  // a plane with no pore voxel: only possible with the percolation filter off
    throw InputError("planes " + std::to_string(first) + ".." + std::to_string(end - 1) +
                     " across the flow hold no pore voxel, so nothing flows through the sample and k = 0; "
                     "run with the percolation filter on to have such samples stopped before the solve");
  }
  return sum / planes;
}

double PressureProfile::flux_weighted_rho(std::int64_t p) const {
  const auto i = static_cast<std::size_t>(p);
  if (i >= weighted_sum.size() || flux_sum[i] == 0.0) return mean_rho(p, p + 1);
  return 1.0 + weighted_sum[i] / flux_sum[i];
}

double PressureProfile::darcy_velocity(std::int64_t first, std::int64_t end) const {
  double sum = 0;
  for (std::int64_t p = first; p < end; ++p) sum += flux_sum[p];
  return end > first ? sum / (area * static_cast<double>(end - first)) : 0.0;
}

double flux_spread(const PressureProfile& before, const PressureProfile& now, std::int64_t steps) {
  std::int64_t running = 0, lo = 0, hi = 0;  // exact: integer sums
  for (std::size_t p = 0; p < now.drho_fixed.size(); ++p) {
    running += now.drho_fixed[p] - before.drho_fixed[p];
    lo = std::min(lo, running);
    hi = std::max(hi, running);
  }
  double flux = 0;
  for (const double f : now.flux_sum) flux += f;
  flux /= static_cast<double>(std::max<std::size_t>(1, now.flux_sum.size()));
  const double spread = static_cast<double>(hi - lo) / physics::plane_fixed_scale / static_cast<double>(steps);
  return flux != 0.0 ? spread / std::abs(flux) : (spread == 0.0 ? 0.0 : 1.0);
}

PressureProfile pressure_profile(const backend::PlaneSums& sums, const std::vector<double>& cells, double area) {
  PressureProfile out;
  out.drho_fixed = sums.drho;
  out.drho_sum.resize(sums.drho.size());
  out.flux_sum.resize(sums.flux.size());
  out.weighted_sum.resize(sums.weighted.size());
  for (std::size_t p = 0; p < sums.drho.size(); ++p) {
    out.drho_sum[p] = static_cast<double>(sums.drho[p]) / physics::plane_fixed_scale;
    out.flux_sum[p] = static_cast<double>(sums.flux[p]) / physics::plane_fixed_scale;
  }
  for (std::size_t p = 0; p < sums.weighted.size(); ++p) {
    out.weighted_sum[p] = static_cast<double>(sums.weighted[p]) / physics::plane_weighted_scale;
  }
  out.cells = cells;
  out.area = area;
  return out;
}

PlaneReader::PlaneReader(backend::Backend& backend, const lattice::SparseLattice& lattice, const parallel::Comm& comm,
                         int axis, std::int64_t planes, std::int64_t first_local_z, double area)
    : backend_(backend), comm_(comm), area_(area) {
  static_assert(geometry::max_extent <= 65535, "plane indices are stored as uint16");
  // each owned cell's plane, and the cells of each plane, on the threads (one thread took 2-3 s
  // for the 1.2 G cells of a 2000^3 scan on one rank); the counts are integers, the same on any
  // number of threads
  const std::uint32_t first = lattice.owned_begin();
  const auto n = static_cast<std::int64_t>(lattice.owned_end() - first);
  Uninitialized<std::uint16_t> plane_of(static_cast<std::size_t>(n));
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(planes), 0);
  const lattice::Coord* xyz = lattice.coords().data() + first;
#pragma omp parallel
  {
    std::vector<std::uint64_t> mine(static_cast<std::size_t>(planes), 0);
#pragma omp for schedule(static) nowait
    for (std::int64_t k = 0; k < n; ++k) {
      const std::int64_t pos[3] = {xyz[k].x, xyz[k].y, first_local_z + xyz[k].z};
      plane_of[static_cast<std::size_t>(k)] = static_cast<std::uint16_t>(pos[axis]);
      ++mine[static_cast<std::size_t>(pos[axis])];
    }
#pragma omp critical
    for (std::size_t p = 0; p < mine.size(); ++p) counts[p] += mine[p];
  }
  std::vector<double> cells(counts.begin(), counts.end());
  backend_.set_planes(axis, std::move(plane_of), static_cast<std::uint32_t>(planes));
  cells_ = comm_.sum(cells);
}

PressureProfile PlaneReader::read() const {
  backend::PlaneSums sums;
  backend_.plane_sums(sums);
  sums.drho = comm_.sum(sums.drho);
  sums.flux = comm_.sum(sums.flux);
  sums.weighted = comm_.sum(sums.weighted);
  return pressure_profile(sums, cells_, area_);
}

InteriorSlabs interior_slabs(std::int64_t begin, std::int64_t end) {
  const std::int64_t length = end - begin;
  InteriorSlabs s;
  s.margin = std::max<std::int64_t>(1, length / 8);
  s.window = std::max<std::int64_t>(1, length / 16);
  s.in = begin + s.margin;
  s.out = end - s.margin - s.window;
  return s;
}

PressureDrop interior_drop(const PressureProfile& profile, std::int64_t begin, std::int64_t end) {
  const std::int64_t length = end - begin;
  if (length < 8) return PressureDrop{};  // no interior to speak of (margin 0)
  PressureDrop d;
  const InteriorSlabs slabs = interior_slabs(begin, end);
  d.margin = slabs.margin;
  d.window = slabs.window;
  const std::int64_t in = slabs.in, out = slabs.out;
  d.rho_in = profile.mean_rho(in, in + d.window);
  d.rho_out = profile.mean_rho(out, out + d.window);
  d.length = static_cast<double>(out - in);
  return d;
}

double effective_acceleration(double g, const PressureDrop& drop) {
  const double rho = 0.5 * (drop.rho_in + drop.rho_out);
  return g - (drop.rho_out - drop.rho_in) / 3.0 / (rho * drop.length);
}

double whole_sample_acceleration(double g, const PressureProfile& profile, std::int64_t begin, std::int64_t end) {
  PressureDrop d;
  d.rho_in = profile.flux_weighted_rho(begin - 1);
  d.rho_out = profile.flux_weighted_rho(end);
  d.length = static_cast<double>(end - begin + 1);
  return effective_acceleration(g, d) * d.length / static_cast<double>(end - begin);
}

SampleDrive sample_drive(const PressureProfile& profile, double g, std::int64_t begin, std::int64_t end) {
  SampleDrive d;
  if (begin > 0) {  // buffers
    d.acceleration = whole_sample_acceleration(g, profile, begin, end);
    d.velocity = profile.darcy_velocity(begin, end);
  } else {  // mirror: the period, no mean gradient over it
    d.acceleration = g;
    d.period = 1;
  }
  const PressureDrop interior = interior_drop(profile, begin, end);
  if (interior.margin > 0) {
    d.interior = interior;
    d.interior_acceleration = effective_acceleration(g, interior);
    const std::int64_t from = begin + interior.margin + interior.window / 2;
    d.interior_velocity = profile.darcy_velocity(from, from + static_cast<std::int64_t>(interior.length));
  }
  return d;
}

PartDrive part_drive(const PressureProfile& profile, double g, std::int64_t first, std::int64_t end,
                     std::int64_t window) {
  PressureDrop drop;
  drop.window = window;
  const std::int64_t out = end - window;
  drop.rho_in = profile.mean_rho(first, first + window);
  drop.rho_out = profile.mean_rho(out, out + window);
  drop.length = static_cast<double>(out - first);
  return {effective_acceleration(g, drop), profile.darcy_velocity(first + window / 2, first + window / 2 + (out - first))};
}

}  // namespace rockperm::solve
