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

// A form with more parts than the service takes (413).
struct TooManyParts : MalformedMultipart {
  using MalformedMultipart::MalformedMultipart;
};

// Text fields a form may hold besides its files ("options", "gpus" and a few a client adds).
inline constexpr std::uint64_t max_text_fields = 16;

struct FormData {
  std::map<std::string, std::string> fields;    // the text fields (each at most 64 KiB)
  std::vector<std::filesystem::path> files;     // the file parts, written into the directory given
};

// The boundary of a Content-Type "multipart/form-data; boundary=..."; throws MalformedMultipart.
std::string form_boundary(const std::string& content_type);

// The most files one multipart form may hold (whatever service.max_files allows an archive).
inline constexpr std::uint64_t max_form_files = 500;

// Splits `body` (the file holding the request body) into its fields and files; every file part
// is written to `dir` under `file_name(its filename)`, which returns the name to use or throws.
// Throws MalformedMultipart for a body that does not parse, has no part or lacks its end, and
// TooManyParts (counted before anything is parsed) beyond `max_files` files and max_text_fields.
FormData parse_form_data(const std::filesystem::path& body, const std::string& content_type,
                         const std::filesystem::path& dir, std::string (*file_name)(const std::string&),
                         std::uint64_t max_files);

}  // namespace rockperm::app::service
