#pragma once
// SHA-256 through OpenSSL's libcrypto (EVP interface): the identity of input volumes in reports
// and of the sample and physics a checkpoint belongs to.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace rockperm::io {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, std::size_t bytes);
  void update(std::string_view text) { update(text.data(), text.size()); }
  std::string hex();  // finishes; lowercase hexadecimal, 64 characters

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

std::string sha256_hex(std::string_view text);

// The hash of a volume's bytes, read in 4 MiB blocks: a file, or for a directory of slices the
// files ending in .tif/.tiff in natural name order, one after the other. Throws InputError
// (field sample.volume.path) when a file cannot be read.
std::string hash_volume(const std::filesystem::path& path);

}  // namespace rockperm::io
