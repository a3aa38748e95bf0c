#include "lib/geometry/morphology.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numeric>

#include <omp.h>

#include "lib/base/error.hpp"
#include "lib/base/split_mix.hpp"
#include "lib/geometry/distance_transform.hpp"

namespace rockperm::geometry {

const char* to_string(EntryFaces f) { return name_in(entry_face_names, f); }

namespace {

// The links of the lattice the phases connect through: 6 faces, and 12 edges where open; as
// offsets along each axis and in the volume's raster order.
struct Links {
  int count = 0;
  std::array<std::array<int, 3>, 18> d{};
  std::array<std::int64_t, 18> step{};  // raster offsets
  Links(EdgeContacts edges, const Dims& dims) {
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int n = std::abs(dx) + std::abs(dy) + std::abs(dz);
          if (n == 1 || (n == 2 && edges == EdgeContacts::open)) {
            d[static_cast<std::size_t>(count)] = {dx, dy, dz};
            step[static_cast<std::size_t>(count++)] = dx + dy * dims.nx + dz * dims.nx * dims.ny;
          }
        }
  }
};

// Calls f(u) for each neighbour u of voxel v inside the volume: an interior voxel by the raster
// offsets alone, one on the volume's boundary with its coordinates checked.
template <class F>
void each_neighbour(const Dims& dims, const Links& links, std::uint64_t v, F&& f) {
  std::int64_t x, y, z;
  if (v < (std::uint64_t{1} << 32) && dims.nx * dims.ny < (std::int64_t{1} << 32)) {  // 32-bit divisions: cheaper
    const auto w = static_cast<std::uint32_t>(v), nx = static_cast<std::uint32_t>(dims.nx),
               plane = static_cast<std::uint32_t>(dims.nx * dims.ny);
    z = w / plane;
    const std::uint32_t r = w - static_cast<std::uint32_t>(z) * plane;
    y = r / nx;
    x = r - static_cast<std::uint32_t>(y) * nx;
  } else {
    const auto nx = static_cast<std::uint64_t>(dims.nx), plane = nx * static_cast<std::uint64_t>(dims.ny);
    z = static_cast<std::int64_t>(v / plane);
    y = static_cast<std::int64_t>((v % plane) / nx);
    x = static_cast<std::int64_t>(v % nx);
  }
  if (x > 0 && y > 0 && z > 0 && x < dims.nx - 1 && y < dims.ny - 1 && z < dims.nz - 1) {
    for (int l = 0; l < links.count; ++l) {
      f(static_cast<std::uint64_t>(static_cast<std::int64_t>(v) + links.step[static_cast<std::size_t>(l)]));
    }
    return;
  }
  for (int l = 0; l < links.count; ++l) {
    const auto& d = links.d[static_cast<std::size_t>(l)];
    const std::int64_t a = x + d[0], b = y + d[1], c = z + d[2];
    if (a < 0 || b < 0 || c < 0 || a >= dims.nx || b >= dims.ny || c >= dims.nz) continue;
    f(static_cast<std::uint64_t>(static_cast<std::int64_t>(v) + links.step[static_cast<std::size_t>(l)]));
  }
}

// The voxels of the faces: the flow axis's first (inlet) and last (outlet) planes, or all six.
enum class Faces { inlet, outlet, both, all };
bool on_faces(const Dims& dims, int axis, Faces faces, std::uint64_t v) {
  const auto nx = static_cast<std::uint64_t>(dims.nx), ny = static_cast<std::uint64_t>(dims.ny);
  const std::int64_t c[3] = {static_cast<std::int64_t>(v % nx), static_cast<std::int64_t>((v / nx) % ny),
                             static_cast<std::int64_t>(v / (nx * ny))};
  switch (faces) {
    case Faces::inlet: return c[axis] == 0;
    case Faces::outlet: return c[axis] == dims[axis] - 1;
    case Faces::both: return c[axis] == 0 || c[axis] == dims[axis] - 1;
    case Faces::all:
      for (int a = 0; a < 3; ++a)
        if (c[a] == 0 || c[a] == dims[a] - 1) return true;
      return false;
  }
  return false;
}
Faces faces_of(EntryFaces e) {
  return e == EntryFaces::inlet ? Faces::inlet : e == EntryFaces::both ? Faces::both : Faces::all;
}

// Every pore voxel of `faces`, in raster order. One axis's faces are walked plane by plane; all six
// by the whole volume's boundary shell.
std::vector<std::uint64_t> face_voxels(const Dims& dims, const std::vector<std::uint8_t>& pore, int axis, Faces faces) {
  std::vector<std::uint64_t> out;
  if (faces == Faces::all) {
    for (std::int64_t z = 0; z < dims.nz; ++z)
      for (std::int64_t y = 0; y < dims.ny; ++y) {
        const bool shell = z == 0 || z == dims.nz - 1 || y == 0 || y == dims.ny - 1;
        for (std::int64_t x = 0; x < dims.nx; x += shell || x == dims.nx - 1 ? 1 : dims.nx - 1) {
          const std::uint64_t v = dims.linear(x, y, z);
          if (pore[v]) out.push_back(v);
        }
      }
    return out;
  }
  std::vector<std::int64_t> planes;
  if (faces != Faces::outlet) planes.push_back(0);
  if (faces != Faces::inlet && (planes.empty() || dims[axis] > 1)) planes.push_back(dims[axis] - 1);
  const int a = axis == 0 ? 1 : 0, b = axis == 2 ? 1 : 2;  // the face's two axes
  for (const std::int64_t p : planes)
    for (std::int64_t j = 0; j < dims[b]; ++j)
      for (std::int64_t i = 0; i < dims[a]; ++i) {
        std::int64_t c[3];
        c[axis] = p, c[a] = i, c[b] = j;
        const std::uint64_t v = dims.linear(c[0], c[1], c[2]);
        if (pore[v]) out.push_back(v);
      }
  std::sort(out.begin(), out.end());
  return out;
}

// The bottleneck of every pore voxel from `seeds`: the largest t such that a path of pore voxels
// with EDT^2 >= t joins it to a seed (the path's smallest EDT^2), -1 where none does. A priority
// flood over the distinct values of EDT^2 (integers), highest first: each voxel queued once.
std::vector<float> bottleneck(const Dims& dims, const std::vector<std::uint8_t>& pore, const std::vector<float>& edt2,
                              const std::vector<std::uint64_t>& seeds, const Links& links) {
  const std::uint64_t n = dims.voxels();
  std::vector<float> a2(n, -1.0f);
  float top = 0;
  for (std::uint64_t v = 0; v < n; ++v)
    if (pore[v]) top = std::max(top, edt2[v]);
  const auto levels = static_cast<std::size_t>(top) + 1;  // EDT^2 is an integer below 2^24
  std::vector<std::vector<std::uint64_t>> bucket(levels);
  std::vector<std::uint8_t> queued(n, 0);
  for (const std::uint64_t v : seeds) {
    bucket[static_cast<std::size_t>(edt2[v])].push_back(v);
    queued[v] = 1;
  }
  for (std::size_t level = levels; level-- > 0;) {
    auto& b = bucket[level];
    while (!b.empty()) {
      const std::uint64_t v = b.back();
      b.pop_back();
      a2[v] = static_cast<float>(level);
      each_neighbour(dims, links, v, [&](std::uint64_t u) {
        if (!pore[u] || queued[u]) return;
        queued[u] = 1;
        bucket[std::min(level, static_cast<std::size_t>(edt2[u]))].push_back(u);
      });
    }
    std::vector<std::uint64_t>().swap(b);
  }
  return a2;
}

// The centre threshold of a ball of radius R (voxels): EDT >= R cos + 1/2, as EDT^2.
double centre_threshold(double radius, double cos_theta) {
  const double e = radius * cos_theta + 0.5;
  return e * e;
}

// The centres of each step: the voxels whose value (the reach a2, or EDT^2) first meets the step's
// centre threshold at that step (thresholds falling along the steps), each list in raster order.
// Only these can take voxels at their step: an older centre's ball of the smaller radius lies
// inside the ball it had. One pass over the volume, the threads' runs joined in order.
std::vector<std::vector<std::uint64_t>> centres_by_step(const std::vector<float>& value,
                                                        const std::vector<std::uint8_t>& mask,
                                                        const std::vector<double>& thresholds) {
  const std::size_t steps = thresholds.size();
  const auto n = static_cast<std::int64_t>(value.size());
  std::vector<std::vector<std::uint64_t>> out(steps);
#pragma omp parallel
  {
    std::vector<std::vector<std::uint64_t>> local(steps);
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      const auto v = static_cast<std::size_t>(i);
      if (!mask[v] || value[v] < 0) continue;
      const double a = value[v];
      // the first step whose threshold it meets (thresholds fall: a binary search)
      std::size_t lo = 0, hi = steps;
      while (lo < hi) {
        const std::size_t mid = (lo + hi) / 2;
        if (a >= thresholds[mid] - 1e-6) hi = mid;
        else lo = mid + 1;
      }
      if (lo < steps) local[lo].push_back(static_cast<std::uint64_t>(i));
    }
    // each thread's chunk is contiguous and in thread order (static schedule): joined in order
#pragma omp for schedule(static) ordered
    for (int t = 0; t < omp_get_num_threads(); ++t) {
#pragma omp ordered
      for (std::size_t j = 0; j < steps; ++j) out[j].insert(out[j].end(), local[j].begin(), local[j].end());
    }
  }
  return out;
}

// Marks with `step` every domain voxel not yet taken (seq == not_taken) whose centre lies within
// `radius` of a centre of `list` (raster order). Few centres: their balls are stamped one by one;
// many: a distance transform of the planes their balls reach (the first centre's plane less the
// radius to the last's plus it), whichever is less work. `scratch`: a zeroed byte a voxel, left
// zeroed.
void cover(const Dims& dims, const std::vector<std::uint64_t>& list, const std::vector<std::uint8_t>& domain,
           double radius, std::uint16_t step, std::vector<std::uint16_t>& seq, std::vector<std::uint8_t>& scratch) {
  if (list.empty()) return;
  const std::int64_t plane = dims.nx * dims.ny;
  const auto first = static_cast<std::int64_t>(list.front()) / plane, last = static_cast<std::int64_t>(list.back()) / plane;
  const auto reach = static_cast<std::int64_t>(std::ceil(radius));
  const std::int64_t z0 = std::max<std::int64_t>(0, first - reach), z1 = std::min(dims.nz, last + reach + 1);
  const Dims part{dims.nx, dims.ny, z1 - z0};
  const std::int64_t offset = z0 * plane, n = (z1 - z0) * plane;
  const double r2 = radius * radius + 1e-6;  // squared distances are integers
  std::vector<std::array<std::int32_t, 3>> ball;
  for (std::int64_t dz = -reach; dz <= reach; ++dz)
    for (std::int64_t dy = -reach; dy <= reach; ++dy)
      for (std::int64_t dx = -reach; dx <= reach; ++dx)
        if (static_cast<double>(dx * dx + dy * dy + dz * dz) <= r2) {
          ball.push_back({static_cast<std::int32_t>(dx), static_cast<std::int32_t>(dy), static_cast<std::int32_t>(dz)});
        }
  // a transform reads and writes every voxel of its planes a few times (the bounded one 2R + 1
  // times along y and z); a ball's stamp touches its voxels once, scattered
  const double transform_cost = static_cast<double>(n) * (radius <= 11 ? 2.0 * static_cast<double>(reach) + 6.0 : 40.0);
  if (static_cast<double>(list.size()) * static_cast<double>(ball.size()) < transform_cost) {
    const auto nx = static_cast<std::uint64_t>(dims.nx), ny = static_cast<std::uint64_t>(dims.ny);
    const auto count = static_cast<std::int64_t>(list.size());
    // threads may write the same voxel: the same value, `step`, where it was not_taken
#pragma omp parallel for schedule(dynamic, 64)
    for (std::int64_t k = 0; k < count; ++k) {
      const std::uint64_t c = list[static_cast<std::size_t>(k)];
      const auto x = static_cast<std::int64_t>(c % nx), y = static_cast<std::int64_t>((c / nx) % ny),
                 z = static_cast<std::int64_t>(c / (nx * ny));
      for (const auto& o : ball) {
        const std::int64_t a = x + o[0], b = y + o[1], cz = z + o[2];
        if (a < 0 || b < 0 || cz < 0 || a >= dims.nx || b >= dims.ny || cz >= dims.nz) continue;
        const std::uint64_t v = dims.linear(a, b, cz);
        if (!domain[v]) continue;
        std::atomic_ref<std::uint16_t> at(seq[v]);
        if (at.load(std::memory_order_relaxed) == not_taken) at.store(step, std::memory_order_relaxed);
      }
    }
    return;
  }
  for (const std::uint64_t c : list) scratch[c] = 1;
  if (radius <= 11) {  // the bounded transform: exact up to ceil(R)^2 >= R^2, a byte a voxel
    const HostArray<std::uint8_t> sq = squared_distance_within(part, scratch.data() + offset, static_cast<int>(reach));
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      const auto v = static_cast<std::size_t>(offset + i);
      const std::uint8_t q = sq[static_cast<std::size_t>(i)];
      if (domain[v] && seq[v] == not_taken && q != 255 && static_cast<double>(q) <= r2) seq[v] = step;
    }
  } else {
    const std::vector<std::uint8_t> part_seed(scratch.begin() + offset, scratch.begin() + offset + n);
    const std::vector<float> d = distance_to(part, part_seed);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      const auto v = static_cast<std::size_t>(offset + i);
      const double dv = d[static_cast<std::size_t>(i)];
      if (domain[v] && seq[v] == not_taken && dv * dv <= r2) seq[v] = step;
    }
  }
  for (const std::uint64_t c : list) scratch[c] = 0;
}

// Union-find over voxels (64-bit parents, path compression): the defending
// phase's clusters built backwards in time.
class Clusters {
 public:
  explicit Clusters(std::uint64_t n) : parent_(n), exit_(n, 0) {}
  std::uint64_t find(std::uint64_t v) {
    std::uint64_t r = v;
    while (parent_[r] != r) r = parent_[r];
    while (parent_[v] != r) {
      const std::uint64_t next = parent_[v];
      parent_[v] = r;
      v = next;
    }
    return r;
  }
  void add(std::uint64_t v, bool exit) {
    parent_[v] = v;
    exit_[v] = exit ? 1 : 0;
  }
  void join(std::uint64_t a, std::uint64_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (a < b) std::swap(a, b);
    parent_[a] = b;
    exit_[b] = static_cast<std::uint8_t>(exit_[b] | exit_[a]);
  }
  bool exits(std::uint64_t v) { return exit_[find(v)] != 0; }

 private:
  std::vector<std::uint64_t> parent_;
  std::vector<std::uint8_t> exit_;
};

// Trapping of the defending phase: a voxel the displacing phase takes at step s (seq) is kept by
// the defending phase (seq = not_taken) where, after step s - 1, its cluster of the defending phase
// (domain voxels with seq >= s, trapping applied) had no voxel on the exit faces. Built backwards:
// the clusters after step s - 1 are those of the voxels taken at s or later, or not_taken. Exact with
// respect to connectivity: a voxel reached later only through a trapped cluster is in that
// cluster.
void trap(const Dims& dims, const std::vector<std::uint8_t>& domain, std::vector<std::uint16_t>& seq,
                   std::size_t steps, int axis, Faces exit_faces, const Links& links) {
  const std::uint64_t n = dims.voxels();
  // the voxels of each step, `steps` for those not_taken taken, by a counting sort
  std::vector<std::uint64_t> start(steps + 2, 0);
  for (std::uint64_t v = 0; v < n; ++v)
    if (domain[v]) ++start[(seq[v] == not_taken ? steps : seq[v]) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<std::uint64_t> order(start.back());
  {
    std::vector<std::uint64_t> at(start.begin(), start.end() - 1);
    for (std::uint64_t v = 0; v < n; ++v)
      if (domain[v]) order[at[seq[v] == not_taken ? steps : seq[v]]++] = v;
  }
  Clusters clusters(n);
  std::vector<std::uint8_t> in(n, 0);
  for (std::size_t s = steps + 1; s-- > 0;) {
    const std::uint64_t begin = start[s], end = start[s + 1];
    for (std::uint64_t i = begin; i < end; ++i) {
      const std::uint64_t v = order[i];
      in[v] = 1;
      clusters.add(v, on_faces(dims, axis, exit_faces, v));
    }
    for (std::uint64_t i = begin; i < end; ++i) {
      const std::uint64_t v = order[i];
      each_neighbour(dims, links, v, [&](std::uint64_t u) {
        if (in[u]) clusters.join(u, v);
      });
    }
    if (s == steps) continue;  // not_taken taken: nothing to keep
    for (std::uint64_t i = begin; i < end; ++i) {
      const std::uint64_t v = order[i];
      if (!clusters.exits(v)) seq[v] = not_taken;
    }
  }
}

// The voxels of `phase` with no path through it to the exit faces.
std::uint64_t isolated(const Dims& dims, const std::vector<std::uint8_t>& phase, int axis, Faces exit_faces,
                       const Links& links) {
  std::vector<std::uint8_t> seen(phase.size(), 0);
  std::vector<std::uint64_t> stack = face_voxels(dims, phase, axis, exit_faces);
  for (const std::uint64_t v : stack) seen[v] = 1;
  std::uint64_t reached = stack.size();
  while (!stack.empty()) {
    const std::uint64_t v = stack.back();
    stack.pop_back();
    each_neighbour(dims, links, v, [&](std::uint64_t u) {
      if (!phase[u] || seen[u]) return;
      seen[u] = 1;
      ++reached;
      stack.push_back(u);
    });
  }
  std::uint64_t all = 0;
  for (const std::uint8_t p : phase) all += p ? 1 : 0;
  return all - reached;
}

void check_radii(const std::vector<double>& radii, bool falling) {
  if (radii.empty()) throw InputError("two_phase.pressures", "no capillary pressure to displace at");
  if (radii.size() > max_displacement_steps) {
    throw InputError("two_phase.pressures", "at most " + std::to_string(max_displacement_steps) + " capillary pressures per curve");
  }
  for (std::size_t i = 0; i < radii.size(); ++i) {
    if (!(radii[i] > 0) || !std::isfinite(radii[i])) {
      throw InputError("two_phase.pressures", "a capillary pressure gives no positive finite ball radius");
    }
    if (i > 0 && (falling ? radii[i] >= radii[i - 1] : radii[i] <= radii[i - 1])) {
      throw InputError("two_phase.pressures", std::string("the capillary pressures must ") +
                                                  (falling ? "rise" : "fall") + " strictly along the curve");
    }
  }
}

// The defending phase's voxels after every step: the domain's voxels taken after it, or never.
std::vector<std::uint64_t> count_defending(const std::vector<std::uint8_t>& domain, const std::vector<std::uint16_t>& seq,
                                           std::size_t steps) {
  std::vector<std::uint64_t> taken(steps + 1, 0);  // [s]: taken at step s; [steps]: never
  const auto n = static_cast<std::int64_t>(domain.size());
#pragma omp parallel
  {
    std::vector<std::uint64_t> local(steps + 1, 0);
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      const auto v = static_cast<std::size_t>(i);
      if (domain[v]) ++local[seq[v] == not_taken || seq[v] >= steps ? steps : seq[v]];
    }
#pragma omp critical
    for (std::size_t k = 0; k <= steps; ++k) taken[k] += local[k];
  }
  std::vector<std::uint64_t> defending(steps);
  std::uint64_t left = 0;
  for (std::size_t k = 0; k <= steps; ++k) left += taken[k];
  for (std::size_t j = 0; j < steps; ++j) {
    left -= taken[j];
    defending[j] = left;
  }
  return defending;
}

std::uint64_t count_set(const std::vector<std::uint8_t>& mask) {
  std::uint64_t c = 0;
  const auto n = static_cast<std::int64_t>(mask.size());
#pragma omp parallel for reduction(+ : c) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) c += mask[static_cast<std::size_t>(i)] ? 1 : 0;
  return c;
}

}  // namespace

std::vector<float> squared_pore_distance(const Dims& dims, const std::vector<std::uint8_t>& pore) {
  const auto n = static_cast<std::int64_t>(pore.size());
  std::vector<std::uint8_t> solid(pore.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) solid[static_cast<std::size_t>(i)] = pore[static_cast<std::size_t>(i)] ? 0 : 1;
  std::vector<float> d = distance_to(dims, solid);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    // exact integers: the transform's float root, squared back and rounded
    float& e = d[static_cast<std::size_t>(i)];
    e = pore[static_cast<std::size_t>(i)] ? (e >= 1e18f ? 1e18f : std::round(e * e)) : 0.0f;
  }
  return d;
}

EntryRadii entry_radii(const Dims& dims, const std::vector<std::uint8_t>& pore, const std::vector<float>& edt2,
                       const MorphologySpec& spec, std::vector<float>* inlet_reach) {
  EntryRadii r;
  const Links links(spec.edges, dims);
  const std::vector<std::uint64_t> entry = face_voxels(dims, pore, spec.flow_axis, faces_of(spec.entry));
  if (entry.empty()) return r;
  float top = 0;
  for (const std::uint64_t v : entry) top = std::max(top, edt2[v]);
  r.entry = (std::sqrt(static_cast<double>(top)) - 0.5) / spec.cos_theta;
  // breakthrough: the widest centres joining the flow axis's two faces (whatever the entry)
  std::vector<float> a2 = bottleneck(dims, pore, edt2, face_voxels(dims, pore, spec.flow_axis, Faces::inlet), links);
  float span = -1;
  for (const std::uint64_t v : face_voxels(dims, pore, spec.flow_axis, Faces::outlet)) span = std::max(span, a2[v]);
  r.breakthrough = span > 0 ? (std::sqrt(static_cast<double>(span)) - 0.5) / spec.cos_theta : 0.0;
  if (inlet_reach) *inlet_reach = std::move(a2);
  return r;
}

Displacement drain(const Dims& dims, const std::vector<std::uint8_t>& pore, const std::vector<float>& edt2,
                   const MorphologySpec& spec, const std::vector<double>& radii, const std::vector<float>* inlet_reach) {
  check_radii(radii, true);
  const Links links(spec.edges, dims);
  const std::vector<std::uint64_t> entry = face_voxels(dims, pore, spec.flow_axis, faces_of(spec.entry));
  if (entry.empty()) {
    throw InputError("two_phase.entry", std::string("no pore voxel on the entry face") +
                                            (spec.entry == EntryFaces::inlet ? "" : "s") + " (" + to_string(spec.entry) +
                                            ") of the sample: choose other entry faces or another flow axis");
  }
  if (spec.trap_wetting) {
    if (spec.entry != EntryFaces::inlet) {
      throw InputError("two_phase.trapping", std::string("the wetting phase cannot leave: with entry faces '") +
                                                 to_string(spec.entry) +
                                                 "' no face is left for it to leave through; set trapping off (as "
                                                 "in mercury injection, where it is evacuated) or enter at the inlet");
    }
    if (face_voxels(dims, pore, spec.flow_axis, Faces::outlet).empty()) {
      throw InputError("two_phase.trapping",
                       "the wetting phase cannot leave: the outlet face has no pore voxel; set trapping off");
    }
  }
  const std::uint64_t n = dims.voxels();
  Displacement out;
  out.radii = radii;
  out.step.assign(n, not_taken);
  // the flood from the entry faces (the caller's, where it made the inlet's for these faces)
  std::vector<float> own;
  if (!(inlet_reach && spec.entry == EntryFaces::inlet && inlet_reach->size() == n)) own = bottleneck(dims, pore, edt2, entry, links);
  const std::vector<float>& a2 = own.empty() ? *inlet_reach : own;
  // Only the centres new at a step can take voxels: an older centre's ball of the smaller radius
  // lies inside the ball it had. A step with no new centre takes nothing; the others dilate the
  // new ones alone.
  std::vector<double> thresholds;
  for (const double r : radii) thresholds.push_back(centre_threshold(r, spec.cos_theta));
  std::vector<std::vector<std::uint64_t>> centres = centres_by_step(a2, pore, thresholds);
  std::vector<std::uint8_t> scratch(n, 0);
  for (std::size_t j = 0; j < radii.size(); ++j) {
    cover(dims, centres[j], pore, radii[j], static_cast<std::uint16_t>(j), out.step, scratch);
    std::vector<std::uint64_t>().swap(centres[j]);
  }
  if (spec.trap_wetting) {
    trap(dims, pore, out.step, radii.size(), spec.flow_axis, Faces::outlet, links);
    // the wetting phase trapped at the end: its clusters with no path to the outlet
    std::vector<std::uint8_t> wetting(n);
    const std::size_t last = radii.size() - 1;
    for (std::uint64_t v = 0; v < n; ++v) wetting[v] = pore[v] && (out.step[v] == not_taken || out.step[v] > last);
    out.trapped = isolated(dims, wetting, spec.flow_axis, Faces::outlet, links);
  }
  out.domain = count_set(pore);
  out.defending = count_defending(pore, out.step, radii.size());
  return out;
}

Displacement imbibe(const Dims& dims, const std::vector<std::uint8_t>& pore, const std::vector<float>& edt2,
                    const MorphologySpec& spec, const Displacement& drained, const std::vector<double>& radii) {
  check_radii(radii, false);
  if (radii.size() + 1 > max_displacement_steps) throw InputError("two_phase.pressures", "too many capillary pressures");
  const Links links(spec.edges, dims);
  const std::uint64_t n = dims.voxels();
  const std::size_t last = drained.radii.size() - 1;
  // the non-wetting phase's domain: what the drainage left it
  std::vector<std::uint8_t> domain(n);
  for (std::uint64_t v = 0; v < n; ++v) domain[v] = pore[v] && drained.step[v] != not_taken && drained.step[v] <= last;
  Displacement out;
  out.radii = radii;
  // held[v]: the last step whose balls still cover v, the largest radius first, so that the phase at
  // step j is what balls of radius R_j or larger cover (the drainage's memory read backwards: at the
  // drainage's own last radius the imbibition starts where it ended, whatever the voxel grid does
  // to balls of one radius alone)
  std::vector<std::uint16_t> held(n, not_taken);
  // the radii from the largest: their thresholds fall as drain()'s do
  std::vector<double> thresholds;
  for (std::size_t j = radii.size(); j-- > 0;) thresholds.push_back(centre_threshold(radii[j], spec.cos_theta));
  std::vector<std::vector<std::uint64_t>> centres = centres_by_step(edt2, pore, thresholds);
  std::vector<std::uint8_t> scratch(n, 0);
  for (std::size_t k = 0; k < radii.size(); ++k) {
    const std::size_t j = radii.size() - 1 - k;
    cover(dims, centres[k], domain, radii[j], static_cast<std::uint16_t>(j), held, scratch);
    std::vector<std::uint64_t>().swap(centres[k]);
  }
  // a voxel leaves at the step after the last that holds it; step radii.size() is Pc -> 0 (no
  // ball fits): everything not trapped has left by then
  const std::size_t steps = radii.size() + 1;
  out.step.assign(n, not_taken);
  for (std::uint64_t v = 0; v < n; ++v) {
    if (domain[v]) out.step[v] = held[v] == not_taken ? 0 : static_cast<std::uint16_t>(held[v] + 1);
  }
  trap(dims, domain, out.step, steps, spec.flow_axis, faces_of(spec.entry), links);
  for (std::uint64_t v = 0; v < n; ++v) out.trapped += domain[v] && out.step[v] == not_taken ? 1 : 0;
  // the defending phase here is the non-wetting one
  out.domain = count_set(pore);
  out.defending = count_defending(domain, out.step, radii.size());
  return out;
}

std::vector<std::uint8_t> drained_phases(const std::vector<std::uint8_t>& pore, const Displacement& drainage,
                                         std::size_t j) {
  std::vector<std::uint8_t> p(pore.size());
  for (std::size_t v = 0; v < pore.size(); ++v) {
    p[v] = !pore[v] ? phase_solid
                    : (drainage.step[v] != not_taken && drainage.step[v] <= j ? phase_nonwetting : phase_wetting);
  }
  return p;
}

std::vector<std::uint8_t> imbibed_phases(const std::vector<std::uint8_t>& pore, const Displacement& drainage,
                                         const Displacement& imbibition, std::size_t j) {
  std::vector<std::uint8_t> p = drained_phases(pore, drainage, drainage.radii.size() - 1);
  for (std::size_t v = 0; v < pore.size(); ++v) {
    if (p[v] == phase_nonwetting && imbibition.step[v] != not_taken && imbibition.step[v] <= j) p[v] = phase_wetting;
  }
  return p;
}

std::vector<std::uint8_t> random_phases(const std::vector<std::uint8_t>& phases, std::uint64_t seed) {
  std::uint64_t wetting = 0, pore = 0;
  for (const std::uint8_t p : phases) {
    wetting += p == phase_wetting;
    pore += p != phase_solid;
  }
  const double share = pore > 0 ? static_cast<double>(wetting) / static_cast<double>(pore) : 0.0;
  std::vector<std::uint8_t> out(phases.size());
  for (std::size_t v = 0; v < phases.size(); ++v) {
    if (phases[v] == phase_solid) {
      out[v] = phase_solid;
      continue;
    }
    // a draw of the voxel's own
    SplitMix64 draw{seed + static_cast<std::uint64_t>(v) * 0x9E3779B97F4A7C15ull};
    out[v] = draw.uniform() < share ? phase_wetting : phase_nonwetting;
  }
  return out;
}

}  // namespace rockperm::geometry
