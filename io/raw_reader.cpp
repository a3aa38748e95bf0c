#include "io/raw_reader.hpp"

#include <fstream>

#include "lib/error.hpp"

namespace rockperm::io {

Volume read_raw_u8(const std::filesystem::path& file, const Dims& dims, double voxel_size_um) {
  validate_dims(dims, file.string());
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    throw InputError(file.string() + ": no such file; check [input] file (relative paths are relative to the INI file)");
  }
  const std::uint64_t expected = dims.voxels();
  const std::uint64_t actual = std::filesystem::file_size(file, ec);
  if (ec) throw InputError(file.string() + ": cannot read its size (" + ec.message() + ")");
  if (actual != expected) {
    throw InputError(file.string() + ": holds " + std::to_string(actual) + " bytes but dims " + dims.str() +
                     " of uint8 need " + std::to_string(expected) + "; check [input] dims");
  }
  Volume v;
  v.dims = dims;
  v.voxel_size_um = voxel_size_um;
  v.labels.resize(expected);
  std::ifstream in(file, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(v.labels.data()), static_cast<std::streamsize>(expected))) {
    throw InputError(file.string() + ": read failed after " + std::to_string(in.gcount()) + " bytes");
  }
  return v;
}

}  // namespace rockperm::io
