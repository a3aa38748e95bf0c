#include "app/service/uploads.hpp"

#include <algorithm>
#include <cctype>

#include "lib/base/error.hpp"

namespace rockperm::app::service {

namespace fs = std::filesystem;

namespace {

std::string lower_extension(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

}  // namespace

std::string upload_file_name(const std::string& given) {
  // browsers send the base name; other clients may send a path, of either kind of separator
  std::string name = given.substr(given.find_last_of("/\\") == std::string::npos ? 0 : given.find_last_of("/\\") + 1);
  for (char& c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) && c != '.' && c != '_' && c != '-') c = '_';
  }
  if (name.size() > 200) name = name.substr(name.size() - 200);
  if (name.empty() || name == "." || name == ".." || name.find_first_not_of('.') == std::string::npos) {
    throw InputError("an uploaded file has no usable name ('" + given + "')");
  }
  return name;
}

fs::path unpack_upload(const fs::path& dir, const std::vector<fs::path>& files, const io::UnpackLimits& limits) {
  std::vector<fs::path> all;
  io::UnpackLimits left = limits;
  for (const fs::path& f : files) {
    if (!io::is_archive_name(f)) {
      all.push_back(f);
      continue;
    }
    std::string hidden = f.filename().string();  // a folder the scan is not looked for in
    hidden.insert(0, 1, '.');
    const fs::path into = dir / (hidden + ".d");
    fs::create_directory(into);
    const std::vector<fs::path> unpacked = io::unpack_archive(f, into, left);
    for (const fs::path& u : unpacked) {
      if (fs::exists(dir / u.filename())) throw InputError(u.filename().string() + " is uploaded twice");
      fs::rename(u, dir / u.filename());
      all.push_back(dir / u.filename());
      if (left.max_bytes != 0) left.max_bytes -= std::min(left.max_bytes, static_cast<std::uint64_t>(fs::file_size(dir / u.filename())));
      if (left.max_files != 0) left.max_files -= std::min<std::uint64_t>(left.max_files, 1);
    }
    fs::remove_all(into);
    fs::remove(f);
  }
  return pick_scan(dir, all);
}

fs::path pick_scan(const fs::path& dir, const std::vector<fs::path>& files) {
  // a table an option names (input.grey_labels = @table.csv) may come in the same upload: it is
  // no part of the scan
  std::vector<fs::path> all;
  for (const fs::path& f : files) {
    if (lower_extension(f) != ".csv") all.push_back(f);
  }
  std::vector<fs::path> headers, tiffs;
  for (const fs::path& f : all) {
    const std::string ext = lower_extension(f);
    if (ext == ".nrrd" || ext == ".nhdr" || ext == ".mhd" || ext == ".mha") headers.push_back(f);
    if (ext == ".tif" || ext == ".tiff") tiffs.push_back(f);
  }
  const auto names = [](const std::vector<fs::path>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size() && i < 5; ++i) s += (i ? ", " : "") + v[i].filename().string();
    return s + (v.size() > 5 ? ", ..." : "");
  };
  if (headers.size() == 1) return headers.front();
  if (headers.size() > 1) throw InputError("the upload holds several headers (" + names(headers) + "); send one scan a job");
  if (tiffs.size() == 1 && all.size() == 1) return tiffs.front();
  if (tiffs.size() > 1 && tiffs.size() == all.size()) return dir;  // a stack of slices
  if (all.size() == 1) return all.front();
  if (all.empty()) throw InputError(files.empty() ? "the upload holds no file" : "the upload holds no scan, only tables (.csv)");
  throw InputError("the upload holds " + std::to_string(all.size()) + " files (" + names(all) +
                   "), which are not one scan: send one raw or TIFF file, an NRRD or MHD header with its data file, "
                   "or TIFF slices (all .tif), and beside it any .csv table an option names");
}

void check_scan(const io::VolumeSpec& volume, std::uint64_t max_voxels) {
  const auto source = io::open_volume(volume);
  const geometry::Dims d = source->info().dims;
  // a raw file has no header to say its voxel size: refused now, not when the job runs
  if (!(volume.voxel_size_um > 0) && !(source->info().voxel_size_um > 0)) {
    throw InputError("sample.volume.voxel_size_um", volume.path.filename().string() +
                                                        ": the voxel size is unknown (the file does not say it); give "
                                                        "input.voxel_size_um in micrometres");
  }
  const io::Crop crop = io::resolve_crop(volume.crop, d, volume.path.filename().string());
  const std::uint64_t voxels = geometry::Dims{crop.size[0], crop.size[1], crop.size[2]}.voxels();
  if (max_voxels != 0 && voxels > max_voxels) {
    throw InputError(volume.path.filename().string() + ": " + d.str() + " voxels (" + std::to_string(voxels) +
                     " after the crop) exceed this service's max_voxels = " + std::to_string(max_voxels) +
                     "; crop it (input.crop_offset, input.crop_size) or ask the service's operator");
  }
}

}  // namespace rockperm::app::service
