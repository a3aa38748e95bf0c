#pragma once
// multipart/form-data (RFC 7578), what a browser's form or `curl -F` sends, parsed with GMime
// (a maintained MIME library) from the request body as the server spooled it to disk.
#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace rockperm::app::service {

// A body that is not well-formed multipart/form-data; the message says what is wrong.
struct MalformedMultipart : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct FormData {
  std::map<std::string, std::string> fields;    // the text fields (each at most 64 KiB)
  std::vector<std::filesystem::path> files;     // the file parts, written into the directory given
};

// The boundary of a Content-Type "multipart/form-data; boundary=..."; throws MalformedMultipart.
std::string form_boundary(const std::string& content_type);

// Splits `body` (the file holding the request body) into its fields and files; every file part
// is written to `dir` under `file_name(its filename)`, which returns the name to use or throws.
// Throws MalformedMultipart for a body that does not parse, has no part or lacks its end.
FormData parse_form_data(const std::filesystem::path& body, const std::string& content_type,
                         const std::filesystem::path& dir, std::string (*file_name)(const std::string&));

}  // namespace rockperm::app::service
