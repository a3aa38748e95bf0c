#include "lib/parallel/device_assignment.hpp"

#include <algorithm>
#include <map>

#include "lib/parallel/comm.hpp"
#include "lib/base/error.hpp"

namespace rockperm::parallel {

std::vector<int> assign_devices(const std::vector<std::string>& hostnames) {
  std::map<std::string, int> seen;
  std::vector<int> numbers;
  numbers.reserve(hostnames.size());
  for (const auto& h : hostnames) numbers.push_back(seen[h]++);
  return numbers;
}

std::vector<std::string> every_rank(const Comm& comm, const std::string& text) {
  std::vector<std::uint8_t> bytes;  // each text, then a 0
  for (const std::string& t : comm.gather(text)) {
    bytes.insert(bytes.end(), t.begin(), t.end());
    bytes.push_back(0);
  }
  comm.broadcast(bytes);
  std::vector<std::string> out;
  std::string t;
  for (const std::uint8_t b : bytes) {
    if (b) {
      t.push_back(static_cast<char>(b));
    } else {
      out.push_back(std::move(t));
      t.clear();
    }
  }
  return out;
}

int ranks_on_host(const Comm& comm, const std::string& hostname) {
  const std::vector<std::string> hosts = every_rank(comm, hostname);
  return static_cast<int>(std::count(hosts.begin(), hosts.end(), hostname));
}

void check_device_counts(const std::vector<std::string>& hostnames, const std::vector<int>& numbers,
                         const std::vector<int>& gpus_per_rank, bool host_rank) {
  std::map<std::string, int> ranks_on;
  for (const auto& h : hostnames) ++ranks_on[h];
  for (std::size_t r = 0; r < hostnames.size(); ++r) {
    if (numbers[r] > gpus_per_rank[r] || (numbers[r] == gpus_per_rank[r] && !host_rank)) {
      throw InputError("host " + hostnames[r] + " runs " + std::to_string(ranks_on[hostnames[r]]) +
                       " ranks but has " + std::to_string(gpus_per_rank[r]) + " usable GPU(s); start at most one rank per GPU there" +
                       (host_rank ? " and one for its cores" : "") + " (e.g. mpirun --map-by ppr:" +
                       std::to_string(std::max(1, gpus_per_rank[r]) + (host_rank ? 1 : 0)) + ":node" +
                       (host_rank ? "" : "; or one more with run.host_share = auto for the host's cores") + ")");
    }
  }
}

int assign_device(const Comm& comm, const std::string& hostname, int gpus_here, const std::vector<int>& devices,
                  std::string& log, bool host_rank) {
  const std::vector<std::string> hosts = comm.gather(hostname);
  const std::vector<std::string> counts = comm.gather(std::to_string(gpus_here));
  std::vector<int> numbers(comm.size(), 0);
  std::string error;
  if (comm.root()) {
    numbers = assign_devices(hosts);
    std::vector<int> gpus;
    for (const auto& c : counts) gpus.push_back(std::stoi(c));
    if (!devices.empty()) {
      for (int& g : gpus) g = static_cast<int>(devices.size());
    }
    try {
      check_device_counts(hosts, numbers, gpus, host_rank);
    } catch (const InputError& e) {
      error = e.what();
    }
    for (std::size_t r = 0; r < hosts.size(); ++r) {
      if (numbers[r] >= gpus[r]) {
        numbers[r] = -1;  // the host's cores
        log += "rank " + std::to_string(r) + " on " + hosts[r] + " -> the host's cores\n";
        continue;
      }
      const int device = devices.empty() ? numbers[r] : devices[std::min<std::size_t>(numbers[r], devices.size() - 1)];
      log += "rank " + std::to_string(r) + " on " + hosts[r] + " -> GPU " + std::to_string(device) + "\n";
    }
  }
  // everyone learns whether the assignment failed, so no rank runs on alone
  std::vector<std::uint8_t> message(error.begin(), error.end());
  comm.broadcast(message);
  if (!message.empty()) throw on_all_ranks(InputError(std::string(message.begin(), message.end())));
  const int number = comm.scatter(numbers);
  if (number < 0) return -1;
  return devices.empty() ? number : devices.at(number);
}

}  // namespace rockperm::parallel
