#pragma once
// A large host array, left uninitialized and backed by transparent huge pages where the
// kernel offers them. The neighbour table of a 1000^3 rock is 11 GB: filling a std::vector
// first took 17 s of page faults on the 2-core machine; here the parallel loop that computes
// the entries touches each page once, and huge pages make 512 times fewer faults (4 s).
#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <utility>

namespace rockperm {

template <class T>
class HostArray {
 public:
  HostArray() = default;
  explicit HostArray(std::size_t n) : size_(n) {
    if (n == 0) return;
    constexpr std::size_t huge = std::size_t{1} << 21;
    const std::size_t bytes = (n * sizeof(T) + huge - 1) / huge * huge;
    void* p = std::aligned_alloc(huge, bytes);
    if (!p) throw std::bad_alloc();
    madvise(p, bytes, MADV_HUGEPAGE);  // advice only: without THP this is a plain allocation
    data_.reset(static_cast<T*>(p));
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }

 private:
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T[], Free> data_;
  std::size_t size_ = 0;
};

}  // namespace rockperm
