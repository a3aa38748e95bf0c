#include "pipeline/execution.hpp"

#include <unistd.h>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "lib/backend/cpu_backend.hpp"
#include "lib/base/error.hpp"
#include "lib/base/system.hpp"
#include "lib/geometry/sphere_pack.hpp"
#include "lib/parallel/device_assignment.hpp"
#include "lib/parallel/plan.hpp"
#include "lib/parallel/work_split.hpp"
#include "lib/solve/stepper.hpp"
#include "io/volume_source.hpp"
#include "rockperm/config.hpp"

#if ROCKPERM_HAVE_CUDA
#include "cuda/cuda_backend.hpp"
#include "cuda/device_info.hpp"
#include "cuda/host_split_exchanger.hpp"
#include "cuda/ipc_exchanger.hpp"
#include "cuda/nccl_exchanger.hpp"
#endif

namespace rockperm::pipeline {

namespace {

// The backend this process can have: no communication.
ExecutionPlan choose_backend(BackendChoice choice) {
  ExecutionPlan plan;
  if (choice == BackendChoice::cpu) {
    plan.note = "CPU backend (asked for)";
    return plan;
  }
#if ROCKPERM_HAVE_CUDA
  const cuda::DeviceList list = cuda::list_devices();
  for (const auto& d : list.devices) {
    plan.device_memory.push_back(static_cast<double>(d.memory_bytes));
    plan.device_names.push_back(d.name + " (" + d.uuid + ")");
  }
  if (!list.devices.empty()) {
    plan.cuda = true;
    plan.note = "chose CUDA device 0 of " + std::to_string(list.devices.size()) + " (" + list.devices[0].name + ")";
    return plan;
  }
  if (choice == BackendChoice::cuda) {
    throw InputError("execution.backend", "CUDA was asked for but no CUDA device is usable (" + list.reason +
                                              "); use the CPU backend or run on a GPU host");
  }
  plan.note = "CPU backend (no CUDA device: " + list.reason + ")";
#else
  if (choice == BackendChoice::cuda) {
    throw InputError("execution.backend", "CUDA was asked for but this rockperm was built without CUDA; rebuild "
                                          "with -DROCKPERM_ENABLE_CUDA=ON or use the CPU backend");
  }
  plan.note = "CPU backend (built without CUDA)";
#endif
  return plan;
}

// The halo transports a run on several ranks may use, best first (lib/parallel/halo_transport.hpp);
// connect_halos takes the first that starts. Collective; every rank decides alike. `device`:
// this rank's GPU.
std::vector<parallel::HaloTransport> transport_candidates(const parallel::Comm& comm, const ExecutionSpec& spec,
                                                          bool cuda, int device, std::string& note,
                                                          std::vector<std::string>& hosts) {
  // rank 0 looks at every rank's host and GPU; its findings go to every rank
  const std::vector<std::string> places = comm.gather(host_name() + "\n" + std::to_string(device));
  std::uint64_t several_hosts = 0, shared_gpu = 0;
  for (const auto& place : places) {
    if (place.substr(0, place.rfind('\n')) != places.front().substr(0, places.front().rfind('\n'))) several_hosts = 1;
    if (std::count(places.begin(), places.end(), place) > 1) shared_gpu = 1;
  }
  hosts = parallel::every_rank(comm, host_name());  // on every rank: the pairs of ipc+nccl
  const parallel::HaloTransportChoice choice = spec.halo_transport;
  if (!cuda) {
    if (choice != parallel::HaloTransportChoice::auto_select && choice != parallel::HaloTransportChoice::staged) {
      throw on_all_ranks(InputError("execution.halo_transport", std::string("run.halo_transport = ") + to_string(choice) +
                                                       " needs the CUDA backend; use auto or staged"));
    }
    note = "host buffers";
    return {parallel::HaloTransport::staged};
  }
  parallel::HaloFacts facts;
  facts.one_host = comm.sum(several_hosts) == 0;  // only rank 0 counted
  facts.shared_gpu = comm.sum(shared_gpu) > 0;
  facts.cuda_aware = comm.cuda_aware() && spec.cuda_aware_mpi;
#if ROCKPERM_HAVE_CUDA
  facts.nccl = cuda::nccl_built();
#endif
  try {
    return halo_transport_candidates(choice, facts, note);
  } catch (const InputError& e) {
    throw on_all_ranks(e);
  }
}

// The fraction of the copy bandwidth a GPU's kernel reaches (docs/PERFORMANCE.md: fused 78 %
// fp32 on a pack, two-pass ~85 %): with the GPU's measured copy bandwidth and the byte model, the
// speed a GPU rank of a mixed run is given its share by. Not a timed warm-up: a probe small enough
// to be quick leaves a GPU idle between launches and would give the host far too much.
double gpu_achieved_fraction(backend::Propagation propagation) {
  return propagation == backend::Propagation::fused ? 0.78 : 0.85;
}

// The host rank's speed in cell updates per second: its own kernel (the run's propagation and
// storage, on its threads) timed over 4 steps, after 2 of warm-up, on a sphere pack whose planes
// hold as many fluid cells as the sample's do on average (`plane_cells`), at least 4 planes and
// about 2 M cells: the distance between a cell and its neighbours in the next plane decides what
// stays in cache, so a probe of small planes runs 2x faster than the run's slab does. About 0.1 s
// in fp32 and 0.5 s in fp16. The CPU does not follow the byte model as a GPU does: in fp16 its
// stochastic rounding makes it compute-bound, 30 M updates/s on the 15 cores of the H100 host
// where the byte model said ten times more (docs/PERFORMANCE.md).
double host_speed(backend::Propagation propagation, physics::Storage storage, double plane_cells) {
  constexpr double porosity = 0.35, probe_cells = 2e6;
  geometry::SpherePackSpec pack;
  const auto side = static_cast<std::int64_t>(std::clamp(std::sqrt(plane_cells / porosity), 32.0, 4096.0));
  const auto planes = static_cast<std::int64_t>(std::clamp(std::ceil(probe_cells / (porosity * side * side)), 4.0, 64.0));
  pack.dims = geometry::Dims{side, side, planes};
  pack.porosity = porosity;
  const lattice::SparseLattice lattice = lattice::SparseLattice::build(
      geometry::make_pore_mask(geometry::make_sphere_pack(pack), geometry::LabelSelection::parse("0")),
      geometry::Periodicity{true, true, true}, propagation == backend::Propagation::fused);
  const physics::CollisionParams params = physics::make_collision_params(physics::CollisionModel::trt, 0.8, 3.0 / 16.0, 0, 1e-6);
  backend::CpuBackend backend(lattice, params, storage);
  solve::Stepper stepper(backend, propagation);
  stepper.advance(0);
  stepper.advance(1);
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t s = 2; s < 6; ++s) stepper.advance(s);
  backend.synchronize();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return 4.0 * static_cast<double>(lattice.fluid_count()) / std::max(seconds, 1e-9);
}

// A run whose ranks are GPUs and, on each host, one rank on its cores (plan.host_rank): halos
// through host memory, one propagation for all (the GPUs'), and every rank's share of the cells
// from its speed, or from memory where the GPUs cannot hold the sample (lib/parallel/work_split.hpp).
ExecutionPlan plan_mixed(const parallel::Comm& comm, const ExecutionSpec& spec,
                         const std::vector<std::uint64_t>& plane_fluid, ExecutionPlan plan) {
  if (spec.halo_transport != parallel::HaloTransportChoice::auto_select &&
      spec.halo_transport != parallel::HaloTransportChoice::staged) {
    throw on_all_ranks(InputError("execution.halo_transport", "a run with a rank on the host's cores (run.host_share) "
                                                              "passes its halos through host memory; use auto or staged"));
  }
  plan.halo_candidates = {parallel::HaloTransport::staged};
  plan.halo_transport = parallel::HaloTransport::staged;
  plan.device_halo = false;
  plan.halo_note = "host buffers (a rank runs on the host's cores)";
  // the ranks on this host: its GPU ranks each keep a core
  const int ranks_here = parallel::ranks_on_host(comm, host_name());
  if (plan.host_rank) {
    const int cores = std::max(1, omp_get_num_procs() - (ranks_here - 1));
    omp_set_num_threads(cores);
    plan.note = "the host's cores beside its GPUs (run.host_share; " + std::to_string(cores) + " threads)";
  }
  if (plane_fluid.empty()) return plan;
  const int n = comm.size();
  const double cells = static_cast<double>(std::accumulate(plane_fluid.begin(), plane_fluid.end(), std::uint64_t{0}));
  const auto split_as = [&](physics::Storage storage) {
    const double index = plan.host_rank ? 4.0 : parallel::gpu_index_bytes(plane_fluid, plan.propagation);
    const backend::ByteModel model{plan.propagation, storage, index};
    std::vector<double> mine(4 * static_cast<std::size_t>(n), 0.0);
    const std::size_t at = 4 * static_cast<std::size_t>(comm.rank());
    mine[at] = plan.host_rank ? 1.0 : 0.0;
    mine[at + 1] = plan.host_rank ? host_speed(plan.propagation, storage, cells / static_cast<double>(plane_fluid.size()))
                                  : copy_bandwidth_gbs(plan) * 1e9 * gpu_achieved_fraction(plan.propagation) /
                                        model.traffic_per_update();
    mine[at + 2] = plan.host_rank ? static_cast<double>(io::available_memory_bytes()) : plan.memory_of(plan.device);
    mine[at + 3] = model.memory_per_cell();
    const std::vector<double> all = comm.sum(mine);
    std::vector<parallel::RankResources> ranks(static_cast<std::size_t>(n));
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      ranks[r] = parallel::RankResources{all[4 * r] > 0.5, all[4 * r + 1], all[4 * r + 2], all[4 * r + 3]};
    }
    return split_work(ranks, cells, spec.host_share);  // the same on every rank: the same inputs
  };
  parallel::WorkSplit split;
  try {
    split = split_as(plan.storage);
  } catch (const CapacityError& e) {
    if (spec.storage != StorageChoice::auto_select) throw on_all_ranks(e);
    try {
      split = split_as(physics::Storage::float16);
      plan.storage = physics::Storage::float16;
      plan.note += "; populations in fp16 (fp32 does not fit the GPUs and the host together)";
    } catch (const CapacityError&) {
      throw on_all_ranks(e);
    }
  } catch (const InputError& e) {
    throw on_all_ranks(e);
  }
  plan.shares = split.shares;
  plan.split_note = split.note;
  return plan;
}

}  // namespace

int usable_gpus() { return choose_backend(BackendChoice::auto_select).gpus(); }

ExecutionPlan plan_execution(const parallel::Comm& comm, const ExecutionSpec& spec,
                             const std::vector<std::uint64_t>& plane_fluid, OneRank one_rank) {
  ExecutionPlan plan;
  const bool halos = comm.size() > 1 || one_rank == OneRank::slab;
  parallel::collectively(comm, [&] { plan = choose_backend(spec.backend); });
  if (spec.gpu_memory_gib > 0) {
    for (double& m : plan.device_memory) m = std::min(m, spec.gpu_memory_gib * 1073741824.0);
  }
  switch (spec.propagation) {
    case PropagationChoice::two_pass: plan.propagation = backend::Propagation::two_pass; break;
    case PropagationChoice::fused: plan.propagation = backend::Propagation::fused; break;
    case PropagationChoice::auto_select:
      // fused on a GPU (the faster kernel there, docs/PERFORMANCE.md), two-pass on the CPU
      // (which vectorizes only that one)
      plan.propagation = plan.cuda ? backend::Propagation::fused : backend::Propagation::two_pass;
  }
  plan.storage = spec.storage == StorageChoice::fp16 ? physics::Storage::float16 : physics::Storage::float32;
  if (plan.cuda && comm.size() > 1) {
    // a rank beyond its host's GPUs may run on the host's cores (run.host_share)
    plan.device = parallel::assign_device(comm, host_name(), plan.gpus(), spec.devices, plan.device_log,
                                spec.host_share.mode != parallel::HostShare::Mode::off);
    if (plan.device < 0) {
      plan.cuda = false;
      plan.host_rank = true;
      plan.device = 0;
    }
  }
  if (comm.max(plan.host_rank ? 1.0 : 0.0) > 0) return plan_mixed(comm, spec, plane_fluid, std::move(plan));
  if (!plan.cuda) {
    if (halos) plan.halo_candidates = transport_candidates(comm, spec, false, 0, plan.halo_note, plan.hosts);
    plan.halo_transport = plan.halo_candidates.front();
    return plan;
  }
  if (comm.size() == 1)
    plan.device = parallel::assign_device(comm, host_name(), plan.gpus(), spec.devices, plan.device_log);
  if (halos) {
    plan.halo_candidates = transport_candidates(comm, spec, true, plan.device, plan.halo_note, plan.hosts);
    plan.halo_transport = plan.halo_candidates.front();
    plan.device_halo = plan.halo_transport != parallel::HaloTransport::staged;
  }
  if (plane_fluid.empty()) return plan;
  const double capacity = plan.memory_of(plan.device);
  const auto fits_as = [&](physics::Storage storage) {
    const std::vector<parallel::RankMemory> memory = parallel::plan_memory(
        plane_fluid, comm.size(), plan.propagation, storage, parallel::gpu_index_bytes(plane_fluid, plan.propagation));
    return comm.sum(std::uint64_t{memory[comm.rank()].bytes <= 0.95 * capacity ? 0u : 1u}) == 0;
  };
  bool fits = fits_as(plan.storage);
  if (!fits && spec.storage == StorageChoice::auto_select && fits_as(physics::Storage::float16)) {
    plan.storage = physics::Storage::float16;  // half the population bytes: the sample fits these GPUs
    plan.note += "; populations in fp16 (fp32 does not fit " + std::to_string(comm.size()) + " GPU(s))";
    fits = true;
  }
  if (!fits) {
    const int needed = parallel::ranks_needed(plane_fluid, capacity, plan.propagation, plan.storage,
                                              parallel::gpu_index_bytes(plane_fluid, plan.propagation));
    throw on_all_ranks(CapacityError(
        "the sample needs more GPU memory than " + std::to_string(comm.size()) + " rank(s) of " +
        size_text(capacity) + " hold; run it on " +
        (needed > 0 ? "at least " + std::to_string(needed) + " ranks (one per GPU)" : "more ranks or crop it") +
        ", or with one rank more than the GPUs, which holds the rest on the host's cores (run.host_share = auto; "
        "slower: rockperm plan says how much the host holds)"));
  }
  return plan;
}

double copy_bandwidth_gbs(const ExecutionPlan& plan) {
#if ROCKPERM_HAVE_CUDA
  if (plan.cuda) return cuda::copy_bandwidth_gbs(plan.device);
#endif
  (void)plan;
  return backend::cpu_copy_bandwidth_gbs();
}

bool connect_halos(ExecutionPlan& plan, parallel::HaloTransportChoice asked, const parallel::Comm& comm,
                   solve::Stepper& stepper, bool wrap) {
  std::string passed_over;  // why better transports were not taken (auto)
  // the plan says what runs: the transport, its buffers, and (when auto passed some over) why
  const auto take = [&](parallel::HaloTransport t) {
    plan.halo_candidates = {t};  // chosen: a second call keeps it
    if (t == plan.halo_transport) return;
    plan.halo_transport = t;
    plan.device_halo = t != parallel::HaloTransport::staged;
    plan.halo_note = std::string(describe(t)) + " (auto; " + passed_over + ")";
  };
  // on several hosts the run's halo line names each pair's transport
  const auto name_pairs = [&] {
    if (plan.hosts.empty() || std::all_of(plan.hosts.begin(), plan.hosts.end(), [&](const std::string& h) {
          return h == plan.hosts.front();
        })) {
      return;
    }
    if (plan.halo_note.find("; pairs ") == std::string::npos)
      plan.halo_note += "; pairs " + parallel::describe_pairs(plan.halo_transport, plan.hosts, wrap);
  };
  for (const parallel::HaloTransport t : plan.halo_candidates) {
    if (t == parallel::HaloTransport::staged || t == parallel::HaloTransport::cuda_aware) {  // MPI moves the buffers
      const bool rebuild = t == parallel::HaloTransport::staged && plan.device_halo;
      take(t);
      name_pairs();
      return !rebuild;
    }
    const std::string name = t == parallel::HaloTransport::ipc    ? "CUDA IPC"
                             : t == parallel::HaloTransport::nccl ? "NCCL"
                                                                  : "CUDA IPC with NCCL";
    std::string why = "this rockperm was built without CUDA";
#if ROCKPERM_HAVE_CUDA
    why.clear();
    auto exchanger = t == parallel::HaloTransport::ipc    ? cuda::make_ipc_exchanger(comm, stepper.receive_endpoints(), why)
                     : t == parallel::HaloTransport::nccl ? cuda::make_nccl_exchanger(comm, why)
                                                          : cuda::make_host_split_exchanger(
                                                                comm, stepper.receive_endpoints(), plan.hosts, why);
    if (exchanger) {
      stepper.set_exchanger(std::move(exchanger));
      take(t);
      name_pairs();
      return true;
    }
#else
    (void)comm, (void)stepper;
#endif
    if (asked != parallel::HaloTransportChoice::auto_select) {
      throw on_all_ranks(InputError("execution.halo_transport", std::string("run.halo_transport = ") + to_string(t) +
                                                                    ", but " + name + " is not available here (" +
                                                                    why + "); use auto or staged"));
    }
    passed_over += (passed_over.empty() ? "" : "; ") + name + " not available: " + why;
  }
  throw Error("internal: no halo transport to fall back to");
}

std::unique_ptr<backend::Backend> make_backend(const ExecutionPlan& plan, const lattice::SparseLattice& lattice,
                                      const physics::CollisionParams& params) {
#if ROCKPERM_HAVE_CUDA
  if (plan.cuda) return std::make_unique<cuda::CudaBackend>(lattice, params, plan.device, plan.storage);
#endif
  return std::make_unique<backend::CpuBackend>(lattice, params, plan.storage);
}

}  // namespace rockperm::pipeline
