// Built without MPI: the world is one process.
#include "lib/parallel/comm_impl.hpp"

namespace rockperm::parallel {

MpiSession::MpiSession(int*, char***) {}
MpiSession::~MpiSession() = default;

Comm Comm::world() { return Comm(); }

}  // namespace rockperm::parallel
