#include "cuda/conduction_engine.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
#include <sstream>
#include <vector>

#include "cuda/conduction_kernels.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_info.hpp"
#include "lib/base/error.hpp"
#include "lib/solve/conduction_system.hpp"

namespace rockperm::cuda {

namespace {

using solve::ConductionMultigrid;
using solve::ConductionOperator;
using solve::ConductionReadingSlabs;

template <class T>
DeviceBuffer<T> uploaded(const T* host, std::size_t count) {
  DeviceBuffer<T> d(count);
  d.upload(host, count);
  return d;
}
template <class Array>
auto uploaded(const Array& host) {
  return uploaded(host.data(), host.size());
}

std::uint32_t narrow(std::uint64_t v) {
  if (v > std::numeric_limits<std::uint32_t>::max()) throw RuntimeFailure("internal: conduction on the GPU: an index past 32 bits");
  return static_cast<std::uint32_t>(v);
}

// A multigrid level in device memory, and its two work vectors and right-hand side.
struct DeviceLevel {
  DeviceBuffer<std::uint32_t> col, parent, first_child, children;
  DeviceBuffer<float> val;
  DeviceBuffer<double> diagonal, inverse, rhs, x, work;
  ConductionLevelView view{};
};

class GpuEngine final : public solve::ConductionEngine {
 public:
  // on the current device (the factory sets it before, so that the stream is made there)
  GpuEngine(const ConductionOperator& op, const ConductionMultigrid* multigrid,
            const ConductionReadingSlabs& reading, std::string name)
      : op_(op), reading_(reading), name_(std::move(name)) {
    const std::uint64_t owned = op.owned(), cells = op.cells();
    const auto links = static_cast<std::uint64_t>(op.links());
    // the operator as the host built it; the links' conductances made here from the cells'
    neighbour_ = link_major(op.neighbour_data(), owned, op.links());
    diagonal_ = uploaded(op.diagonal_data(), owned);
    inverse_ = uploaded(op.inverse_data(), owned);
    conductance_ = DeviceBuffer<double>(owned * links);
    {
      const DeviceBuffer<double> sigma = uploaded(op.sigma_data(), cells);
      // the uploads (cudaMemcpy from pageable memory on the legacy stream) may still be in flight
      // when they return, and stream_ does not wait for that stream: wait here
      ROCKPERM_CUDA_CHECK(cudaDeviceSynchronize());
      launch_conduction_conductances(owned, op.begin(), op.links(), neighbour_.data(), sigma.data(), conductance_.data(),
                                     stream_.get());
      stream_.synchronize();
    }
    if (reading.kind == ConductionReadingSlabs::Kind::sample) {
      std::vector<std::int32_t> t(owned);
#pragma omp parallel for schedule(static)
      for (std::uint64_t i = 0; i < owned; ++i) {
        t[i] = static_cast<std::int32_t>(op.coordinate(op.begin() + static_cast<std::uint32_t>(i), reading.axis));
      }
      coordinate_ = uploaded(t);
    }
    std::vector<std::uint64_t> first, end;
    for (const solve::ConductionPlane& p : op.planes()) {
      first.push_back(p.first - op.begin());
      end.push_back(p.end - op.begin());
      plane_z_.push_back(p.z);
    }
    plane_first_ = uploaded(first);
    plane_end_ = uploaded(end);
    view_ = {owned, op.begin(), op.links(), neighbour_.data(), conductance_.data(), diagonal_.data(), inverse_.data(),
             coordinate_.data(), plane_first_.data(), plane_end_.data(), narrow(first.size())};
    x_ = DeviceBuffer<double>(cells);
    p_ = DeviceBuffer<double>(cells);
    r_ = DeviceBuffer<double>(owned);
    z_ = DeviceBuffer<double>(owned);
    q_ = DeviceBuffer<double>(owned);
    out_ = DeviceBuffer<double>(std::max<std::size_t>(1, first.size()) * 4);
    out_host_.resize(out_.size());
    if (multigrid) upload_levels(*multigrid);
    // the planes that travel: host copies of each
    const auto& o = op.local_plane_offsets();
    for (std::int64_t z : op.sent_planes()) ghost_.push_back({z, o[static_cast<std::size_t>(z)], o[static_cast<std::size_t>(z) + 1], true, {}});
    for (std::int64_t z : op.received_planes()) ghost_.push_back({z, o[static_cast<std::size_t>(z)], o[static_cast<std::size_t>(z) + 1], false, {}});
    for (Ghost& g : ghost_) g.host.resize(g.end - g.first);
    ROCKPERM_CUDA_CHECK(cudaDeviceSynchronize());  // every upload landed before stream_'s first kernel
  }

  void start(std::vector<double>& planes, const double* rhs) override {
    ROCKPERM_CUDA_CHECK(cudaMemsetAsync(x_.data(), 0, x_.bytes(), stream_.get()));
    ROCKPERM_CUDA_CHECK(cudaMemsetAsync(p_.data(), 0, p_.bytes(), stream_.get()));
    if (rhs) {
      if (view_.owned > 0) {
        ROCKPERM_CUDA_CHECK(cudaMemcpyAsync(r_.data(), rhs, view_.owned * sizeof(double), cudaMemcpyHostToDevice, stream_.get()));
      }
      stream_.synchronize();  // rhs is the caller's, pageable
    } else {
      launch_conduction_drive(view_, reading_.axis, r_.data(), stream_.get());
    }
    precondition();
    if (view_.owned > 0) {
      ROCKPERM_CUDA_CHECK(cudaMemcpyAsync(p_.data() + view_.begin, z_.data(), z_.bytes(), cudaMemcpyDeviceToDevice, stream_.get()));
    }
    launch_conduction_dot(view_, r_.data(), z_.data(), out_.data(), stream_.get());
    collect<1>(planes);
  }

  void apply(std::vector<double>& planes) override {
    exchange(p_);
    launch_conduction_apply(view_, p_.data(), q_.data(), out_.data(), stream_.get());
    collect<1>(planes);
  }

  void advance(double alpha, std::vector<double>& planes) override {
    launch_conduction_advance(view_, alpha, x_.data(), p_.data(), r_.data(), q_.data(), stream_.get());
    precondition();
    launch_conduction_dot(view_, r_.data(), z_.data(), out_.data(), stream_.get());
    collect<1>(planes);
  }

  void direct(double beta) override { launch_conduction_direct(view_, beta, z_.data(), p_.data(), stream_.get()); }

  void read(std::vector<double>& planes) override {
    exchange(x_);
    launch_conduction_read(view_, reading_, x_.data(), out_.data(), stream_.get());
    collect<3>(planes);
  }

  std::vector<double> solution() override {
    std::vector<double> x(view_.owned);
    if (!x.empty()) {
      ROCKPERM_CUDA_CHECK(cudaMemcpyAsync(x.data(), x_.data() + view_.begin, x.size() * sizeof(double), cudaMemcpyDeviceToHost,
                                          stream_.get()));
    }
    stream_.synchronize();
    return x;
  }

  std::string where() const override { return name_; }

 private:
  struct Ghost {
    std::int64_t z;
    std::uint64_t first, end;  // local cells
    bool sent;
    std::vector<double> host;
  };

  // The per-plane sums of the last kernel, K each, into the whole lattice's planes.
  template <int K>
  void collect(std::vector<double>& planes) {
    const std::size_t n = plane_z_.size() * K;
    if (n > 0) {
      ROCKPERM_CUDA_CHECK(cudaMemcpyAsync(out_host_.data(), out_.data(), n * sizeof(double), cudaMemcpyDeviceToHost, stream_.get()));
    }
    stream_.synchronize();
    planes.assign(static_cast<std::size_t>(op_.planes_z()) * K, 0.0);
    for (std::size_t p = 0; p < plane_z_.size(); ++p) {
      for (int k = 0; k < K; ++k) planes[static_cast<std::size_t>(plane_z_[p]) * K + k] = out_host_[p * K + k];
    }
  }

  // v's ghost planes from the neighbouring ranks, through the host
  void exchange(DeviceBuffer<double>& v) {
    if (ghost_.empty()) return;
    for (Ghost& g : ghost_) {
      if (g.sent && !g.host.empty()) {
        ROCKPERM_CUDA_CHECK(cudaMemcpyAsync(g.host.data(), v.data() + g.first, g.host.size() * sizeof(double),
                                            cudaMemcpyDeviceToHost, stream_.get()));
      }
    }
    stream_.synchronize();
    op_.exchange([&](std::int64_t z) -> double* {
      for (Ghost& g : ghost_)
        if (g.z == z) return g.host.data();
      throw RuntimeFailure("internal: conduction on the GPU: plane " + std::to_string(z) + " has no host copy");
    });
    for (Ghost& g : ghost_) {
      if (!g.sent && !g.host.empty()) {
        ROCKPERM_CUDA_CHECK(cudaMemcpyAsync(v.data() + g.first, g.host.data(), g.host.size() * sizeof(double),
                                            cudaMemcpyHostToDevice, stream_.get()));
      }
    }
    stream_.synchronize();  // the host copies are reused at the next exchange
  }

  // The host's per-cell slots [i * links + l] of n cells, on the device link-major [l * n + i]
  // (the kernels' layout): uploaded as they are and transposed there (on the host's cores it took
  // 0.7 s of tight512's set-up)
  template <class T>
  DeviceBuffer<T> link_major(const T* host, std::uint64_t n, int links) {
    DeviceBuffer<T> by_link(n * static_cast<std::uint64_t>(links));
    {
      const DeviceBuffer<T> by_cell = uploaded(host, by_link.size());
      ROCKPERM_CUDA_CHECK(cudaDeviceSynchronize());  // the upload landed before stream_'s kernel
      launch_link_major(by_cell.data(), by_link.data(), n, links, stream_.get());
      stream_.synchronize();  // before by_cell is freed
    }
    return by_link;
  }

  void upload_levels(const ConductionMultigrid& mg) {
    multigrid_ = &mg;
    const auto& levels = mg.levels();
    levels_.resize(levels.size());
    for (std::size_t l = 0; l < levels.size(); ++l) {
      const ConductionMultigrid::Level& h = levels[l];
      DeviceLevel& d = levels_[l];
      const std::uint64_t n = h.n;
      d.col = link_major(h.col.data(), n, h.links);
      d.val = link_major(h.val.data(), n, h.links);
      if (l > 0) {  // the first level's equal the operator's
        d.diagonal = uploaded(h.diagonal);
        d.inverse = uploaded(h.inverse);
      }
      if (h.parent.size() != 0) d.parent = uploaded(h.parent);
      if (h.first_child.size() != 0) {
        std::vector<std::uint32_t> first(h.first_child.size());
        for (std::size_t a = 0; a < first.size(); ++a) first[a] = narrow(h.first_child[a]);
        d.first_child = uploaded(first);
        d.children = uploaded(h.children);
      }
      if (l > 0) d.rhs = DeviceBuffer<double>(n);
      d.x = DeviceBuffer<double>(n);
      d.work = DeviceBuffer<double>(n);
      d.view = {n, h.links, d.col.data(), d.val.data(), l > 0 ? d.diagonal.data() : diagonal_.data(),
                l > 0 ? d.inverse.data() : inverse_.data(), d.parent.data(), d.first_child.data(), d.children.data()};
    }
    x_level_.resize(levels_.size());
    work_level_.resize(levels_.size());
    rhs_level_.resize(levels_.size());
    for (std::size_t l = 0; l < levels_.size(); ++l) {
      x_level_[l] = levels_[l].x.data();
      work_level_[l] = levels_[l].work.data();
      rhs_level_[l] = l == 0 ? r_.data() : levels_[l].rhs.data();
    }
  }

  void precondition() {  // z = M^-1 r
    if (levels_.empty()) {
      launch_conduction_jacobi(view_, r_.data(), z_.data(), stream_.get());
      return;
    }
    // the cycle's kernels (hundreds, most on small coarse levels) recorded once as a graph and
    // replayed: the same kernels on the same vectors in the same order (each pass of a level
    // leaves its vectors where they began), without a launch's latency each
    if (!cycle_graph_) {
      cudaGraph_t graph = nullptr;
      ROCKPERM_CUDA_CHECK(cudaStreamBeginCapture(stream_.get(), cudaStreamCaptureModeThreadLocal));
      try {
        record_cycle();
      } catch (...) {  // the stream out of capture before the error goes on
        if (cudaStreamEndCapture(stream_.get(), &graph) == cudaSuccess && graph) cudaGraphDestroy(graph);
        throw;
      }
      ROCKPERM_CUDA_CHECK(cudaStreamEndCapture(stream_.get(), &graph));
      cudaGraphExec_t exec = nullptr;
      const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
      ROCKPERM_CUDA_CHECK(cudaGraphDestroy(graph));
      ROCKPERM_CUDA_CHECK(made);
      cycle_graph_.reset(exec);
    }
    ROCKPERM_CUDA_CHECK(cudaGraphLaunch(cycle_graph_.get(), stream_.get()));
  }

  void record_cycle() {
    const ConductionLevelView& top = levels_[0].view;
    if (top.n > 0) ROCKPERM_CUDA_CHECK(cudaMemsetAsync(x_level_[0], 0, top.n * sizeof(double), stream_.get()));
    cycle(0);
    if (view_.owned > 0) {
      ROCKPERM_CUDA_CHECK(cudaMemcpyAsync(z_.data(), x_level_[0], view_.owned * sizeof(double), cudaMemcpyDeviceToDevice,
                                          stream_.get()));
    }
  }

  // ConductionMultigrid::smooth, cycle: the same operations, kernel by kernel
  void smooth(std::size_t l, int count) {
    const ConductionLevelView& L = levels_[l].view;
    for (int s = 0; s < count; ++s) {
      launch_multigrid_smooth(L, ConductionMultigrid::omega, rhs_level_[l], x_level_[l], work_level_[l], stream_.get());
      std::swap(x_level_[l], work_level_[l]);
    }
  }

  void cycle(std::size_t l) {
    const ConductionLevelView& L = levels_[l].view;
    if (l + 1 == levels_.size()) {
      smooth(l, ConductionMultigrid::coarsest_sweeps);
      return;
    }
    smooth(l, ConductionMultigrid::sweeps);
    const ConductionLevelView& C = levels_[l + 1].view;
    launch_multigrid_residual(L, rhs_level_[l], x_level_[l], work_level_[l], stream_.get());
    launch_multigrid_restrict(C, work_level_[l], rhs_level_[l + 1], stream_.get());
    if (C.n > 0) ROCKPERM_CUDA_CHECK(cudaMemsetAsync(x_level_[l + 1], 0, C.n * sizeof(double), stream_.get()));
    for (int c = 0; c < multigrid_->coarse_cycles(l); ++c) cycle(l + 1);
    launch_multigrid_prolong(L, ConductionMultigrid::scale, x_level_[l + 1], x_level_[l], stream_.get());
    smooth(l, ConductionMultigrid::sweeps);
  }

  const ConductionOperator& op_;
  ConductionReadingSlabs reading_;
  std::string name_;
  Stream stream_;
  DeviceBuffer<std::uint32_t> neighbour_;
  DeviceBuffer<double> conductance_, diagonal_, inverse_;
  DeviceBuffer<std::int32_t> coordinate_;
  DeviceBuffer<std::uint64_t> plane_first_, plane_end_;
  std::vector<std::int64_t> plane_z_;
  ConductionOperatorView view_{};
  DeviceBuffer<double> x_, p_, r_, z_, q_, out_;
  std::vector<double> out_host_;
  std::vector<DeviceLevel> levels_;
  std::vector<double*> x_level_, work_level_, rhs_level_;
  std::vector<Ghost> ghost_;
  const ConductionMultigrid* multigrid_ = nullptr;
  struct GraphExecDelete {
    void operator()(cudaGraphExec_t g) const { cudaGraphExecDestroy(g); }
  };
  std::unique_ptr<std::remove_pointer_t<cudaGraphExec_t>, GraphExecDelete> cycle_graph_;
};

}  // namespace

double conduction_engine_bytes(std::uint64_t owned, std::uint64_t cells, bool multigrid, int links) {
  // per owned cell: links (4 + 8) x links, diagonal, inverse, coordinate, r, z, q; the multigrid's
  // first level (links (4 + 4) x links, parent, two vectors, children) and its coarser levels, at
  // most about half again; x and p over every local cell, and the cells' conductivities while
  // the links' are made
  // (and, while each links array is made link-major, one more of 4 bytes a link)
  const double per_owned = 12.0 * links + 8 + 8 + 4 + 24 + (multigrid ? 1.5 * (8.0 * links + 4 + 16 + 4) : 0.0) + 4.0 * links;
  return static_cast<double>(owned) * per_owned + static_cast<double>(cells) * 24.0;
}

solve::ConductionEngineFactory conduction_engine_on(int device, std::string* note) {
  return [device, note](const ConductionOperator& op, const ConductionMultigrid* multigrid,
                        const ConductionReadingSlabs& reading) -> std::unique_ptr<solve::ConductionEngine> {
    const DeviceList list = list_devices();
    if (device < 0 || device >= static_cast<int>(list.devices.size())) {
      if (note) *note = "no CUDA device " + std::to_string(device) + (list.reason.empty() ? "" : ": " + list.reason);
      return nullptr;
    }
    ROCKPERM_CUDA_CHECK(cudaSetDevice(device));
    std::size_t free = 0, total = 0;
    ROCKPERM_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    const double needed = conduction_engine_bytes(op.owned(), op.cells(), multigrid != nullptr, op.links());
    if (needed > 0.9 * static_cast<double>(free)) {
      if (note) {
        std::ostringstream o;
        o.precision(3);
        o << "the GPU had " << static_cast<double>(free) / (1ull << 30) << " GiB free beside the flow's state, the solve needs "
          << needed / (1ull << 30) << " GiB: it ran on the host's cores";
        *note = o.str();
      }
      return nullptr;
    }
    return std::make_unique<GpuEngine>(op, multigrid, reading, list.devices[static_cast<std::size_t>(device)].name);
  };
}

}  // namespace rockperm::cuda
