#include "lib/backend/cpu_backend.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <tuple>

#include "lib/base/error.hpp"
#include "lib/lattice/propagation.hpp"

namespace rockperm::backend {

CpuBackend::CpuBackend(const lattice::SparseLattice& lattice, const physics::CollisionParams& params,
                       physics::Storage storage)
    : lattice_(lattice),
      params_(params),
      storage_(storage),
      owned_{lattice.owned_begin(), lattice.owned_end()},
      all_{0, lattice.fluid_count()},
      f_(d3q19::q * lattice.stride() * storage_bytes(storage), std::byte{0}) {
  std::tie(positive_, negative_) = lattice.tables(own_tables_);
  params_.phases = phases();
  const std::uint32_t n = lattice.fluid_count();
  each_storage([&](auto slot) {
    using S = decltype(slot);
    S* f = slots<S>();
    for (int i = 0; i < d3q19::q; ++i) {
      const S rest = physics::StorageTraits<S>::store(physics::rest_population(i, params));
      std::fill(f + i * lattice.stride(), f + i * lattice.stride() + n, rest);
    }
  });
}

std::string CpuBackend::description() const {
  return "cpu (OpenMP, " + std::to_string(omp_get_max_threads()) + " threads, " + to_string(storage_) + ")";
}

double CpuBackend::bytes_per_cell() const {
  const ByteModel model{lattice_.has_negative() ? Propagation::fused : Propagation::two_pass, storage_};
  return model.memory_per_cell() * lattice_.padding();
}

namespace {

// The cell loops that convert populations, in two builds: for the generic x86-64 the binary
// targets, and once more for processors with AVX2 (8 floats a vector instead of 4), chosen at
// run time. The same per-cell code and the same operations in the same order (no FMA: the clone
// does not enable it), so the same bits either way (unit test CpuBackend.WideVectorsGiveTheSameBits).
#define ROCKPERM_CELL_LOOPS(SUFFIX, ATTRIBUTES)                                                              \
  template <class S>                                                                                      \
  ATTRIBUTES void collide_loop##SUFFIX(S* f, std::uint64_t stride, std::int64_t first, std::int64_t n,     \
                                       const physics::CollisionParams& p) {                               \
    _Pragma("omp parallel for simd schedule(simd : static)")                                              \
    for (std::int64_t c = first; c < n; ++c)                                                             \
      lattice::propagation::collide_cell<S, lattice::propagation::WideIndex>(f, stride, c, p);            \
  }                                                                                                       \
  template <class S>                                                                                      \
  ATTRIBUTES void fused_odd_loop##SUFFIX(S* f, std::uint64_t stride, const lattice::IndexTables& tables,  \
                                         std::int64_t first, std::int64_t n,                              \
                                         const physics::CollisionParams& p) {                             \
    _Pragma("omp parallel for schedule(static)")                                                          \
    for (std::int64_t c = first; c < n; ++c)                                                             \
      lattice::propagation::fused_odd_cell<S, lattice::propagation::WideIndex>(f, stride, tables, c, p);  \
  }

// Lattices with grey cells: every cell takes the grey collision with its phase's drag. Not
// `omp simd`: vectorized, the cells a rank's range left to the scalar remainder came out in
// other bits than in the vector body, and k on two ranks differed from one rank's in the 15th digit.
template <class S>
void collide_loop_grey(S* f, std::uint64_t stride, std::int64_t first, std::int64_t n, const physics::CollisionParams& p) {
#pragma omp parallel for schedule(static)
  for (std::int64_t c = first; c < n; ++c)
    lattice::propagation::collide_cell_by_phase<S, lattice::propagation::WideIndex>(f, stride, c, p);
}
template <class S>
void fused_odd_loop_grey(S* f, std::uint64_t stride, const lattice::IndexTables& tables, std::int64_t first,
                         std::int64_t n, const physics::CollisionParams& p) {
#pragma omp parallel for schedule(static)
  for (std::int64_t c = first; c < n; ++c) {
    lattice::propagation::fused_odd_cell_by_phase<S, lattice::propagation::WideIndex>(f, stride, tables, c, p);
  }
}

ROCKPERM_CELL_LOOPS(, )
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__AVX2__)
#define ROCKPERM_AVX2_CLONE 1
ROCKPERM_CELL_LOOPS(_avx2, __attribute__((target("avx2"))))
#endif
#undef ROCKPERM_CELL_LOOPS

bool wide_vectors_allowed = true;

bool wide_vectors() {
#if ROCKPERM_AVX2_CLONE
  static const bool present = __builtin_cpu_supports("avx2");
  return present && wide_vectors_allowed;
#else
  return false;
#endif
}

}  // namespace

void cpu_wide_vectors(bool allowed) { wide_vectors_allowed = allowed; }

void CpuBackend::collide(CellRange cells) {
  const std::int64_t first = cells.begin, n = cells.end;
  const auto stride = lattice_.stride();
  const physics::CollisionParams p = params_;
  each_storage([&](auto slot) {
    using S = decltype(slot);
    if (p.phases) return collide_loop_grey(slots<S>(), stride, first, n, p);
#if ROCKPERM_AVX2_CLONE
    if (wide_vectors()) return collide_loop_avx2(slots<S>(), stride, first, n, p);
#endif
    collide_loop(slots<S>(), stride, first, n, p);
  });
}

void CpuBackend::swap(CellRange cells) {
  const std::int64_t first = cells.begin, n = cells.end;
  const auto stride = lattice_.stride();
  const lattice::IndexTables nbr{{positive_}, {nullptr}};
  each_storage([&](auto slot) {
    using S = decltype(slot);
    S* f = slots<S>();
#pragma omp parallel for schedule(static)
    for (std::int64_t c = first; c < n; ++c)
      lattice::propagation::swap_cell<S, lattice::propagation::WideIndex>(f, stride, nbr, c);
  });
}

void CpuBackend::fused_odd(CellRange cells) {
  if (!lattice_.has_negative()) {
    throw Error("internal: the fused propagation needs the lattice built with negative neighbours");
  }
  const std::int64_t first = cells.begin, n = cells.end;
  const auto stride = lattice_.stride();
  const lattice::IndexTables tables{{positive_}, {negative_}};
  const physics::CollisionParams p = params_;
  each_storage([&](auto slot) {
    using S = decltype(slot);
    if (p.phases) return fused_odd_loop_grey(slots<S>(), stride, tables, first, n, p);
#if ROCKPERM_AVX2_CLONE
    if (wide_vectors()) return fused_odd_loop_avx2(slots<S>(), stride, tables, first, n, p);
#endif
    fused_odd_loop(slots<S>(), stride, tables, first, n, p);
  });
}

physics::FlowSums CpuBackend::sums(CellRange cells) {
  const std::uint32_t first = cells.begin, n = cells.end;
  const std::int64_t blocks = (cells.size() + physics::reduction_block - 1) / physics::reduction_block;
  std::vector<physics::FlowSums> partial(blocks);
  const auto stride = lattice_.stride();
  each_storage([&](auto slot) {
    using S = decltype(slot);
    const S* f = slots<S>();
#pragma omp parallel for schedule(static)
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::uint32_t begin = first + b * physics::reduction_block;
      const std::uint32_t end = std::min<std::uint64_t>(n, begin + std::uint64_t{physics::reduction_block});
      physics::FlowSums s;
      for (std::uint32_t c = begin; c < end; ++c) s.add(physics::cell_sums(f, stride, c, params_));
      partial[b] = s;
    }
  });
  physics::FlowSums total;
  for (const auto& s : partial) total.add(s);
  return total;
}

void CpuBackend::macroscopic(CellRange cells, Macroscopic& out) {
  out.resize(cells.size());
  const auto stride = lattice_.stride();
  const std::int64_t first = cells.begin, n = cells.size();
  each_storage([&](auto slot) {
    using S = decltype(slot);
    const S* f = slots<S>();
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < n; ++k) {
      float v[d3q19::q];
      for (int i = 0; i < d3q19::q; ++i) v[i] = physics::StorageTraits<S>::load(f[i * stride + first + k]);
      const physics::Moments m = physics::moments(v, params_, params_.drag[physics::cell_phase(params_, first + k)]);
      out.drho[k] = m.drho;
      out.ux[k] = m.u[0];
      out.uy[k] = m.u[1];
      out.uz[k] = m.u[2];
    }
  });
}

void CpuBackend::set_planes(int axis, Uninitialized<std::uint16_t> plane_of_owned, std::uint32_t planes) {
  if (plane_of_owned.size() != owned_.size()) throw Error("internal: set_planes with the wrong number of cells");
  plane_axis_ = axis;
  planes_ = planes;
  plane_of_ = std::move(plane_of_owned);
}

void CpuBackend::plane_sums(PlaneSums& out) {
  out.drho.assign(planes_, 0);
  out.flux.assign(planes_, 0);
  out.weighted.assign(planes_, 0);
  const auto stride = lattice_.stride();
  const std::int64_t first = owned_.begin, n = owned_.size();
  each_storage([&](auto slot) {
    using S = decltype(slot);
    const S* f = slots<S>();
#pragma omp parallel
    {
      std::vector<std::int64_t> drho(planes_, 0), flux(planes_, 0), weighted(planes_, 0);
#pragma omp for schedule(static) nowait
      for (std::int64_t k = 0; k < n; ++k) {
        const auto cell = static_cast<std::uint32_t>(first + k);
        const physics::PlaneValues v = physics::cell_plane_values(f, stride, cell, plane_axis_, params_);
        drho[plane_of_[k]] += v.drho;
        flux[plane_of_[k]] += v.flux;
        weighted[plane_of_[k]] += v.weighted;
      }
#pragma omp critical
      for (std::uint32_t p = 0; p < planes_; ++p) {  // integer sums: the order does not matter
        out.drho[p] += drho[p];
        out.flux[p] += flux[p];
        out.weighted[p] += weighted[p];
      }
    }
  });
}

void CpuBackend::rescale(float factor, const physics::CollisionParams& params) {
  params_ = params;
  params_.phases = phases();
  if (factor == 1.0f) return;
  each_storage([&](auto slot) {
    using S = decltype(slot);
    S* f = slots<S>();
    const std::int64_t n = static_cast<std::int64_t>(f_.size() / sizeof(S));
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < n; ++k)
      f[k] = physics::StorageTraits<S>::store(factor * physics::StorageTraits<S>::load(f[k]));
  });
  for (float& v : held_) v *= factor;
}

bool CpuBackend::hold_density(bool keep_change) {
  const std::int64_t n = owned_.size();
  if (held_.size() != 2 * static_cast<std::size_t>(n)) held_.assign(2 * static_cast<std::size_t>(n), 0.0f);
  const auto stride = lattice_.stride();
  const std::uint32_t first = owned_.begin;
  each_storage([&](auto slot) {
    using S = decltype(slot);
    const S* f = slots<S>();
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < n; ++k) {
      physics::hold_cell(physics::cell_density(f, stride, first + static_cast<std::uint32_t>(k)), held_[2 * k],
                         held_[2 * k + 1], keep_change);
    }
  });
  return true;
}

float CpuBackend::density_change_peak() {
  const auto n = static_cast<std::int64_t>(held_.size() / 2);
  const auto stride = lattice_.stride();
  const std::uint32_t first = owned_.begin;
  float peak = 0.0f;
  each_storage([&](auto slot) {
    using S = decltype(slot);
    const S* f = slots<S>();
#pragma omp parallel for schedule(static) reduction(max : peak)
    for (std::int64_t k = 0; k < n; ++k) {
      const float rho = physics::cell_density(f, stride, first + static_cast<std::uint32_t>(k));
      peak = std::max(peak, physics::cell_change_peak(rho, held_[2 * k], held_[2 * k + 1]));
    }
  });
  return peak;
}

physics::DensityProducts CpuBackend::density_products(float scale) {
  const auto n = static_cast<std::int64_t>(held_.size() / 2);
  const auto stride = lattice_.stride();
  const std::uint32_t first = owned_.begin;
  long long d11 = 0, d21 = 0, d22 = 0;  // integer sums: the same in any order
  each_storage([&](auto slot) {
    using S = decltype(slot);
    const S* f = slots<S>();
#pragma omp parallel for schedule(static) reduction(+ : d11, d21, d22)
    for (std::int64_t k = 0; k < n; ++k) {
      const float d = physics::cell_density(f, stride, first + static_cast<std::uint32_t>(k)) - held_[2 * k];
      const physics::DensityProducts p = physics::cell_products(held_[2 * k + 1], d, scale);
      d11 += p.d11;
      d21 += p.d21;
      d22 += p.d22;
    }
  });
  return physics::DensityProducts{d11, d21, d22};
}

void CpuBackend::extrapolate_density(float factor) { extrapolate_density_at(factor, nullptr); }

void CpuBackend::extrapolate_density_at_rest(float factor, const std::array<float, 3>& g) {
  extrapolate_density_at(factor, &g);
}

// The jump over the owned cells; `g`: the rest state's acceleration the density is added with (none:
// the equilibrium's density part alone, as the pressure extrapolation's jumps)
void CpuBackend::extrapolate_density_at(float factor, const std::array<float, 3>* g) {
  const auto n = static_cast<std::int64_t>(held_.size() / 2);
  const auto stride = lattice_.stride();
  const std::uint32_t first = owned_.begin;
  each_storage([&](auto slot) {
    using S = decltype(slot);
    S* f = slots<S>();
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < n; ++k) {
      const std::uint32_t cell = first + static_cast<std::uint32_t>(k);
      if (g) {
        physics::extrapolate_cell_at_rest(f, stride, cell, held_[2 * k], held_[2 * k + 1], factor, (*g)[0], (*g)[1], (*g)[2]);
      } else {
        physics::extrapolate_cell(f, stride, cell, held_[2 * k], held_[2 * k + 1], factor);
      }
    }
  });
}

void CpuBackend::held_densities(std::vector<float>& out) { out = held_; }

void CpuBackend::restore_held_densities(const std::vector<float>& in) {
  if (!in.empty() && in.size() != 2 * static_cast<std::size_t>(owned_.size())) {
    throw Error("internal: restore_held_densities of the wrong size");
  }
  held_ = in;
}

void CpuBackend::set_halo_lists(const std::vector<std::vector<std::uint64_t>>& lists, bool /*device_buffers*/) {
  lists_ = lists;
  buffers_.assign(lists.size(), {});
  for (std::size_t k = 0; k < lists.size(); ++k) buffers_[k].resize(lists[k].size() * storage_bytes(storage_));
}

void CpuBackend::pack_halo(int list) {
  const auto& idx = lists_[list];
  const auto n = static_cast<std::int64_t>(idx.size());
  each_storage([&](auto slot) {
    using S = decltype(slot);
    S* out = reinterpret_cast<S*>(buffers_[list].data());
    const S* f = slots<S>();
#pragma omp parallel for schedule(static) if (n > 65536)
    for (std::int64_t k = 0; k < n; ++k) out[k] = f[idx[k]];
  });
}

void CpuBackend::unpack_halo(int list) {
  const auto& idx = lists_[list];
  const auto n = static_cast<std::int64_t>(idx.size());
  each_storage([&](auto slot) {
    using S = decltype(slot);
    const S* in = reinterpret_cast<const S*>(buffers_[list].data());
    S* f = slots<S>();
#pragma omp parallel for schedule(static) if (n > 65536)
    for (std::int64_t k = 0; k < n; ++k) f[idx[k]] = in[k];
  });
}

void CpuBackend::download_raw(std::vector<std::byte>& f) { f = f_; }

void CpuBackend::upload_raw(const std::vector<std::byte>& f) {
  if (f.size() != f_.size()) {
    throw Error("internal: upload of " + std::to_string(f.size()) + " bytes of populations, expected " +
                std::to_string(f_.size()));
  }
  f_ = f;
}

double cpu_copy_bandwidth_gbs() {
  const std::size_t n = std::size_t{1} << 26;  // 256 MiB of floats, far beyond the caches
  std::vector<float> a(n, 1.0f), b(n, 0.0f);
  std::vector<double> times;
  for (int rep = 0; rep < 7; ++rep) {
    const auto start = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
    for (std::int64_t chunk = 0; chunk < 64; ++chunk) {
      const std::size_t len = n / 64;
      std::memcpy(b.data() + chunk * len, a.data() + chunk * len, len * sizeof(float));
    }
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return 2.0 * n * sizeof(float) / times[times.size() / 2] * 1e-9;
}

}  // namespace rockperm::backend
