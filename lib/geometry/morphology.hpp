#pragma once
// Pore morphology: where two immiscible fluids sit in the pore space at a capillary pressure, by
// the full-morphology rule of Hilpert & Miller (2001) with the contact angle as Schulz et al.
// (2015) generalise it. Geometry only: the distance transform of the pores, nested thresholds,
// and connectivity through the links the lattice keeps (faces, and edges unless edge contacts
// are sealed: lib/geometry/connectivity.hpp), so that a phase's cells are a sub-lattice the flow
// solve runs on as it is.
//
// The rule, in voxel units (the pipeline turns radii into pressures: Pc = 2 sigma cos(theta) / r):
//   - A ball of radius R bounded by voxel faces: its centre lies on a pore voxel centre x, and it
//     meets the solid at the wetting phase's contact angle theta_w when the solid's nearest voxel
//     face is R cos(theta_w) from x, that is when EDT(x) >= R cos(theta_w) + 1/2 (EDT: the distance
//     from a voxel centre to the nearest solid voxel centre). At theta_w = 0 the ball touches the
//     solid; above it, the meniscus is the ball's cap that cuts the wall at theta_w.
//   - The ball covers the pore voxels whose centres lie within R of x.
//   - The largest inscribed radius of a pore is thus EDT_max - 1/2, and a straight tube or slit
//     whose widest centre has EDT_max is entered at Pc = 2 sigma cos(theta_w) / ((EDT_max - 1/2) h):
//     Young-Laplace at that radius (a slit: the same ball rule, so 2 sigma cos / r as well, the
//     morphology's convention for any shape).
//
// Drainage (radii falling, Pc rising): the non-wetting phase holds the union of the balls whose
// centres it reaches from its entry faces through centres of the same radius; it never recedes.
// With wetting trapping, a wetting cluster that has lost every path to the exit face stays
// wetting from then on (incompressible: a lab's porous plate).
// Imbibition (radii rising, Pc falling) from a drained state: the non-wetting phase keeps the
// voxels covered by balls that still fit (anywhere: the wetting phase advances along the walls),
// never re-enters what it left, and a non-wetting cluster that has lost every path to its faces
// stays where it is (residual saturation).
//
// The scan's faces are not walls here (no solid beyond them: a pore cut by a face is as wide as it
// is inside); the flow's lateral walls are a boundary condition of the flow, not of the fluids.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/base/names.hpp"
#include "lib/geometry/connectivity.hpp"
#include "lib/geometry/volume.hpp"

namespace rockperm::geometry {

// Where the non-wetting phase enters in drainage: the flow axis's inlet face (the wetting phase
// leaves through the outlet face), both faces of the flow axis, or all six faces (MICP: the
// sample immersed in mercury; no exit for the wetting phase, which is evacuated).
enum class EntryFaces { inlet, both, all };
inline constexpr std::array<Named<EntryFaces>, 3> entry_face_names{
    {{"inlet", EntryFaces::inlet}, {"both", EntryFaces::both}, {"all", EntryFaces::all}}};
const char* to_string(EntryFaces f);

struct MorphologySpec {
  int flow_axis = 0;
  EntryFaces entry = EntryFaces::inlet;
  bool trap_wetting = true;       // drainage; needs an exit (entry = inlet)
  double cos_theta = 1.0;         // cos of the wetting phase's contact angle, (0, 1]
  EdgeContacts edges = EdgeContacts::open;
};

// A displacement's sequence: the step at which the displacing phase takes each voxel (not_taken: it
// does not), steps in the order of `radii`.
inline constexpr std::uint16_t not_taken = 0xFFFF;
inline constexpr std::size_t max_displacement_steps = 4096;
struct Displacement {
  std::vector<double> radii;            // R of each step, voxels
  std::vector<std::uint64_t> defending; // voxels of the defending phase after each step
  std::uint64_t domain = 0;             // voxels the two phases share (the pore space)
  std::uint64_t trapped = 0;            // defending voxels trapped at the end (imbibition: at Pc -> 0)
  std::vector<std::uint16_t> step;      // per voxel of the volume (not_taken outside the domain)
  // the phases after step j: drained_phases(), imbibed_phases()
};

// The largest ball radius the non-wetting phase can enter with from its faces (voxels), and the
// radius of the widest centres that join the flow axis's two faces (breakthrough: the non-wetting
// phase spans the sample, whatever its entry faces). 0 where no pore touches the faces.
struct EntryRadii {
  double entry = 0;
  double breakthrough = 0;
};

// The pore voxels' squared distance to the solid (EDT^2: integers, exact in float).
std::vector<float> squared_pore_distance(const Dims& dims, const std::vector<std::uint8_t>& pore);

// Drainage of `pore` (non-zero: pore) at radii falling strictly. Throws InputError
// ("two_phase.entry") where no pore touches the entry faces, ("two_phase.trapping") where the
// wetting phase is trapped but cannot leave (entry not `inlet`, or no pore on the exit face).
// `inlet_reach`: entry_radii's flood from the inlet face, where the caller kept it (the same
// flood the drainage makes for entry = inlet: made once).
Displacement drain(const Dims& dims, const std::vector<std::uint8_t>& pore, const std::vector<float>& edt2,
                   const MorphologySpec& spec, const std::vector<double>& radii,
                   const std::vector<float>* inlet_reach = nullptr);
// `inlet_reach`, where given, receives the flood from the inlet face (for drain()).
EntryRadii entry_radii(const Dims& dims, const std::vector<std::uint8_t>& pore, const std::vector<float>& edt2,
                       const MorphologySpec& spec, std::vector<float>* inlet_reach = nullptr);

// Imbibition at radii rising strictly, from the non-wetting voxels of `drained` after its
// last step: the non-wetting phase trapped where it loses every path to its entry faces. `trapped`
// is what stays as Pc falls to 0 after the last radius (the residual non-wetting saturation).
Displacement imbibe(const Dims& dims, const std::vector<std::uint8_t>& pore, const std::vector<float>& edt2,
                    const MorphologySpec& spec, const Displacement& drained, const std::vector<double>& radii);

// Phases after step j (solid 0, wetting 1, non-wetting 2) of a drainage, or of an imbibition from
// `drained`'s last step.
inline constexpr std::uint8_t phase_solid = 0, phase_wetting = 1, phase_nonwetting = 2;
std::vector<std::uint8_t> drained_phases(const std::vector<std::uint8_t>& pore, const Displacement& drainage,
                                         std::size_t j);
std::vector<std::uint8_t> imbibed_phases(const std::vector<std::uint8_t>& pore, const Displacement& drainage,
                                         const Displacement& imbibition, std::size_t j);
// The pore voxels of `phases` (codes as above) drawn again at random, each wetting with probability
// its wetting share (wetting over pore voxels), so the saturation is kept within the draw's
// 1/sqrt(n); the solid kept. The draw is a hash of each voxel's index and `seed`: the same on any
// machine and number of ranks. The two-phase flow's random start (issue 69).
std::vector<std::uint8_t> random_phases(const std::vector<std::uint8_t>& phases, std::uint64_t seed);

}  // namespace rockperm::geometry
