#pragma once
// A file read on several ranks, each preparing its own slab of it (issue 50): rank r reads its
// share of the sample's z planes straight from the file (and the plane above them), the
// percolation filter runs on the slabs (lib/parallel/slab_percolation.hpp), the pore statistics,
// grey counts and plane counts are sums of the slabs', and only those sums travel. decompose()
// then moves each plane to the rank whose fluid-balanced slab owns it, making the buffer planes
// and the mirror image there. The sample, its lattice and its results are those of the read on
// rank 0 (pipeline/sample.hpp), to the bit; the input's SHA-256 is still rank 0's (streamed from
// the file beside the work, holding no volume).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lib/parallel/comm.hpp"
#include "lib/parallel/partition.hpp"
#include "pipeline/sample.hpp"
#include "pipeline/spec.hpp"

namespace rockperm::pipeline {

// OpenMP's threads for a scope (the ranks of a host sharing its cores: Sample::Slabs::threads),
// as they were after it. 0 keeps them.
class ScopedThreads {
 public:
  explicit ScopedThreads(int threads);
  ~ScopedThreads();
  ScopedThreads(const ScopedThreads&) = delete;
  ScopedThreads& operator=(const ScopedThreads&) = delete;

 private:
  int before_;
};

// A variant of the file's sample made plane by plane on the slabs, as the companion runs see it
// (pipeline/companion.hpp): its grey voxels solid, and coarsened `coarsen_levels` times by
// geometry::coarsen_2x (2^levels voxels a side). The default is the sample itself.
struct SampleView {
  bool grey_solid = false;
  int coarsen_levels = 0;
  bool plain() const { return !grey_solid && coarsen_levels == 0; }
};

// `planes` (consecutive planes of the file's sample, the first the first of view plane
// `first_plane`) as the view shows them: grey voxels made solid, then coarsened level by level with
// the whole's parity (coarsen_2x's first_z). The whole mask with first_plane 0 is the view of the
// whole; the slabs' reads make theirs of runs of their planes, the same planes to the bit.
geometry::PoreMask view_of(geometry::PoreMask planes, const SampleView& view, std::int64_t first_plane = 0);

// The dimensions of the sample (the crop's, or its view's) where read_sample prepares `spec` on
// slabs: a file every rank sees, several ranks, and at least as many planes as ranks (else rank 0
// reads it, and says what is wrong). Collective.
std::optional<geometry::Dims> read_on_slabs(const parallel::Comm& comm, const SampleSpec& spec,
                                            const SampleView& view = {});

// read_sample on slabs, of a sample of dimensions `whole` (read_on_slabs'); every rank; an input
// or physics error is thrown on every rank. A view other than the plain one is named `name`, has
// no input hash, and equals sample_from_mask of the view made on rank 0 (the same sample, lattice
// and k).
Sample read_sample_on_slabs(const parallel::Comm& comm, const SampleSpec& spec, const FlowSpec& flow,
                            const geometry::Dims& whole, const SampleView& view = {}, const std::string& name = {});

// The planes of the simulated volume a rank needs, from the ranks that hold them
// (sample.slabs; collective). Every rank's list comes from `needs(rank)` (global simulated z, no
// repeats); the mask holds this rank's planes in the order of its list.
geometry::PoreMask gather_planes(const parallel::Comm& comm, const Sample& sample,
                                 const std::function<std::vector<std::int64_t>(int)>& needs);

}  // namespace rockperm::pipeline
