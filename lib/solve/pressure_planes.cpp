#include "lib/solve/pressure_planes.hpp"

#include <algorithm>
#include <string>

#include "lib/base/error.hpp"

namespace rockperm {

double PressureProfile::mean_rho(std::int64_t first, std::int64_t end) const {
  double sum = 0;
  int planes = 0;
  for (std::int64_t p = first; p < end; ++p) {
    if (cells[p] == 0) continue;
    sum += rho_sum[p] / cells[p];
    ++planes;
  }
  if (planes == 0) {  // a plane with no pore voxel: only possible with the percolation filter off
    throw InputError("planes " + std::to_string(first) + ".." + std::to_string(end - 1) +
                     " across the flow hold no pore voxel, so nothing flows through the sample and k = 0; "
                     "run with the percolation filter on to have such samples stopped before the solve");
  }
  return sum / planes;
}

PressureProfile pressure_profile(const SparseLattice& lattice, const Macroscopic& owned, int flow_axis,
                                 std::int64_t planes, std::int64_t first_local_z) {
  PressureProfile out;
  out.rho_sum.assign(planes, 0.0);
  out.cells.assign(planes, 0.0);
  for (std::uint32_t c = lattice.owned_begin(); c < lattice.owned_end(); ++c) {
    const Coord& xyz = lattice.coords()[c];
    const std::int64_t pos[3] = {xyz.x, xyz.y, first_local_z + xyz.z};
    out.rho_sum[pos[flow_axis]] += 1.0 + static_cast<double>(owned.drho[c - lattice.owned_begin()]);
    out.cells[pos[flow_axis]] += 1.0;
  }
  return out;
}

PressureDrop end_plane_drop(const PressureProfile& profile, std::int64_t begin, std::int64_t end) {
  PressureDrop d;
  d.rho_in = profile.mean_rho(begin - 1, begin);
  d.rho_out = profile.mean_rho(end, end + 1);
  d.length = static_cast<double>(end - begin + 1);
  return d;
}

PressureDrop interior_drop(const PressureProfile& profile, std::int64_t begin, std::int64_t end) {
  const std::int64_t length = end - begin;
  if (length < 8) {  // no interior to speak of: the end planes, or (mirror: no plane before) no drop
    return begin > 0 ? end_plane_drop(profile, begin, end) : PressureDrop{};
  }
  PressureDrop d;
  d.margin = std::max<std::int64_t>(1, length / 8);
  d.window = std::max<std::int64_t>(1, length / 16);
  const std::int64_t in = begin + d.margin, out = end - d.margin - d.window;
  d.rho_in = profile.mean_rho(in, in + d.window);
  d.rho_out = profile.mean_rho(out, out + d.window);
  d.length = static_cast<double>(out - in);
  return d;
}

double effective_acceleration(double g, const PressureDrop& drop) {
  const double rho = 0.5 * (drop.rho_in + drop.rho_out);
  return g - (drop.rho_out - drop.rho_in) / 3.0 / (rho * drop.length);
}

SampleDrive sample_drive(const PressureProfile& profile, double g, std::int64_t begin, std::int64_t end) {
  SampleDrive d;
  d.drop = interior_drop(profile, begin, end);
  d.acceleration = effective_acceleration(g, d.drop);
  d.end_planes = begin > 0 ? effective_acceleration(g, end_plane_drop(profile, begin, end)) : g;
  return d;
}

}  // namespace rockperm
