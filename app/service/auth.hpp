#pragma once
// Who is asking: bearer tokens, kept hashed (SHA-256) in a file only the service user may read.
// One line per token: "<name> <sha256 hex of the token>"; '#' starts a comment.
#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace rockperm::app::service {

class TokenStore {
 public:
  // Throws InputError when the file is missing, readable by group or others, or malformed.
  explicit TokenStore(const std::filesystem::path& file);
  // The token's name, or nothing for an unknown token.
  std::optional<std::string> owner(const std::string& token) const;
  std::size_t size() const { return by_hash_.size(); }

 private:
  std::map<std::string, std::string> by_hash_;  // hash -> name
};

// `bytes` random bytes (OpenSSL's generator) as lowercase hex: tokens and job ids.
std::string random_hex(int bytes);

// Makes a new random token for `name` (letters, digits, '_', '-', '.'), appends its hash to
// `file` (created 0600) and returns the token: shown once, never stored in clear.
std::string add_token(const std::filesystem::path& file, const std::string& name);

}  // namespace rockperm::app::service
