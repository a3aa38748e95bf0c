// libFuzzer harness for the volume readers (TIFF through libtiff, NRRD, MetaImage, raw).
// The first byte picks the reader, the rest is the file. Any exception other than
// rockperm::InputError, any crash or sanitizer report is a bug.
// Built and run by packaging/fuzz.sh (clang, -fsanitize=fuzzer,address,undefined).
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include "io/volume_source.hpp"
#include "lib/base/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("rockperm_fuzz_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  static const char* names[] = {"input.tif", "input.nrrd", "input.mhd", "input.raw"};
  const int kind = data[0] % 4;
  rockperm::io::VolumeSpec spec;
  spec.path = dir / names[kind];
  spec.voxel_size_um = 1.0;
  spec.max_voxels = 1u << 20;  // a corrupt header may claim gigavoxels; do not allocate them
  if (kind == 3) {
    spec.dims = rockperm::geometry::Dims{1 + data[1] % 16, 1 + data[2] % 16, 1 + data[3] % 16};
    spec.bytes_per_sample = 1 + (data[1] >> 7);
    spec.big_endian = (data[2] >> 7) != 0;
    spec.header_bytes = data[3] >> 5;
    spec.crop.offset = {data[1] % 3, 0, data[3] % 2};
  }
  {
    std::ofstream out(spec.path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  }
  try {
    (void)rockperm::io::load_pore_mask(spec, rockperm::geometry::LabelSelection::parse("0-127"));
  } catch (const rockperm::InputError&) {
    // a clear message for a bad file is the expected outcome
  }
  return 0;
}
