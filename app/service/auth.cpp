#include "app/service/auth.hpp"

#include <fcntl.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

#include "io/sha256.hpp"
#include "lib/base/error.hpp"

namespace rockperm::app::service {

namespace {
bool valid_name(const std::string& name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '-' || c == '.';
  });
}
}  // namespace

TokenStore::TokenStore(const std::filesystem::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    throw InputError("tokens file " + file.string() + ": missing; make one with rockperm serve --add-token NAME --tokens " +
                     file.string());
  }
  if (st.st_mode & (S_IRWXG | S_IRWXO)) {
    std::ostringstream mode;
    mode << std::oct << (st.st_mode & 0777);
    throw InputError("tokens file " + file.string() + ": group or others may read it (mode " + mode.str() +
                     "); run chmod 600 on it");
  }
  std::ifstream in(file);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name, hash, extra;
    fields >> name >> hash >> extra;
    if (!valid_name(name) || hash.size() != 64 || !extra.empty() ||
        !std::all_of(hash.begin(), hash.end(), [](unsigned char c) { return std::isxdigit(c); })) {
      throw InputError("tokens file " + file.string() + ", line " + std::to_string(n) +
                       ": expected '<name> <64 hex digits>' (make entries with rockperm serve --add-token)");
    }
    by_hash_[hash] = name;
  }
  if (by_hash_.empty()) {
    throw InputError("tokens file " + file.string() + ": no token; add one with rockperm serve --add-token NAME");
  }
}

std::optional<std::string> TokenStore::owner(const std::string& token) const {
  if (token.empty() || token.size() > 256) return std::nullopt;
  const auto it = by_hash_.find(io::sha256_hex(token));
  if (it == by_hash_.end()) return std::nullopt;
  return it->second;
}

std::string random_hex(int bytes) {
  std::vector<unsigned char> random(static_cast<std::size_t>(bytes));
  if (RAND_bytes(random.data(), bytes) != 1) throw RuntimeFailure("OpenSSL could not make random bytes");
  static const char* hex = "0123456789abcdef";
  std::string text;
  for (const unsigned char b : random) text += hex[b >> 4], text += hex[b & 15];
  return text;
}

std::string add_token(const std::filesystem::path& file, const std::string& name) {
  if (!valid_name(name)) {
    throw InputError("--add-token " + name + ": a name of letters, digits, '_', '-' or '.' (at most 64)");
  }
  const std::string token = "rp_" + random_hex(32);
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  if (fd < 0) throw InputError("tokens file " + file.string() + ": cannot be written");
  const std::string line = name + " " + io::sha256_hex(token) + "\n";
  const bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) throw OutputError("tokens file " + file.string() + ": the token could not be written");
  return token;
}

}  // namespace rockperm::app::service
