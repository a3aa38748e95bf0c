#include "io/sha256.hpp"

#include <openssl/evp.h>

#include <fstream>
#include <vector>

#include "io/tiff_source.hpp"
#include "lib/base/error.hpp"

namespace rockperm::io {

struct Sha256::Context {
  EVP_MD_CTX* ctx = nullptr;
};

Sha256::Sha256() : context_(std::make_unique<Context>()) {
  context_->ctx = EVP_MD_CTX_new();
  if (!context_->ctx || EVP_DigestInit_ex(context_->ctx, EVP_sha256(), nullptr) != 1) {
    throw RuntimeFailure("libcrypto could not start a SHA-256 digest");
  }
}

Sha256::~Sha256() {
  if (context_ && context_->ctx) EVP_MD_CTX_free(context_->ctx);
}

void Sha256::update(const void* data, std::size_t bytes) {
  if (EVP_DigestUpdate(context_->ctx, data, bytes) != 1) throw RuntimeFailure("libcrypto: SHA-256 update failed");
}

std::string Sha256::hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(context_->ctx, digest, &length) != 1) throw RuntimeFailure("libcrypto: SHA-256 failed");
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += digits[digest[i] >> 4];
    out += digits[digest[i] & 15];
  }
  return out;
}

std::string sha256_hex(std::string_view text) {
  Sha256 h;
  h.update(text);
  return h.hex();
}

namespace {
void hash_file(Sha256& h, const std::filesystem::path& file, std::vector<char>& buffer) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError("sample.volume.path", file.string() + ": cannot be opened to hash it");
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    if (in.gcount() > 0) h.update(buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw InputError("sample.volume.path", file.string() + ": read error while hashing it");
}
}  // namespace

std::string hash_volume(const std::filesystem::path& path) {
  Sha256 h;
  std::vector<char> buffer(std::size_t{4} << 20);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    for (const auto& f : list_tiff_slices(path)) hash_file(h, f, buffer);  // the reader's slices, in its order
  } else {
    hash_file(h, path, buffer);
  }
  return h.hex();
}

}  // namespace rockperm::io
