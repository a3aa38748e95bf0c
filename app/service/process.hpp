#pragma once
// How the server starts other programs (mpiexec for a job on several GPUs, the Slurm commands):
// without a shell, with the environment the process started with, no signal blocked or ignored.
#include <spawn.h>

#include <string>
#include <vector>

namespace rockperm::app::service {

// A command line of the server's configuration (service.mpiexec, slurm_launcher, slurm_options)
// as words split on white space: no shell, no quoting.
std::vector<std::string> command_words(const std::string& text);

// The environment the process was started with, taken before main() (and so before MPI_Init,
// which, in a process started without mpiexec, adds the variables of an MPI singleton that
// would make a child mpiexec believe it runs inside a job and fail).
const std::vector<std::string>& initial_environment();

// Starts `args` (args[0] found on PATH) with `files`' redirections and initial_environment(),
// with no signal blocked or ignored (the server's threads block and ignore some). Returns 0 and
// the child's pid, or posix_spawnp's error number.
int spawn(const std::vector<std::string>& args, const posix_spawn_file_actions_t& files, pid_t& pid);

}  // namespace rockperm::app::service
