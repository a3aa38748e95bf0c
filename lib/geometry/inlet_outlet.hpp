#pragma once
// What happens at the inlet and outlet faces of a sample that is not periodic along the flow:
// - periodic: the sample is taken as one period (right for synthetic periodic media);
// - buffer: layers of pure fluid are added before and after the sample, the lateral faces are
//   sealed, and the extended domain is periodic along the flow; k is measured on the sample;
// - mirror: the sample is followed by its mirror image along the flow axis, which makes the
//   domain periodic without a step at the faces.
// In both extended forms porosity is that of the sample alone, and the Darcy flux (the same
// through every cross-section in steady flow) is measured over the whole domain.
#include <cstdint>
#include <string>

#include "lib/base/names.hpp"
#include "lib/geometry/pore_mask.hpp"

namespace rockperm::geometry {

enum class InletOutlet { periodic, buffer, mirror };
inline constexpr std::array<Named<InletOutlet>, 3> inlet_outlet_names{
    {{"buffer", InletOutlet::buffer}, {"mirror", InletOutlet::mirror}, {"periodic", InletOutlet::periodic}}};

InletOutlet parse_inlet_outlet(const std::string& text);
const char* to_string(InletOutlet m);

struct ExtendedSample {
  PoreMask mask;
  std::int64_t sample_begin = 0, sample_end = 0;  // the sample's planes along the flow axis
};

ExtendedSample extend_along_flow(PoreMask mask, int flow_axis, InletOutlet mode, int buffer_layers);

// Along the flow axis, for a sample of n planes: the extended volume's planes and the sample's
// among them. Throws InputError (flow.buffer_layers) for buffers without a layer.
struct FlowExtent {
  std::int64_t planes = 0, sample_begin = 0, sample_end = 0;
};
FlowExtent extended_extent(std::int64_t n, InletOutlet mode, int layers);
// The sample plane that plane p of the extended volume holds (reflected in a mirror image, as
// it is); -1 for a buffer plane, which is pure fluid.
std::int64_t sample_plane(std::int64_t p, std::int64_t n, InletOutlet mode, int layers);

}  // namespace rockperm::geometry
