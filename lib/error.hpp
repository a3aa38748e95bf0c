#pragma once
// The typed errors of rockperm. main() catches rockperm::Error, prints what() as one line
// and exits non-zero; each kind maps to its own exit code so batch scripts can tell them apart.
#include <stdexcept>
#include <string>

namespace rockperm {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  virtual int exit_code() const { return 1; }
};

// Something the user supplied (file, option, geometry) is wrong; the message says what to do.
class InputError : public Error {
 public:
  using Error::Error;
  int exit_code() const override { return 2; }
};

// The simulation itself failed (divergence, mass drift, no convergence when that was required).
class SimulationError : public Error {
 public:
  using Error::Error;
  int exit_code() const override { return 3; }
};

// A CUDA or MPI call failed; carries the expression, file and line.
class RuntimeFailure : public Error {
 public:
  using Error::Error;
  int exit_code() const override { return 4; }
};

}  // namespace rockperm
