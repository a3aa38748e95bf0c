#pragma once
// A std::vector whose resize and sized constructor leave new elements of a trivial type
// uninitialized (default-initialized) rather than zeroed: `resize(n)` touches no memory, so the
// parallel loop that fills the elements first touches each page, on all of a rank's threads.
// A serial zero-fill of a 2 GB slab mask (a 2000^3 scan on four ranks) cost about as much as the
// parallel work that then overwrote it. Ask for a value where one is meant: `resize(n, 0)`.
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace rockperm {

template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  using std::allocator<T>::allocator;
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

// A vector of T whose `resize(n)` leaves new elements uninitialized (above), and its bytes.
template <class T>
using Uninitialized = std::vector<T, DefaultInitAllocator<T>>;
using UninitializedBytes = Uninitialized<std::uint8_t>;

}  // namespace rockperm
