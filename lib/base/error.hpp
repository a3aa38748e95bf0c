#pragma once
// The typed errors of rockperm. main() catches rockperm::Error, prints what() as one line
// and exits non-zero; each kind maps to its own exit code so batch scripts can tell them apart.
#include <stdexcept>
#include <string>
#include <utility>

namespace rockperm {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  virtual int exit_code() const { return 1; }
  // True when every rank of a run throws this same error (after a broadcast or from global
  // sums): then rank 0 alone reports it and no rank needs to abort the others.
  bool all_ranks = false;
};

template <class E>
E on_all_ranks(E e) {
  e.all_ranks = true;
  return e;
}

// Something the user supplied (file, option, geometry) is wrong; the message says what to do.
// `field` names the member of the library's specification that was rejected (for example
// "flow.tau" or "sample.volume.dims"), never a command-line option: a front end maps it to its
// own name for that setting. what() is the detail followed by " [field]".
class InputError : public Error {
 public:
  explicit InputError(const std::string& detail) : Error(detail), detail_(detail) {}
  InputError(const std::string& field, const std::string& detail)
      : Error(field.empty() ? detail : detail + " [" + field + "]"), field_(field), detail_(detail) {}
  int exit_code() const override { return 2; }
  const std::string& field() const { return field_; }
  const std::string& detail() const { return detail_; }

 private:
  std::string field_;
  std::string detail_;
};

// The sample needs more GPU memory than the ranks given hold: an input error of the run, which a
// campaign answers by running the sample again on more ranks.
class CapacityError : public InputError {
 public:
  using InputError::InputError;
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

// A result could not be written (disk full, file size limit, permissions); names the file.
class OutputError : public Error {
 public:
  using Error::Error;
  int exit_code() const override { return 7; }
};

// The problem as posed has no valid Darcy permeability: the pore space does not join inlet and
// outlet, nothing resists the flow, or the model or drive is outside its validity limits.
class PhysicsError : public Error {
 public:
  explicit PhysicsError(const std::string& detail, std::string reason = {})
      : Error(detail), reason_(std::move(reason)) {}
  int exit_code() const override { return 8; }
  // What made the problem invalid, as a code where one is named: "no_path" (the pore space does
  // not join inlet and outlet: k = 0 along the axis). Reports carry it as "reason".
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

// The exit codes of a run that ends without an exception.
inline constexpr int exit_not_converged = 5;
inline constexpr int exit_interrupted = 6;

// Rebuilds an error of the kind `exit_code` identifies (errors cross ranks as code and text;
// `field` is an input error's field, a physics error's reason).
[[noreturn]] inline void throw_error(int exit_code, const std::string& field, const std::string& detail) {
  switch (exit_code) {
    case 2: throw InputError(field, detail);
    case 3: throw SimulationError(detail);
    case 4: throw RuntimeFailure(detail);
    case 7: throw OutputError(detail);
    case 8: throw PhysicsError(detail, field);  // a physics error's field is its reason
    default: throw Error(detail);
  }
}

}  // namespace rockperm
