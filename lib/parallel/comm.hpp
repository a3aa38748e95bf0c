#pragma once
// The process group of a run. Everything rockperm needs from MPI goes through Comm; its two
// implementations live in comm_serial.cpp (one process) and comm_mpi.cpp (an MPI communicator
// it owns), and MPI_COMM_WORLD appears in comm_mpi.cpp alone. A Comm can be split, so that a
// campaign runs samples on groups of ranks, and can agree on a failure, so that an error on
// one rank ends that sample on every rank of the group instead of the process.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lib/base/uninitialized.hpp"
#include "lib/physics/flow_sums.hpp"
#include "lib/physics/storage.hpp"

namespace rockperm::parallel {

// Whether an MPI launcher (mpirun/mpiexec of Open MPI, MPICH or Intel MPI, srun with PMI or
// PMIx) started this process, or ROCKPERM_MPI=1 asks for MPI. A process started on its own runs
// as one rank without MPI: an Open MPI singleton's MPI_Init starts a runtime daemon first, 0.4
// to 0.9 s of every single-process run (docs/PERFORMANCE.md).
bool launched_by_mpi();

// Initializes MPI for the life of the process (when built with MPI, and the process was started
// by an MPI launcher or ROCKPERM_MPI=1 asks for it); main() holds one.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

 private:
  bool owned_ = false;  // this session initialized MPI (and finalizes it)
};

namespace detail {
class CommImpl;        // comm_impl.hpp
class PendingTransfers;
}

class Comm {
 public:
  // One process on its own (also what a default-constructed Comm is).
  Comm();
  // Every process of the job: MPI_COMM_WORLD when built with MPI and initialized, else one.
  static Comm world();

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }

  // Ranks with the same `color` form a new communicator, ordered by `key` then rank.
  Comm split(int color, int key) const;

  // Non-blocking exchange of halo buffers (slots as stored, lib/physics/storage.hpp) with the
  // neighbours; returns when all are done.
  struct Transfer {
    int peer;
    int tag;
    void* data;
    std::size_t bytes;
  };
  void exchange(const std::vector<Transfer>& sends, const std::vector<Transfer>& receives) const;
  // The same exchange in two halves, so that a rank computes while its messages travel: start()
  // posts every transfer and returns, wait() returns once all are done. The buffers must stay
  // untouched in between. A started exchange that was not waited for is waited for when it ends.
  class Pending {
   public:
    Pending();
    explicit Pending(std::unique_ptr<detail::PendingTransfers> transfers);
    Pending(Pending&&) noexcept;
    Pending& operator=(Pending&&) noexcept;
    ~Pending();
    void wait();

   private:
    std::unique_ptr<detail::PendingTransfers> transfers_;
  };
  Pending start_exchange(const std::vector<Transfer>& sends, const std::vector<Transfer>& receives) const;

  // Sums over ranks in rank order (so the result does not depend on timing), on every rank.
  physics::FlowSums sum(const physics::FlowSums& local) const;
  double max(double local) const;
  double sum(double local) const;
  std::uint64_t sum(std::uint64_t local) const;
  // Element-wise, in rank order like FlowSums; every rank passes the same length.
  std::vector<double> sum(const std::vector<double>& local) const;
  // Element-wise integer sums (exact, so the same for any number of ranks).
  std::vector<std::int64_t> sum(const std::vector<std::int64_t>& local) const;

  // Rank 0 gets every rank's string, in rank order; other ranks get an empty list.
  std::vector<std::string> gather(const std::string& local) const;
  // Rank 0's values, one per rank, arrive at their ranks.
  int scatter(const std::vector<int>& values) const;
  void broadcast(std::vector<std::uint8_t>& bytes) const;  // from rank 0, resized on the others
  void send_bytes(int peer, const std::uint8_t* bytes, std::size_t size) const;
  template <class Bytes>
  void send_bytes(int peer, const Bytes& bytes) const {
    send_bytes(peer, bytes.data(), bytes.size());
  }
  UninitializedBytes receive_bytes(int peer) const;  // what send_bytes sent, on a buffer of its own
  // Every rank's bytes gathered on rank 0, concatenated in rank order.
  std::vector<std::uint8_t> gather_bytes(const std::vector<std::uint8_t>& local) const;
  void barrier() const;
  // Stops every process of the job after a fatal error that the ranks could not agree on
  // (MPI_Abort); without MPI, exits. Only main() calls it.
  [[noreturn]] void abort(int code) const;

  bool cuda_aware() const;  // the MPI library reports CUDA-aware support at run time

 private:
  explicit Comm(std::shared_ptr<const detail::CommImpl> impl);
  std::shared_ptr<const detail::CommImpl> impl_;
  int rank_ = 0;
  int size_ = 1;
};

// Runs `work` on every rank of `comm`, then lets the ranks agree: when it threw a rockperm
// Error on any rank, every rank throws (the lowest failing rank's message, its exit code, marked
// all_ranks) so that the caller can stop this sample on the whole group and go on. `work` must
// not itself communicate over `comm` after a rank may have failed.
void collectively(const Comm& comm, const std::function<void()>& work);

}  // namespace rockperm::parallel
