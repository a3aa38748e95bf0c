#include "lib/geometry/distance_transform.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rockperm::geometry {

namespace {

constexpr double far = 1e20;

// Squared distances along one line: f holds 0 at seeds and `far` elsewhere (or the squared
// distances of the previous axes); d receives the lower envelope of the parabolas f(q) + (p - q)^2.
void envelope(const double* f, double* d, std::int64_t n, std::vector<std::int64_t>& v, std::vector<double>& z) {
  v.resize(n);
  z.resize(n + 1);
  std::int64_t k = -1;
  for (std::int64_t q = 0; q < n; ++q) {
    if (f[q] >= far) continue;
    double s = 0;
    while (k >= 0) {
      s = ((f[q] + double(q) * q) - (f[v[k]] + double(v[k]) * v[k])) / (2.0 * (q - v[k]));
      if (s > z[k]) break;
      --k;
    }
    ++k;
    v[k] = q;
    z[k] = k == 0 ? -far : s;
    z[k + 1] = far;
  }
  if (k < 0) {
    for (std::int64_t p = 0; p < n; ++p) d[p] = far;
    return;
  }
  std::int64_t j = 0;
  for (std::int64_t p = 0; p < n; ++p) {
    while (z[j + 1] < p) ++j;
    d[p] = (p - v[j]) * double(p - v[j]) + f[v[j]];
  }
}

}  // namespace

std::vector<float> distance_to(const Dims& dims, const std::vector<std::uint8_t>& seed) {
  const std::int64_t n[3] = {dims.nx, dims.ny, dims.nz};
  // squared distances, held as float: integers, exact below 2^24 (4096 voxels), and half the
  // bytes of doubles through every pass; each line is worked in doubles
  std::vector<float> sq(dims.voxels());
  const auto voxels = static_cast<std::int64_t>(sq.size());
  constexpr float far_f = static_cast<float>(far);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < voxels; ++i) sq[static_cast<std::size_t>(i)] = seed[static_cast<std::size_t>(i)] ? 0.0f : far_f;
  // x lines are contiguous; the y and z lines are taken `block` x columns at a time, so that each
  // cache line read brings `block` values of use (a line at a time, a z line of a power-of-two
  // volume maps every voxel to one cache set and misses on each)
  constexpr std::int64_t block = 16;
  const std::int64_t stride[3] = {1, dims.nx, dims.nx * dims.ny};
  for (int axis = 0; axis < 3; ++axis) {
    const int other = axis == 2 ? 1 : 2;  // the axis that is neither x nor this one (x pass: z)
    const std::int64_t columns = axis == 0 ? n[1] : (n[0] + block - 1) / block;  // per plane of `other`
    const std::int64_t len = n[axis];
#pragma omp parallel
    {
      std::vector<double> lines(static_cast<std::size_t>(block * len)), out(static_cast<std::size_t>(len)), z;
      std::vector<std::int64_t> v;
#pragma omp for collapse(2) schedule(static)
      for (std::int64_t j = 0; j < n[other]; ++j) {
        for (std::int64_t c = 0; c < columns; ++c) {
          if (axis == 0) {  // the x line at (y = c, z = j), seeds only: two sweeps give the distance
            float* line = &sq[static_cast<std::size_t>(c * stride[1] + j * stride[2])];
            double last = -far;  // position of the nearest seed behind
            for (std::int64_t p = 0; p < len; ++p) {
              if (line[p] == 0.0f) last = static_cast<double>(p);
              out[static_cast<std::size_t>(p)] = static_cast<double>(p) - last;
            }
            last = far;
            for (std::int64_t p = len - 1; p >= 0; --p) {
              if (line[p] == 0.0f) last = static_cast<double>(p);
              const double d = std::min(out[static_cast<std::size_t>(p)], last - static_cast<double>(p));
              line[p] = d >= far / 2 ? far_f : static_cast<float>(d * d);
            }
            continue;
          }
          const std::int64_t x0 = c * block, width = std::min(block, n[0] - x0);
          const std::int64_t base = x0 + j * stride[other];
          for (std::int64_t p = 0; p < len; ++p) {
            const float* row = &sq[static_cast<std::size_t>(base + p * stride[axis])];
            for (std::int64_t w = 0; w < width; ++w) {
              const float f = row[w];
              lines[static_cast<std::size_t>(w * len + p)] = f >= far_f ? far : static_cast<double>(f);
            }
          }
          for (std::int64_t w = 0; w < width; ++w) {
            envelope(&lines[static_cast<std::size_t>(w * len)], out.data(), len, v, z);
            std::copy(out.begin(), out.end(), lines.begin() + w * len);
          }
          for (std::int64_t p = 0; p < len; ++p) {
            float* row = &sq[static_cast<std::size_t>(base + p * stride[axis])];
            for (std::int64_t w = 0; w < width; ++w) {
              const double d = lines[static_cast<std::size_t>(w * len + p)];
              row[w] = d >= far ? far_f : static_cast<float>(d);
            }
          }
        }
      }
    }
  }
  // the distances, in place
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < voxels; ++i) {
    float& d = sq[static_cast<std::size_t>(i)];
    d = d >= far_f ? std::numeric_limits<float>::max() : std::sqrt(d);
  }
  return sq;
}

HostArray<std::uint8_t> squared_distance_within(const Dims& dims, const std::uint8_t* seed, int radius) {
  constexpr std::uint8_t unknown = 255;
  const auto R = static_cast<std::int64_t>(radius);
  const std::int64_t nx = dims.nx, ny = dims.ny, nz = dims.nz;
  const std::int64_t plane = nx * ny;
  HostArray<std::uint8_t> sq(static_cast<std::size_t>(dims.voxels()));  // every byte written by the x pass
  std::uint8_t* out = sq.data();
  // x: the distance along the row to the nearest seed, squared, when it is at most R
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < ny * nz; ++r) {
    const std::uint8_t* s = seed + r * nx;
    std::uint8_t* o = out + r * nx;
    std::int64_t last = -(R + 1) - 1;  // nearest seed behind, far away
    for (std::int64_t x = 0; x < nx; ++x) {
      if (s[x]) last = x;
      const std::int64_t d = x - last;
      o[x] = d <= R ? static_cast<std::uint8_t>(d * d) : unknown;
    }
    last = nx + R + 1;
    for (std::int64_t x = nx - 1; x >= 0; --x) {
      if (s[x]) last = x;
      const std::int64_t d = last - x;
      if (d <= R) o[x] = std::min(o[x], static_cast<std::uint8_t>(d * d));
    }
  }
  // y and z: out(p) = min over |k| <= R of in(p + k) + k^2 (saturating), on whole rows: the
  // input lines are a copy, the output the volume itself
  const auto slide = [R](const std::uint8_t* const* lines, std::int64_t count, std::int64_t at, std::uint8_t* o,
                         std::int64_t n) {
    const std::int64_t lo = std::max<std::int64_t>(0, at - R), hi = std::min<std::int64_t>(count - 1, at + R);
    for (std::int64_t i = 0; i < n; ++i) o[i] = unknown;
    for (std::int64_t q = lo; q <= hi; ++q) {
      const auto k2 = static_cast<std::uint16_t>((q - at) * (q - at));
      const std::uint8_t* in = lines[q];
      for (std::int64_t i = 0; i < n; ++i) {
        const auto v = static_cast<std::uint16_t>(in[i] + k2);
        o[i] = static_cast<std::uint8_t>(std::min<std::uint16_t>(o[i], std::min<std::uint16_t>(v, unknown)));
      }
    }
  };
  // y: plane by plane, each thread a copy of its plane
#pragma omp parallel
  {
    std::vector<std::uint8_t> copy(static_cast<std::size_t>(plane));
    std::vector<const std::uint8_t*> rows(static_cast<std::size_t>(ny));
#pragma omp for schedule(static)
    for (std::int64_t z = 0; z < nz; ++z) {
      std::uint8_t* p = out + z * plane;
      std::copy(p, p + plane, copy.begin());
      for (std::int64_t y = 0; y < ny; ++y) rows[static_cast<std::size_t>(y)] = copy.data() + y * nx;
      for (std::int64_t y = 0; y < ny; ++y) slide(rows.data(), ny, y, p + y * nx, nx);
    }
  }
  // z: tile by tile of the xy plane, each thread a copy of its tile's column of planes
  constexpr std::int64_t tile = 2048;
  const std::int64_t tiles = (plane + tile - 1) / tile;
#pragma omp parallel
  {
    std::vector<std::uint8_t> copy(static_cast<std::size_t>(tile * nz));
    std::vector<const std::uint8_t*> lines(static_cast<std::size_t>(nz));
#pragma omp for schedule(static)
    for (std::int64_t t = 0; t < tiles; ++t) {
      const std::int64_t first = t * tile, width = std::min(tile, plane - first);
      for (std::int64_t z = 0; z < nz; ++z) {
        std::copy(out + z * plane + first, out + z * plane + first + width, copy.begin() + z * width);
        lines[static_cast<std::size_t>(z)] = copy.data() + z * width;
      }
      for (std::int64_t z = 0; z < nz; ++z) slide(lines.data(), nz, z, out + z * plane + first, width);
    }
  }
  return sq;
}

HostArray<std::uint8_t> pore_width_classes(const PoreMask& mask) {
  // every comparison below is with a squared distance of at most 31 (the widest class limit):
  // the bounded transform is exact there, and above its bound it says only "farther"
  constexpr int radius = 6;
  static_assert(2 * radius == width_class_reach, "the reach of the classes is two transforms'");
  const auto n = static_cast<std::int64_t>(mask.pore.size());
  const std::uint8_t* pore = mask.pore.data();
  // uninitialised arrays: each is first written by the threads of a parallel loop, so that no
  // single thread zeroes (and faults in) the volume
  HostArray<std::uint8_t> seed(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) seed[static_cast<std::size_t>(i)] = pore[i] ? 0 : 1;  // the solid
  const HostArray<std::uint8_t> to_solid = squared_distance_within(mask.dims, seed.data(), radius);
  HostArray<std::uint8_t> classes(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) classes[static_cast<std::size_t>(i)] = pore[i] ? width_classes - 1 : no_width_class;
  // from the widest limit down, so that each voxel ends in the narrowest class it belongs to
  for (int c = width_classes - 2; c >= 0; --c) {
    const double h = (width_class_limits[c] + 1.0) / 2.0;  // ball centres: distance >= h
    static_assert(radius * radius >= 31, "the bound must cover the widest class");
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      seed[static_cast<std::size_t>(i)] = pore[i] && to_solid[static_cast<std::size_t>(i)] >= h * h ? 1 : 0;
    }
    const HostArray<std::uint8_t> to_centre = squared_distance_within(mask.dims, seed.data(), radius);
    const double covered = (h - 0.5) * (h - 0.5);  // at most 25: inside the bound
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      if (pore[i] && to_centre[static_cast<std::size_t>(i)] > covered) classes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(c);
    }
  }
  return classes;
}

std::int64_t width_chunk_planes(const Dims& d) {
  const std::uint64_t plane = std::max<std::uint64_t>(static_cast<std::uint64_t>(d.nx) * static_cast<std::uint64_t>(d.ny), 1);
  return std::max<std::int64_t>(4 * width_class_reach, static_cast<std::int64_t>((std::uint64_t{1} << 29) / plane));
}

void pore_width_classes_by_chunks(
    const PoreMask& mask, std::int64_t z_begin, std::int64_t z_end, std::int64_t chunk,
    const std::function<void(std::int64_t, std::int64_t, const std::uint8_t*)>& each) {
  const Dims& d = mask.dims;
  const std::uint64_t plane = static_cast<std::uint64_t>(d.nx) * static_cast<std::uint64_t>(d.ny);
  chunk = std::max<std::int64_t>(chunk, 1);
  for (std::int64_t c0 = z_begin; c0 < z_end; c0 += chunk) {
    const std::int64_t c1 = std::min(z_end, c0 + chunk);
    const std::int64_t h0 = std::max<std::int64_t>(0, c0 - width_class_reach);
    const std::int64_t h1 = std::min(d.nz, c1 + width_class_reach);
    if (h0 == 0 && h1 == d.nz) {  // the whole mask at once
      const HostArray<std::uint8_t> classes = pore_width_classes(mask);
      each(c0, c1, classes.data() + plane * static_cast<std::uint64_t>(c0));
      continue;
    }
    PoreMask part;
    part.dims = Dims{d.nx, d.ny, h1 - h0};
    part.pore.assign(mask.pore.begin() + static_cast<std::ptrdiff_t>(plane * static_cast<std::uint64_t>(h0)),
                     mask.pore.begin() + static_cast<std::ptrdiff_t>(plane * static_cast<std::uint64_t>(h1)));
    const HostArray<std::uint8_t> classes = pore_width_classes(part);
    each(c0, c1, classes.data() + plane * static_cast<std::uint64_t>(c0 - h0));
  }
}

}  // namespace rockperm::geometry
