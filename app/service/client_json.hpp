#pragma once
// JSON texts from clients (request bodies, the options field, X-Rockperm-Options), parsed with a
// bound on their nesting: nothing deeper than options need is walked recursively later (a
// dump() of a value nested 100000 deep overflows the stack).
#include <nlohmann/json.hpp>
#include <string>

#include "app/service/http_server.hpp"

namespace rockperm::app::service {

inline constexpr int max_client_json_depth = 8;

// The value, or a discarded one when the text does not parse (the caller refuses it with its
// own message). Throws HttpError (400) naming `what` when it is nested deeper than the bound.
nlohmann::ordered_json parse_client_json(const std::string& text, const std::string& what);

}  // namespace rockperm::app::service
