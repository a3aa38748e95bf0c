#pragma once
// The process group of a run: MPI_COMM_WORLD when built with MPI, a single process otherwise.
// Everything rockperm needs from MPI goes through this class.
#include <cstdint>
#include <string>
#include <vector>

#include "lib/physics/flow_sums.hpp"

namespace rockperm {

// Initializes MPI for the life of the process (when built with MPI); main() holds one.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

class Comm {
 public:
  static Comm world();

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }

  // Non-blocking exchange of float buffers with the neighbours; returns when all are done.
  struct Transfer {
    int peer;
    int tag;
    float* data;
    std::size_t count;
  };
  void exchange(const std::vector<Transfer>& sends, const std::vector<Transfer>& receives) const;

  // Sums over ranks in rank order (so the result does not depend on timing), on every rank.
  FlowSums sum(const FlowSums& local) const;
  double max(double local) const;
  double sum(double local) const;
  std::uint64_t sum(std::uint64_t local) const;
  // Element-wise, in rank order like FlowSums; every rank passes the same length.
  std::vector<double> sum(const std::vector<double>& local) const;

  // Rank 0 gets every rank's string, in rank order; other ranks get an empty list.
  std::vector<std::string> gather(const std::string& local) const;
  // Rank 0's values, one per rank, arrive at their ranks.
  int scatter(const std::vector<int>& values) const;
  void broadcast(std::vector<std::uint8_t>& bytes) const;  // from rank 0, resized on the others
  void send_bytes(int peer, const std::vector<std::uint8_t>& bytes) const;
  std::vector<std::uint8_t> receive_bytes(int peer) const;
  // Every rank's bytes gathered on rank 0, concatenated in rank order.
  std::vector<std::uint8_t> gather_bytes(const std::vector<std::uint8_t>& local) const;
  void barrier() const;
  // Stops every rank after a fatal error on one (MPI_Abort); without MPI, exits.
  [[noreturn]] void abort(int code) const;

  bool cuda_aware() const;  // the MPI library reports CUDA-aware support at run time

 private:
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace rockperm
