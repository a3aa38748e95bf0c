#include "lib/geometry/inlet_outlet.hpp"

#include <algorithm>
#include <cstring>

#include "lib/base/error.hpp"

namespace rockperm::geometry {

InletOutlet parse_inlet_outlet(const std::string& text) {
  if (const auto m = value_in(inlet_outlet_names, text)) return *m;
  throw InputError("flow.inlet_outlet", "'" + text + "' is unknown; use " + name_list(inlet_outlet_names, " or "));
}

const char* to_string(InletOutlet m) { return name_in(inlet_outlet_names, m); }

FlowExtent extended_extent(std::int64_t n, InletOutlet mode, int layers) {
  if (mode == InletOutlet::periodic) return {n, 0, n};
  if (mode == InletOutlet::buffer && layers < 1) {
    throw InputError("flow.buffer_layers", "buffer mode needs at least one buffer layer");
  }
  if (mode == InletOutlet::buffer) return {n + 2 * layers, layers, layers + n};
  return {2 * n, 0, n};
}

std::int64_t sample_plane(std::int64_t p, std::int64_t n, InletOutlet mode, int layers) {
  if (mode == InletOutlet::buffer) return p >= layers && p < layers + n ? p - layers : -1;
  if (mode == InletOutlet::mirror && p >= n) return 2 * n - 1 - p;
  return p;
}

ExtendedSample extend_along_flow(PoreMask mask, int axis, InletOutlet mode, int layers) {
  ExtendedSample out;
  const Dims d = mask.dims;
  const std::int64_t n = d[axis];
  if (mode == InletOutlet::periodic) {
    out.mask = std::move(mask);
    out.sample_end = n;
    return out;
  }
  const FlowExtent extent = extended_extent(n, mode, layers);
  const std::int64_t before = extent.sample_begin;
  const std::int64_t extended = extent.planes;
  Dims e = d;
  (axis == 0 ? e.nx : (axis == 1 ? e.ny : e.nz)) = extended;
  validate_dims(e, "the sample with its inlet and outlet");
  out.mask.dims = e;
  out.mask.pore.assign(e.voxels(), 1);  // buffers are pure fluid
  // row by row (x rows), in parallel over the rows: each row of the sample lands whole in the
  // extended volume, shifted along the flow axis; a mirror image adds the row again, reflected
  // (reversed when the flow runs along x, at the mirrored row otherwise)
  const std::int64_t rows = d.ny * d.nz;
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t y = r % d.ny, z = r / d.ny;
    const std::uint8_t* row = mask.pore.data() + d.linear(0, y, z);
    std::int64_t c[3] = {0, y, z};
    c[axis] += before;
    std::memcpy(out.mask.pore.data() + e.linear(c[0], c[1], c[2]), row, static_cast<std::size_t>(d.nx));
    if (mode != InletOutlet::mirror) continue;
    if (axis == 0) {
      std::reverse_copy(row, row + d.nx, out.mask.pore.data() + e.linear(n, y, z));
    } else {
      c[axis] = 2 * n - 1 - (c[axis] - before);
      std::memcpy(out.mask.pore.data() + e.linear(c[0], c[1], c[2]), row, static_cast<std::size_t>(d.nx));
    }
  }
  out.sample_begin = before;
  out.sample_end = before + n;
  return out;
}

}  // namespace rockperm::geometry
