#include "cuda/host_split_exchanger.hpp"

#include <utility>

#include "cuda/ipc_exchanger.hpp"
#include "cuda/nccl_exchanger.hpp"

namespace rockperm::cuda {

namespace {

class HostSplitExchanger final : public parallel::HaloExchanger {
 public:
  HostSplitExchanger(std::unique_ptr<parallel::HaloExchanger> ipc, std::unique_ptr<parallel::HaloExchanger> nccl,
                     std::vector<bool> same_host)
      : ipc_(std::move(ipc)), nccl_(std::move(nccl)), same_host_(std::move(same_host)) {}

  void exchange(const std::vector<parallel::Comm::Transfer>& sends,
                const std::vector<parallel::Comm::Transfer>& receives) override {
    const auto [local_sends, remote_sends] = split(sends);
    const auto [local_receives, remote_receives] = split(receives);
    ipc_->exchange(local_sends, local_receives);
    nccl_->exchange(remote_sends, remote_receives);
  }

 private:
  std::pair<std::vector<parallel::Comm::Transfer>, std::vector<parallel::Comm::Transfer>> split(
      const std::vector<parallel::Comm::Transfer>& transfers) const {
    std::pair<std::vector<parallel::Comm::Transfer>, std::vector<parallel::Comm::Transfer>> out;
    for (const auto& t : transfers) (same_host_[static_cast<std::size_t>(t.peer)] ? out.first : out.second).push_back(t);
    return out;
  }

  std::unique_ptr<parallel::HaloExchanger> ipc_, nccl_;
  std::vector<bool> same_host_;  // of every rank: on this rank's host
};

}  // namespace

std::unique_ptr<parallel::HaloExchanger> make_host_split_exchanger(const parallel::Comm& comm,
                                                                   const std::vector<parallel::Comm::Transfer>& receives,
                                                                   const std::vector<std::string>& hosts,
                                                                   std::string& why) {
  std::vector<bool> same_host(hosts.size());
  for (std::size_t r = 0; r < hosts.size(); ++r) same_host[r] = hosts[r] == hosts[static_cast<std::size_t>(comm.rank())];
  std::vector<parallel::Comm::Transfer> local;
  for (const auto& r : receives)
    if (same_host[static_cast<std::size_t>(r.peer)]) local.push_back(r);
  auto ipc = make_ipc_exchanger(comm, local, why);  // collective: every rank, with or without a peer on its host
  if (!ipc) return nullptr;
  auto nccl = make_nccl_exchanger(comm, why);
  if (!nccl) return nullptr;
  return std::make_unique<HostSplitExchanger>(std::move(ipc), std::move(nccl), std::move(same_host));
}

}  // namespace rockperm::cuda
