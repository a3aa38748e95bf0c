#include "lib/geometry/distance_transform.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rockperm {

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
  std::vector<double> sq(dims.voxels());
  for (std::size_t i = 0; i < sq.size(); ++i) sq[i] = seed[i] ? 0.0 : far;
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
            double* line = &sq[static_cast<std::size_t>(c * stride[1] + j * stride[2])];
            double last = -far;  // position of the nearest seed behind
            for (std::int64_t p = 0; p < len; ++p) {
              if (line[p] == 0.0) last = static_cast<double>(p);
              out[static_cast<std::size_t>(p)] = static_cast<double>(p) - last;
            }
            last = far;
            for (std::int64_t p = len - 1; p >= 0; --p) {
              if (line[p] == 0.0) last = static_cast<double>(p);
              const double d = std::min(out[static_cast<std::size_t>(p)], last - static_cast<double>(p));
              line[p] = d >= far / 2 ? far : d * d;
            }
            continue;
          }
          const std::int64_t x0 = c * block, width = std::min(block, n[0] - x0);
          const std::int64_t base = x0 + j * stride[other];
          for (std::int64_t p = 0; p < len; ++p) {
            const double* row = &sq[static_cast<std::size_t>(base + p * stride[axis])];
            for (std::int64_t w = 0; w < width; ++w) lines[static_cast<std::size_t>(w * len + p)] = row[w];
          }
          for (std::int64_t w = 0; w < width; ++w) {
            envelope(&lines[static_cast<std::size_t>(w * len)], out.data(), len, v, z);
            std::copy(out.begin(), out.end(), lines.begin() + w * len);
          }
          for (std::int64_t p = 0; p < len; ++p) {
            double* row = &sq[static_cast<std::size_t>(base + p * stride[axis])];
            for (std::int64_t w = 0; w < width; ++w) row[w] = lines[static_cast<std::size_t>(w * len + p)];
          }
        }
      }
    }
  }
  std::vector<float> d(sq.size());
  for (std::size_t i = 0; i < sq.size(); ++i) d[i] = sq[i] >= far ? std::numeric_limits<float>::max() : float(std::sqrt(sq[i]));
  return d;
}

std::vector<std::uint8_t> pore_width_classes(const PoreMask& mask) {
  const std::size_t n = mask.pore.size();
  std::vector<std::uint8_t> solid(n);
  for (std::size_t i = 0; i < n; ++i) solid[i] = mask.pore[i] ? 0 : 1;
  const std::vector<float> to_solid = distance_to(mask.dims, solid);
  std::vector<std::uint8_t> classes(n, no_width_class);
  for (std::size_t i = 0; i < n; ++i) {
    if (mask.pore[i]) classes[i] = width_classes - 1;
  }
  // from the widest limit down, so that each voxel ends in the narrowest class it belongs to
  for (int c = width_classes - 2; c >= 0; --c) {
    const double h = (width_class_limits[c] + 1.0) / 2.0;  // ball centres: distance >= h
    std::vector<std::uint8_t> centre(n);
    for (std::size_t i = 0; i < n; ++i) centre[i] = mask.pore[i] && to_solid[i] >= h ? 1 : 0;
    const std::vector<float> to_centre = distance_to(mask.dims, centre);
    for (std::size_t i = 0; i < n; ++i) {
      if (mask.pore[i] && to_centre[i] > h - 0.5) classes[i] = static_cast<std::uint8_t>(c);
    }
  }
  return classes;
}

}  // namespace rockperm
