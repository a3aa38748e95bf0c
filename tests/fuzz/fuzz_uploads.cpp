// libFuzzer harness for what the service unpacks from a request: multipart/form-data bodies
// (GMime) and zip/tar archives (libarchive) with the service's limits. The first byte picks the
// parser, the rest is the body or the archive. Any exception other than the refusals
// (MalformedMultipart, rockperm::InputError), any crash or sanitizer report is a bug.
// Built and run by packaging/fuzz.sh.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include "app/service/multipart.hpp"
#include "app/service/uploads.hpp"
#include "io/archive.hpp"
#include "lib/base/error.hpp"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  static const fs::path dir = [] {
    auto d = fs::temp_directory_path() / ("rockperm_fuzz_uploads_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  const fs::path out = dir / "out";
  fs::remove_all(out);
  fs::create_directories(out);
  const fs::path input = dir / (data[0] % 2 == 0 ? "body" : "upload.zip");
  std::ofstream(input, std::ios::binary).write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  try {
    if (data[0] % 2 == 0) {
      rockperm::app::service::parse_form_data(input, "multipart/form-data; boundary=b0undary", out,
                                              [](const std::string& n) { return rockperm::app::service::upload_file_name(n); }, 64);
    } else {
      rockperm::io::unpack_archive(input, out, {1 << 20, 64});
    }
  } catch (const rockperm::app::service::MalformedMultipart&) {
  } catch (const rockperm::InputError&) {
  }
  return 0;
}
