#include "lib/geometry/connectivity.hpp"

#include "lib/base/error.hpp"

namespace rockperm::geometry {

EdgeContacts parse_edge_contacts(const std::string& text) {
  if (const auto e = value_in(edge_contact_names, text)) return *e;
  throw InputError("edge contacts '" + text + "' are unknown; use open (the default) or sealed");
}

const char* to_string(EdgeContacts e) { return name_in(edge_contact_names, e); }

}  // namespace rockperm::geometry
