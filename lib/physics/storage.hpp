#pragma once
// Population storage: what one slot of the population array holds. Every computation is in
// float; a storage type says how a slot is read into float and written back. The per-cell
// functions (lib/lattice/propagation.hpp, lib/physics/flow_sums.hpp) and the backends are
// written over it, the halo buffers and messages are typed and sized from it, and the byte
// model (lib/backend/byte_model.hpp) counts its bytes. This build stores float; a half-precision
// type is the planned second one (its traits go here).
#include <cstddef>

#include "lib/base/hd.hpp"

namespace rockperm {

enum class Storage { float32 };

template <class S>
struct StorageTraits;

template <>
struct StorageTraits<float> {
  static constexpr Storage kind = Storage::float32;
  static ROCKPERM_HD float load(float s) { return s; }
  static ROCKPERM_HD float store(float v) { return v; }
};

// The storage of this build's backends.
using Population = float;

constexpr std::size_t storage_bytes(Storage s) { return s == Storage::float32 ? 4 : 0; }

}  // namespace rockperm
