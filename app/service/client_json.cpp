#include "app/service/client_json.hpp"

namespace rockperm::app::service {

nlohmann::ordered_json parse_client_json(const std::string& text, const std::string& what) {
  using Json = nlohmann::ordered_json;
  bool too_deep = false;
  Json j = Json::parse(
      text,
      [&](int depth, Json::parse_event_t, Json&) {
        if (depth > max_client_json_depth) too_deep = true;
        return !too_deep;  // from there on, nothing is kept (the parser itself does not recurse)
      },
      false);
  if (too_deep) {
    throw HttpError{http::status::bad_request, what + " is nested more than " + std::to_string(max_client_json_depth) +
                                                   " levels deep; options are flat"};
  }
  return j;
}

}  // namespace rockperm::app::service
