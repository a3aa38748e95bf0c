#include "cuda/ipc_exchanger.hpp"

#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "cuda/cuda_check.hpp"
#include "cuda/device_buffer.hpp"
#include "lib/base/error.hpp"

namespace rockperm::cuda {

namespace {

// tags of the two zero-byte rounds, offset from the halo message's own tag
constexpr int free_tag = 1000, arrived_tag = 2000;

struct Record {  // what a receiver tells its peer about one of its receive buffers
  std::int32_t tag;
  std::uint64_t bytes;
  cudaIpcMemHandle_t handle;
};

// true on every rank when `failed` is false on every rank
bool all_ok(const parallel::Comm& comm, const std::string& failed) {
  return comm.sum(std::uint64_t{failed.empty() ? 0u : 1u}) == 0;
}

class IpcExchanger final : public parallel::HaloExchanger {
 public:
  // A copy within one device runs on its multiprocessors: a high priority lets it in ahead of
  // the interior's blocks (at the default one it waited for them, most of the step).
  explicit IpcExchanger(const parallel::Comm& comm) : comm_(comm), stream_(highest_stream_priority()) {}

  // The set-up in three steps, each agreed on by every rank before the next (a rank that
  // failed alone must not leave its peers waiting for its handles): export, send, open.
  bool set_up(const std::vector<parallel::Comm::Transfer>& receives, std::string& why) {
    std::map<int, std::vector<std::uint8_t>> mine;  // peer -> records of the buffers it fills
    std::set<int> peers;
    try {
      for (const auto& r : receives) {
        if (r.peer != comm_.rank()) peers.insert(r.peer);  // also for an empty buffer: the peer sends its records
        if (r.bytes == 0) continue;
        if (r.peer == comm_.rank()) {  // a slab that is its own neighbour (bench --loopback): no mapping
          remote_.emplace(std::make_pair(r.peer, static_cast<int>(r.tag)), Remote{std::nullopt, r.data, r.bytes});
          continue;
        }
        Record rec{r.tag, r.bytes, {}};
        ROCKPERM_CUDA_CHECK(cudaIpcGetMemHandle(&rec.handle, r.data));
        const auto* p = reinterpret_cast<const std::uint8_t*>(&rec);
        mine[r.peer].insert(mine[r.peer].end(), p, p + sizeof rec);
      }
    } catch (const Error& e) {
      why = e.what();
    }
    if (!all_ok(comm_, why)) return false;
    std::map<int, UninitializedBytes> theirs;
    for (const int peer : peers) {
      // the lower rank sends first, so that two blocking exchanges never wait on each other
      if (comm_.rank() < peer) {
        comm_.send_bytes(peer, mine[peer]);
        theirs[peer] = comm_.receive_bytes(peer);
      } else {
        theirs[peer] = comm_.receive_bytes(peer);
        comm_.send_bytes(peer, mine[peer]);
      }
    }
    try {
      for (const auto& [peer, bytes] : theirs) {
        for (std::size_t at = 0; at + sizeof(Record) <= bytes.size(); at += sizeof(Record)) {
          Record rec;
          std::memcpy(&rec, bytes.data() + at, sizeof rec);
          IpcMapping mapping(rec.handle);
          void* data = mapping.get();
          remote_.emplace(std::make_pair(peer, static_cast<int>(rec.tag)), Remote{std::move(mapping), data, rec.bytes});
        }
      }
    } catch (const Error& e) {
      why = e.what();
    }
    return all_ok(comm_, why);
  }

  void exchange(const std::vector<parallel::Comm::Transfer>& sends,
                const std::vector<parallel::Comm::Transfer>& receives) override {
    comm_.exchange(tokens(receives, free_tag), tokens(sends, free_tag));
    for (const auto& s : sends) {
      if (s.bytes == 0) continue;
      const auto found = remote_.find({s.peer, s.tag});
      if (found == remote_.end() || found->second.bytes < s.bytes) {
        throw Error("internal: no IPC receive buffer of rank " + std::to_string(s.peer) + " for tag " +
                    std::to_string(s.tag));
      }
      ROCKPERM_CUDA_CHECK(cudaMemcpyAsync(found->second.data, s.data, s.bytes, cudaMemcpyDefault, stream_.get()));
    }
    stream_.synchronize();
    comm_.exchange(tokens(sends, arrived_tag), tokens(receives, arrived_tag));
  }

 private:
  // a zero-byte message to (or from) the peer of every transfer, tagged after it
  std::vector<parallel::Comm::Transfer> tokens(const std::vector<parallel::Comm::Transfer>& transfers, int offset) {
    std::vector<parallel::Comm::Transfer> t;
    for (const auto& x : transfers) t.push_back({x.peer, x.tag + offset, &token_, 0});
    return t;
  }

  struct Remote {
    std::optional<IpcMapping> mapping;  // none for this rank's own buffer
    void* data;                         // where the copy goes
    std::uint64_t bytes;
  };
  parallel::Comm comm_;
  std::map<std::pair<int, int>, Remote> remote_;  // (peer, tag) -> the peer's receive buffer
  Stream stream_;
  std::uint8_t token_ = 0;
};

}  // namespace

std::unique_ptr<parallel::HaloExchanger> make_ipc_exchanger(const parallel::Comm& comm,
                                                            const std::vector<parallel::Comm::Transfer>& receives,
                                                            std::string& why) {
  auto exchanger = std::make_unique<IpcExchanger>(comm);
  if (exchanger->set_up(receives, why)) return exchanger;
  if (why.empty()) why = "CUDA IPC failed on another rank";
  return nullptr;
}

}  // namespace rockperm::cuda
