#include "lib/geometry/connectivity.hpp"

#include "lib/base/error.hpp"

namespace rockperm {

EdgeContacts parse_edge_contacts(const std::string& text) {
  if (text == "sealed") return EdgeContacts::sealed;
  if (text == "open") return EdgeContacts::open;
  throw InputError("edge contacts '" + text + "' are unknown; use open (the default) or sealed");
}

const char* to_string(EdgeContacts e) { return e == EdgeContacts::sealed ? "sealed" : "open"; }

}  // namespace rockperm
