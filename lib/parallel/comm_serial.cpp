// A Comm of one process: every message goes to itself.
#include <cstdlib>
#include <cstring>

#include "lib/base/error.hpp"
#include "lib/parallel/comm_impl.hpp"

namespace rockperm::parallel::detail {

namespace {

class SerialComm final : public CommImpl {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::shared_ptr<const CommImpl> split(int, int) const override { return serial_comm(); }
  std::unique_ptr<PendingTransfers> start_exchange(const std::vector<Comm::Transfer>& sends,
                                                   const std::vector<Comm::Transfer>& receives) const override {
    // match sends to receives by tag
    for (const auto& r : receives) {
      for (const auto& s : sends) {
        if (s.tag == r.tag) {
          if (s.bytes != r.bytes) throw Error("internal: self-exchange of mismatched sizes");
          std::memcpy(r.data, s.data, s.bytes);
        }
      }
    }
    return nullptr;
  }
  std::vector<double> gather(const std::vector<double>& local) const override { return local; }
  void broadcast(std::vector<double>&) const override {}
  double allreduce(double local, bool) const override { return local; }
  std::uint64_t allreduce(std::uint64_t local) const override { return local; }
  void allreduce(std::vector<std::int64_t>&) const override {}
  std::vector<std::uint8_t> gather_bytes(const std::vector<std::uint8_t>& local) const override { return local; }
  int scatter(const std::vector<int>& values) const override { return values.at(0); }
  void broadcast(std::vector<std::uint8_t>&) const override {}
  void send_bytes(int, const std::uint8_t*, std::size_t) const override {
    throw Error("internal: send_bytes on a single process");
  }
  UninitializedBytes receive_bytes(int) const override {
    throw Error("internal: receive_bytes on a single process");
  }
  void barrier() const override {}
  [[noreturn]] void abort(int code) const override { std::exit(code); }
  bool cuda_aware() const override { return false; }
};

}  // namespace

std::shared_ptr<const CommImpl> serial_comm() {
  static const std::shared_ptr<const CommImpl> one = std::make_shared<SerialComm>();
  return one;
}

}  // namespace rockperm::parallel::detail
