#pragma once
// Stage 3: where this rank runs. Resolves `auto` (the first CUDA device when one is usable,
// else the CPU), chooses this rank's GPU by host name (core paper, Algorithm 2), resolves the
// propagation, checks that the sample fits before anything is allocated, and makes the backend.
#include <memory>
#include <string>
#include <vector>

#include "lib/backend/backend.hpp"
#include "lib/lattice/sparse_lattice.hpp"
#include "lib/parallel/comm.hpp"
#include "pipeline/decomposition.hpp"
#include "pipeline/spec.hpp"
#include "lib/solve/stepper.hpp"

namespace rockperm::pipeline {

struct ExecutionPlan {
  bool cuda = false;
  int device = 0;
  std::string note;                   // which backend was chosen and why
  std::string device_log;             // rank 0, several ranks on GPUs: one line per rank
  std::vector<double> device_memory;  // bytes of each CUDA device of this host (empty: none)
  std::vector<std::string> device_names;  // "<name> (<uuid>)" of each
  // this rank's device as reports name it: "cpu" or "<name> (<uuid>)"
  std::string identity() const { return cuda && device < static_cast<int>(device_names.size()) ? device_names[device] : "cpu"; }
  backend::Propagation propagation = backend::Propagation::two_pass;
  physics::Storage storage = physics::Storage::float32;
  // how halos travel between ranks (lib/parallel/halo_transport.hpp), and why
  parallel::HaloTransport halo_transport = parallel::HaloTransport::staged;
  std::vector<std::string> hosts;  // every rank's host name, in rank order (a run on slabs)
  std::vector<parallel::HaloTransport> halo_candidates{
      parallel::HaloTransport::staged};  // best first; connect_halos takes one
  std::string halo_note;
  bool device_halo = false;           // the halo buffers are device memory (cuda-aware or ipc)
  // run.host_share: this rank runs on the host's cores beside the GPUs of its host (a mixed run),
  // every rank's share of the cells (empty: equal slabs) and how they were chosen
  bool host_rank = false;
  std::vector<double> shares;
  std::string split_note;
  int gpus() const { return static_cast<int>(device_memory.size()); }
  double memory_of(int d) const { return d >= 0 && d < gpus() ? device_memory[d] : 0.0; }
};

// Where a rank's lattice builds its neighbour tables: the GPU's fused form builds its packed
// tables on the device from the mask (cuda/table_builder.hpp); everything else reads them on the host.
inline lattice::LatticeTables lattice_tables(const ExecutionPlan& plan) {
  return plan.cuda && plan.propagation == backend::Propagation::fused ? lattice::LatticeTables::deferred
                                                                      : lattice::LatticeTables::host;
}

// Collective over `comm`. `plane_fluid` (may be empty: no memory check) is the simulated
// volume's fluid count per z plane. Throws InputError (on every rank) when CUDA is asked for
// and none is usable, or when the sample needs more GPU memory than the ranks hold. With
// OneRank::slab one process plans halos too (to itself: decompose's OneRank).
ExecutionPlan plan_execution(const parallel::Comm& comm, const ExecutionSpec& spec,
                             const std::vector<std::uint64_t>& plane_fluid = {}, OneRank one_rank = OneRank::whole);

// Gives `stepper` (a rank's slab, built with plan.device_halo) the first of
// plan.halo_candidates that starts: the NCCL exchanger for nccl, the CUDA IPC one for ipc, both
// split by host for ipc+nccl, none
// for cuda-aware and staged (MPI carries them). Collective. A transport asked for (`asked`) that
// cannot start here (no libnccl.so.2, no IPC in a container) throws on every rank; under auto
// the next candidate is taken and `plan` says so (transport, device_halo, note). Returns false
// when the stepper must be rebuilt with host buffers (staged after all).
// `wrap`: the slabs wrap in z (the last rank's neighbour is the first), for the pairs the
// halo line names on several hosts.
bool connect_halos(ExecutionPlan& plan, parallel::HaloTransportChoice asked, const parallel::Comm& comm,
                   solve::Stepper& stepper, bool wrap = false);

// The GPUs this process can use: 0 where there is none (or rockperm was built without CUDA).
int usable_gpus();

// The copy bandwidth where this plan runs (host memory, or the chosen GPU's memory).
double copy_bandwidth_gbs(const ExecutionPlan& plan);

std::unique_ptr<backend::Backend> make_backend(const ExecutionPlan& plan, const lattice::SparseLattice& lattice,
                                      const physics::CollisionParams& params);

}  // namespace rockperm::pipeline
