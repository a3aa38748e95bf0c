#include "lib/geometry/inlet_outlet.hpp"

#include "lib/base/error.hpp"

namespace rockperm {

InletOutlet parse_inlet_outlet(const std::string& text) {
  if (text == "periodic") return InletOutlet::periodic;
  if (text == "buffer") return InletOutlet::buffer;
  if (text == "mirror") return InletOutlet::mirror;
  throw InputError("flow.inlet_outlet", "'" + text + "' is unknown; use periodic, buffer or mirror");
}

const char* to_string(InletOutlet m) {
  return m == InletOutlet::periodic ? "periodic" : (m == InletOutlet::buffer ? "buffer" : "mirror");
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
  if (mode == InletOutlet::buffer && layers < 1) {
    throw InputError("flow.buffer_layers", "buffer mode needs at least one buffer layer");
  }
  const std::int64_t before = mode == InletOutlet::buffer ? layers : 0;
  const std::int64_t extended = mode == InletOutlet::buffer ? n + 2 * layers : 2 * n;
  Dims e = d;
  (axis == 0 ? e.nx : (axis == 1 ? e.ny : e.nz)) = extended;
  validate_dims(e, "the sample with its inlet and outlet");
  out.mask.dims = e;
  out.mask.pore.assign(e.voxels(), 1);  // buffers are pure fluid
  for (std::int64_t z = 0; z < d.nz; ++z)
    for (std::int64_t y = 0; y < d.ny; ++y)
      for (std::int64_t x = 0; x < d.nx; ++x) {
        std::int64_t c[3] = {x, y, z};
        const std::uint8_t v = mask.pore[d.linear(x, y, z)];
        c[axis] += before;
        out.mask.pore[e.linear(c[0], c[1], c[2])] = v;
        if (mode == InletOutlet::mirror) {
          c[axis] = 2 * n - 1 - (c[axis] - before);
          out.mask.pore[e.linear(c[0], c[1], c[2])] = v;
        }
      }
  out.sample_begin = before;
  out.sample_end = before + n;
  return out;
}

}  // namespace rockperm
