#pragma once
// Small facts of the running system, and a stream's whole text: one definition each for the
// provenance, the campaign, the service and the tensor (issue 35, "each rule once").
#include <unistd.h>

#include <ctime>
#include <istream>
#include <iterator>
#include <string>

namespace rockperm {

// Now in UTC, ISO 8601 to the second: 2026-11-26T01:56:17Z.
inline std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

// This host's name (empty where the system gives none).
inline std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return {};
  return name;
}

// Everything left in `in`, as it is.
inline std::string read_all_text(std::istream& in) {
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace rockperm
