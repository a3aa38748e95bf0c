#pragma once
// GPU choice of the core paper (Bikulov 2015, Algorithm 2): rank k gets device number =
// how many times its host name occurs among ranks 0..k-1.
#include <string>
#include <vector>

namespace rockperm::parallel {

class Comm;

// Device number of every rank, from every rank's host name (in rank order).
std::vector<int> assign_devices(const std::vector<std::string>& hostnames);

// Throws InputError naming the host when a rank's number is not below that host's GPU count
// (with `host_rank`: when it is above it; the one rank numbered as many as the GPUs runs on the
// host's cores, run.host_share).
void check_device_counts(const std::vector<std::string>& hostnames, const std::vector<int>& numbers,
                         const std::vector<int>& gpus_per_rank, bool host_rank = false);

// Every rank's `text` (its host name, say), in rank order, on every rank.
std::vector<std::string> every_rank(const Comm& comm, const std::string& text);
// How many ranks of `comm` run on this rank's host (`hostname`: this rank's).
int ranks_on_host(const Comm& comm, const std::string& hostname);

// Over the communicator: gathers host names and GPU counts on rank 0, assigns, checks, and
// returns this rank's device. `devices` (from --run.devices), when not empty, maps a rank's
// per-host number to a device index. `log` (rank 0 only) receives one line per rank. With
// `host_rank`, one rank beyond a host's GPUs gets -1: it runs on the host's cores.
int assign_device(const Comm& comm, const std::string& hostname, int gpus_here, const std::vector<int>& devices,
                  std::string& log, bool host_rank = false);

}  // namespace rockperm::parallel
