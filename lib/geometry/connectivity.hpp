#pragma once
// How the pore space connects across its faces and edges: the vocabulary the percolation filter
// (this folder) and the lattice's links (lib/lattice) share, so that both keep the same pores.
#include <array>
#include <string>

#include "lib/base/names.hpp"

namespace rockperm::geometry {

using Periodicity = std::array<bool, 3>;

// Two pore voxels that touch only along an edge (a diagonal D3Q19 link whose two face-adjacent
// voxels in between are both solid) meet in a line of zero width in the voxel image; the flow
// the one diagonal link carries there is a property of the lattice and of Lambda. But such a
// contact is most often a throat narrower than a voxel that the scan could not resolve, and
// the resolution study of docs/ACCURACY.md (one pack at 64^3, 128^3, 192^3) decides: on a
// tight 12 % pack k at 64^3 is 2.2 % above the resolved value with the link open and 4.6 %
// below it sealed (on a 35 % pack: +0.9 % open, +0.4 % sealed), and the two conventions
// converge to each other (7.5 %, 1.3 %, 0.3 % apart). So `open` (the default) lets them carry
// flow, as D3Q19 codes do; `sealed` bounces them back on both sides, which makes the pore space
// face-connected as voxel finite-volume solvers see it. The percolation filter follows the
// choice (18- or 6-connected), so it keeps exactly the pores the links join.
enum class EdgeContacts { sealed, open };
inline constexpr std::array<Named<EdgeContacts>, 2> edge_contact_names{
    {{"open", EdgeContacts::open}, {"sealed", EdgeContacts::sealed}}};
EdgeContacts parse_edge_contacts(const std::string& text);
const char* to_string(EdgeContacts e);

}  // namespace rockperm::geometry
