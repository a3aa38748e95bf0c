#pragma once
// A file read on several ranks, each preparing its own slab of it (issue 50): rank r reads its
// share of the sample's z planes straight from the file (and the plane above them), the
// percolation filter runs on the slabs (lib/parallel/slab_percolation.hpp), the pore statistics,
// grey counts and plane counts are sums of the slabs', and only those sums travel. decompose()
// then moves each plane to the rank whose fluid-balanced slab owns it, making the buffer planes
// and the mirror image there. The sample, its lattice and its results are those of the read on
// rank 0 (pipeline/sample.hpp), to the bit; the input's SHA-256 is still rank 0's (streamed from
// the file beside the work, holding no volume).
#include <optional>
#include <vector>

#include "lib/parallel/comm.hpp"
#include "lib/parallel/partition.hpp"
#include "pipeline/sample.hpp"
#include "pipeline/spec.hpp"

namespace rockperm::pipeline {

// The sample's dimensions (the crop's) where read_sample prepares `spec` on slabs: a file every
// rank sees, several ranks, and at least as many sample planes as ranks (else rank 0 reads it,
// and says what is wrong). Collective.
std::optional<geometry::Dims> read_on_slabs(const parallel::Comm& comm, const SampleSpec& spec);

// read_sample on slabs, of a sample of dimensions `whole` (read_on_slabs'); every rank; an input
// or physics error is thrown on every rank.
Sample read_sample_on_slabs(const parallel::Comm& comm, const SampleSpec& spec, const FlowSpec& flow,
                            const geometry::Dims& whole);

// The planes of the simulated volume a rank needs, from the ranks that hold them
// (sample.slabs; collective). Every rank's list comes from `needs(rank)` (global simulated z, no
// repeats); the mask holds this rank's planes in the order of its list.
geometry::PoreMask gather_planes(const parallel::Comm& comm, const Sample& sample,
                                 const std::function<std::vector<std::int64_t>(int)>& needs);

}  // namespace rockperm::pipeline
