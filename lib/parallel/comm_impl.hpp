#pragma once
// The primitives a Comm is built on, implemented once for one process (comm_serial.cpp) and
// once over an MPI communicator (comm_mpi.cpp). Rank-ordered reductions are composed from
// them in comm.cpp, so both behave alike.
#include <cstdint>
#include <memory>
#include <vector>

#include "lib/parallel/comm.hpp"  // and lib/base/uninitialized.hpp

namespace rockperm::parallel::detail {

// Transfers posted by CommImpl::start_exchange; wait() returns once all are done (at most once).
class PendingTransfers {
 public:
  virtual ~PendingTransfers() = default;
  virtual void wait() = 0;
};

class CommImpl {
 public:
  virtual ~CommImpl() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::shared_ptr<const CommImpl> split(int color, int key) const = 0;
  // Posts the transfers; nullptr when they are already done.
  virtual std::unique_ptr<PendingTransfers> start_exchange(const std::vector<Comm::Transfer>& sends,
                                                           const std::vector<Comm::Transfer>& receives) const = 0;
  // rank 0 receives size() * local.size() doubles in rank order (others: nothing)
  virtual std::vector<double> gather(const std::vector<double>& local) const = 0;
  virtual void broadcast(std::vector<double>& values) const = 0;  // same length on every rank
  virtual double allreduce(double local, bool maximum) const = 0;
  virtual std::uint64_t allreduce(std::uint64_t local) const = 0;
  virtual void allreduce(std::vector<std::int64_t>& values) const = 0;  // element-wise sum, in place
  virtual std::vector<std::uint8_t> gather_bytes(const std::vector<std::uint8_t>& local) const = 0;
  virtual int scatter(const std::vector<int>& values) const = 0;
  virtual void broadcast(std::vector<std::uint8_t>& bytes) const = 0;
  virtual void send_bytes(int peer, const std::uint8_t* bytes, std::size_t size) const = 0;
  virtual UninitializedBytes receive_bytes(int peer) const = 0;
  virtual void barrier() const = 0;
  [[noreturn]] virtual void abort(int code) const = 0;
  virtual bool cuda_aware() const = 0;
};

std::shared_ptr<const CommImpl> serial_comm();

}  // namespace rockperm::parallel::detail
