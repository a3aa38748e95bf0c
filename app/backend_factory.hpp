#pragma once
#include <memory>
#include <string>

#include "lib/backend.hpp"
#include "lib/config.hpp"
#include "lib/sparse_lattice.hpp"

namespace rockperm::app {

// Creates the backend the user asked for. `auto` takes the first CUDA device when one exists
// and the CPU otherwise; `note` says which was chosen and why.
std::unique_ptr<Backend> make_backend(config::BackendChoice choice, const SparseLattice& lattice,
                                      const physics::CollisionParams& params, std::string& note);

}  // namespace rockperm::app
