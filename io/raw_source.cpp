#include "io/raw_source.hpp"

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "lib/base/checked_size.hpp"
#include "lib/base/error.hpp"

namespace rockperm::io {

namespace {

class RawSource final : public SliceSource {
 public:
  explicit RawSource(const RawLayout& l) : layout_(l), in_(l.data_file, std::ios::binary) {
    info_.format = l.format;
    info_.dims = l.dims;
    info_.bytes_per_sample = l.bytes_per_sample;
    info_.voxel_size_um = l.voxel_size_um;
    const std::string name = l.data_file.string();
    if (l.bytes_per_sample != 1 && l.bytes_per_sample != 2) {
      throw InputError(name + ": samples of " + std::to_string(8 * l.bytes_per_sample) +
                       " bits are not supported; rockperm reads 8- and 16-bit unsigned labels");
    }
    geometry::validate_dims(l.dims, name);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(l.data_file, ec)) {
      throw InputError("sample.volume.path", name + ": no such file");
    }
    const std::uint64_t expected =
        checked_mul(l.dims.voxels(), static_cast<std::uint64_t>(l.bytes_per_sample), name + " size") + l.header_bytes;
    const std::uint64_t actual = std::filesystem::file_size(l.data_file, ec);
    if (actual != expected) {
      throw InputError(name + ": holds " + std::to_string(actual) + " bytes but " + l.dims.str() + " samples of " +
                       std::to_string(8 * l.bytes_per_sample) + " bits after a header of " +
                       std::to_string(l.header_bytes) + " bytes need " + std::to_string(expected) +
                       "; check the dimensions, the sample type and the header size");
    }
    if (!in_) throw InputError(name + ": cannot be opened for reading");
  }

  const VolumeInfo& info() const override { return info_; }

  void read_slice(std::int64_t z, std::int64_t x0, std::int64_t y0, std::int64_t sx, std::int64_t sy,
                  std::vector<std::uint16_t>& out) override {
    const geometry::Dims& d = layout_.dims;
    const int b = layout_.bytes_per_sample;
    out.resize(static_cast<std::size_t>(sx) * sy);
    // whole rows lie one after another in the file: one read for the slice (a 1000^3 scan took
    // a million reads of a row each); a crop across x reads row by row
    const bool whole_rows = x0 == 0 && sx == d.nx;
    const std::int64_t rows_per_read = whole_rows ? sy : 1;
    row_.resize(static_cast<std::size_t>(sx * rows_per_read) * b);
    for (std::int64_t y = 0; y < sy; y += rows_per_read) {
      const std::uint64_t offset = layout_.header_bytes + (d.linear(x0, y0 + y, z)) * static_cast<std::uint64_t>(b);
      in_.seekg(static_cast<std::streamoff>(offset));
      if (!in_.read(reinterpret_cast<char*>(row_.data()), static_cast<std::streamsize>(row_.size()))) {
        throw InputError(layout_.data_file.string() + ": read failed at byte " + std::to_string(offset) +
                         " (file truncated or unreadable)");
      }
      std::uint16_t* dst = out.data() + y * sx;
      const std::int64_t count = sx * rows_per_read;
      if (b == 1) {
        for (std::int64_t x = 0; x < count; ++x) dst[x] = row_[x];
      } else if (layout_.big_endian) {
        for (std::int64_t x = 0; x < count; ++x) dst[x] = static_cast<std::uint16_t>(row_[2 * x] << 8 | row_[2 * x + 1]);
      } else {
        for (std::int64_t x = 0; x < count; ++x) dst[x] = static_cast<std::uint16_t>(row_[2 * x + 1] << 8 | row_[2 * x]);
      }
    }
  }

 private:
  RawLayout layout_;
  VolumeInfo info_;
  std::ifstream in_;
  std::vector<std::uint8_t> row_;
};

std::string trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t\r"));
  s.erase(s.find_last_not_of(" \t\r") + 1);
  return s;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

geometry::Dims three_dims(const std::string& text, const std::string& file, const std::string& key) {
  std::istringstream in(text);
  geometry::Dims d;
  std::string rest;
  if (!(in >> d.nx >> d.ny >> d.nz) || (in >> rest)) {
    throw InputError(file + ": " + key + " '" + text + "' is not three sizes; rockperm reads 3-D volumes");
  }
  geometry::validate_dims(d, file);
  return d;
}

// Voxel size in um from spacings in millimetres (NRRD/MHD convention when no unit is given),
// required to be isotropic (the lattice is cubic).
double isotropic_um(const std::vector<double>& spacing_mm, const std::string& file) {
  if (spacing_mm.size() != 3 || !(spacing_mm[0] > 0)) {
    throw InputError("sample.volume.voxel_size_um", file + ": the voxel spacing is missing or not positive; give the voxel size");
  }
  for (const double s : spacing_mm) {
    if (std::abs(s - spacing_mm[0]) > 1e-6 * spacing_mm[0]) {
      throw InputError(file + ": voxels are not cubic (spacings " + std::to_string(spacing_mm[0]) + ", " +
                       std::to_string(spacing_mm[1]) + ", " + std::to_string(spacing_mm[2]) +
                       " mm); resample to cubic voxels first");
    }
  }
  return spacing_mm[0] * 1000.0;
}

std::vector<double> numbers(const std::string& text) {
  std::string cleaned = text;
  for (char& c : cleaned) {
    if (c == '(' || c == ')' || c == ',') c = ' ';
  }
  std::istringstream in(cleaned);
  std::vector<double> v;
  for (double x; in >> x;) v.push_back(x);
  return v;
}

}  // namespace

std::unique_ptr<SliceSource> open_raw(const RawLayout& layout) { return std::make_unique<RawSource>(layout); }

RawLayout parse_nrrd(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(name + ": no such file or not readable");
  std::string line;
  if (!std::getline(in, line) || line.rfind("NRRD000", 0) != 0) {
    throw InputError(name + ": not an NRRD file (the first line must start with NRRD000)");
  }
  RawLayout l;
  l.format = "nrrd";
  std::map<std::string, std::string> fields;
  bool blank_line = false;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty()) {
      blank_line = true;
      break;  // attached data starts after the blank line
    }
    if (line[0] == '#') continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) throw InputError(name + ": header line '" + line + "' has no ':'");
    std::string value = line.substr(colon + 1);
    if (!value.empty() && value[0] == '=') value.erase(0, 1);  // key:=value
    fields[lower(trim(line.substr(0, colon)))] = trim(value);
  }
  const auto need = [&](const std::string& key) {
    if (!fields.count(key)) throw InputError(name + ": the NRRD header has no '" + key + "' field");
    return fields[key];
  };
  if (need("dimension") != "3") throw InputError(name + ": dimension " + fields["dimension"] + " is not 3");
  l.dims = three_dims(need("sizes"), name, "sizes");
  const std::string type = lower(need("type"));
  if (type == "uchar" || type == "unsigned char" || type == "uint8" || type == "uint8_t") {
    l.bytes_per_sample = 1;
  } else if (type == "ushort" || type == "unsigned short" || type == "uint16" || type == "uint16_t" ||
             type == "unsigned short int") {
    l.bytes_per_sample = 2;
  } else {
    throw InputError(name + ": NRRD type '" + type + "' is not supported; rockperm reads uint8 and uint16 labels");
  }
  const std::string encoding = lower(need("encoding"));
  if (encoding != "raw") {
    throw InputError(name + ": NRRD encoding '" + encoding + "' is not supported; save it with raw encoding");
  }
  if (fields.count("endian")) l.big_endian = lower(fields["endian"]) == "big";
  if (fields.count("spacings")) {
    l.voxel_size_um = isotropic_um(numbers(fields["spacings"]), name);
  } else if (fields.count("space directions")) {
    const auto v = numbers(fields["space directions"]);
    if (v.size() == 9) l.voxel_size_um = isotropic_um({std::abs(v[0]), std::abs(v[4]), std::abs(v[8])}, name);
  }
  for (const char* key : {"line skip", "lineskip"}) {
    if (fields.count(key) && fields[key] != "0") {
      throw InputError(name + ": NRRD 'line skip' is not supported; save the data without lines to skip");
    }
  }
  // byte skip: N bytes after the header (attached) or at the start of the data file; -1: the
  // data are the file's last bytes
  long long byte_skip = 0;
  for (const char* key : {"byte skip", "byteskip"}) {
    if (fields.count(key)) byte_skip = std::stoll(fields[key]);
  }
  if (byte_skip < -1) throw InputError(name + ": NRRD 'byte skip' " + std::to_string(byte_skip) + " is not -1 or more");
  if (fields.count("data file") || fields.count("datafile")) {
    const std::string data = fields.count("data file") ? fields["data file"] : fields["datafile"];
    if (data.rfind("LIST", 0) == 0 || data.find('%') != std::string::npos) {
      throw InputError(name + ": NRRD data file lists and patterns are not supported; name one data file");
    }
    l.data_file = file.parent_path() / data;
    l.header_bytes = 0;
  } else {
    if (!blank_line) {
      throw InputError(name + ": the NRRD header ends without the blank line that starts the attached data, and "
                              "names no 'data file'; the file is truncated or not an NRRD file");
    }
    l.data_file = file;
    l.header_bytes = static_cast<std::uint64_t>(in.tellg());
  }
  if (byte_skip == -1) {
    std::error_code ec;
    const std::uint64_t size = std::filesystem::file_size(l.data_file, ec);
    const std::uint64_t data = l.dims.voxels() * static_cast<std::uint64_t>(l.bytes_per_sample);
    if (ec || size < l.header_bytes + data) {
      throw InputError(name + ": 'byte skip: -1' but the data file holds fewer than the " + std::to_string(data) +
                       " bytes the sizes need");
    }
    l.header_bytes = size - data;
  } else {
    l.header_bytes += static_cast<std::uint64_t>(byte_skip);
  }
  return l;
}

RawLayout parse_mhd(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::ifstream in(file);
  if (!in) throw InputError(name + ": no such file or not readable");
  RawLayout l;
  l.format = "mhd";
  std::map<std::string, std::string> fields;
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    fields[lower(trim(line.substr(0, eq)))] = trim(line.substr(eq + 1));
  }
  const auto need = [&](const std::string& key) {
    if (!fields.count(key)) throw InputError(name + ": the MetaImage header has no '" + key + "' field");
    return fields[key];
  };
  if (fields.count("ndims") && fields["ndims"] != "3") throw InputError(name + ": NDims is not 3");
  if (fields.count("compresseddata") && lower(fields["compresseddata"]) == "true") {
    throw InputError(name + ": compressed MetaImage data (CompressedData = True) is not supported; save it "
                            "uncompressed");
  }
  if (fields.count("elementnumberofchannels") && fields["elementnumberofchannels"] != "1") {
    throw InputError(name + ": " + fields["elementnumberofchannels"] +
                     " channels a voxel (ElementNumberOfChannels) are not supported; rockperm reads one label a voxel");
  }
  l.dims = three_dims(need("dimsize"), name, "DimSize");
  const std::string type = need("elementtype");
  if (type == "MET_UCHAR") {
    l.bytes_per_sample = 1;
  } else if (type == "MET_USHORT") {
    l.bytes_per_sample = 2;
  } else {
    throw InputError(name + ": ElementType " + type + " is not supported; rockperm reads MET_UCHAR and MET_USHORT");
  }
  for (const char* key : {"binarydatabyteordermsb", "elementbyteordermsb"}) {
    if (fields.count(key)) l.big_endian = lower(fields[key]) == "true";
  }
  if (fields.count("elementspacing")) l.voxel_size_um = isotropic_um(numbers(fields["elementspacing"]), name);
  const std::string data = need("elementdatafile");
  if (lower(data) == "local") throw InputError(name + ": data inside the header (LOCAL) is not supported; use a .raw file");
  l.data_file = file.parent_path() / data;
  if (fields.count("headersize")) {
    const long long h = std::stoll(fields["headersize"]);
    if (h < 0) throw InputError(name + ": HeaderSize -1 (auto) is not supported; give the header size in bytes");
    l.header_bytes = static_cast<std::uint64_t>(h);
  }
  return l;
}

}  // namespace rockperm::io
