#pragma once
// Copying and zeroing large byte ranges on the threads, 4 MiB a chunk, each thread first touching
// the pages it writes (with lib/base/uninitialized.hpp's untouched storage). One thread copying a
// one-rank 2000^3 scan's 8 GB mask took 3-4 s of its preparation (docs/PERFORMANCE.md).
#include <algorithm>
#include <cstdint>
#include <cstring>

namespace rockperm {

namespace detail {
template <class Fn>
void each_chunk(std::uint64_t bytes, const Fn& fn) {
  constexpr std::uint64_t chunk = std::uint64_t{1} << 22;
  const auto chunks = static_cast<std::int64_t>((bytes + chunk - 1) / chunk);
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < chunks; ++k) {
    const std::uint64_t a = static_cast<std::uint64_t>(k) * chunk;
    fn(a, std::min(chunk, bytes - a));
  }
}
}  // namespace detail

inline void copy_on_threads(void* to, const void* from, std::uint64_t bytes) {
  detail::each_chunk(bytes, [&](std::uint64_t a, std::uint64_t n) {
    std::memcpy(static_cast<char*>(to) + a, static_cast<const char*>(from) + a, n);
  });
}

inline void zero_on_threads(void* to, std::uint64_t bytes) {
  detail::each_chunk(bytes, [&](std::uint64_t a, std::uint64_t n) { std::memset(static_cast<char*>(to) + a, 0, n); });
}

}  // namespace rockperm
