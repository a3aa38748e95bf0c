#pragma once
// The conduction solve on a GPU (issue 51): the engine of lib/solve/conduction_system.hpp with
// its vectors, operator and multigrid levels in device memory, each operation of the host engine
// a kernel or a few (cuda/conduction_kernels.hpp). Ghost planes travel through the host (a plane
// of doubles each way per exchange, beside the cycle's hundreds of kernels, replayed as one
// graph: no transport of the flow's is needed). The iterates equal the host's to rounding (the per-plane sums add in another
// order), so F agrees within the solve's tolerance, not to the bit.
#include <string>

#include "lib/solve/conduction.hpp"

namespace rockperm::cuda {

// A factory for solve_conduction: an engine on `device` where it has the memory the solve needs
// (with a margin), else none, and `note` (if given) then says why.
solve::ConductionEngineFactory conduction_engine_on(int device, std::string* note = nullptr);

// Device bytes the engine takes for `owned` owned and `cells` local cells (multigrid levels included
// as a 1/3 share of the first), what the factory checks against the free memory.
// for a stencil of `links` links a cell (6 faces or 18)
double conduction_engine_bytes(std::uint64_t owned, std::uint64_t cells, bool multigrid, int links = 6);

}  // namespace rockperm::cuda
