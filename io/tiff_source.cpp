#include "io/tiff_source.hpp"

#include <tiffio.h>

#include <algorithm>
#include <cctype>
#include <cstdarg>
#include <cstring>
#include <sys/stat.h>

#include "lib/base/error.hpp"

namespace rockperm::io {

namespace {

// libtiff reports through global handlers; keep the last message for our own error text
// instead of letting it print to stderr.
thread_local std::string last_tiff_message;

void capture_tiff_message(const char* module, const char* fmt, va_list args) {
  char text[512];
  std::vsnprintf(text, sizeof text, fmt, args);
  last_tiff_message = (module ? std::string(module) + ": " : std::string()) + text;
}

void install_handlers() {
  static const bool installed = [] {
    TIFFSetErrorHandler(capture_tiff_message);
    TIFFSetWarningHandler(nullptr);
    return true;
  }();
  (void)installed;
}

struct TiffCloser {
  void operator()(TIFF* t) const {
    if (t) TIFFClose(t);
  }
};
using TiffPtr = std::unique_ptr<TIFF, TiffCloser>;

TiffPtr open_tiff(const std::filesystem::path& file) {
  install_handlers();
  last_tiff_message.clear();
  TIFF* t = TIFFOpen(file.string().c_str(), "r");
  if (!t) {
    throw InputError(file.string() + ": not a readable TIFF file" +
                     (last_tiff_message.empty() ? std::string() : " (" + last_tiff_message + ")"));
  }
  return TiffPtr(t);
}

// The current page's strips (or tiles) must lie inside the file: a truncated file, or a header
// that declares more than the file holds, is refused before anything of its size is allocated.
void check_data_within_file(TIFF* t, const std::string& where) {
  const int fd = TIFFFileno(t);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0) return;
  const auto size = static_cast<std::uint64_t>(st.st_size);
  const bool tiled = TIFFIsTiled(t) != 0;
  const std::uint64_t pieces = tiled ? TIFFNumberOfTiles(t) : TIFFNumberOfStrips(t);
  std::uint64_t* offsets = nullptr;
  std::uint64_t* counts = nullptr;
  if (!TIFFGetField(t, tiled ? TIFFTAG_TILEOFFSETS : TIFFTAG_STRIPOFFSETS, &offsets) ||
      !TIFFGetField(t, tiled ? TIFFTAG_TILEBYTECOUNTS : TIFFTAG_STRIPBYTECOUNTS, &counts) || !offsets || !counts) {
    throw InputError(where + ": the page names no image data (no strip or tile offsets); the file is damaged");
  }
  for (std::uint64_t i = 0; i < pieces; ++i) {
    if (counts[i] > size || offsets[i] > size - counts[i]) {
      throw InputError(where + ": its image data (bytes " + std::to_string(offsets[i]) + " to " +
                       std::to_string(offsets[i] + counts[i]) + ") lies beyond the end of the file (" +
                       std::to_string(size) + " bytes); the file is truncated or damaged");
    }
  }
  // uncompressed, each strip or tile holds exactly its rows' bytes: fewer, and libtiff would read
  // the rest as whatever follows (or zeros) without a word
  std::uint16_t compression = COMPRESSION_NONE;
  TIFFGetFieldDefaulted(t, TIFFTAG_COMPRESSION, &compression);
  if (compression != COMPRESSION_NONE) return;
  std::uint32_t height = 0, rows_per_strip = 0;
  TIFFGetField(t, TIFFTAG_IMAGELENGTH, &height);
  TIFFGetFieldDefaulted(t, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
  for (std::uint64_t i = 0; i < pieces; ++i) {
    std::uint64_t needed = 0;
    if (tiled) {
      needed = static_cast<std::uint64_t>(TIFFTileSize64(t));
    } else {
      const std::uint64_t first = i * static_cast<std::uint64_t>(rows_per_strip);
      const std::uint64_t rows = first >= height ? 0 : std::min<std::uint64_t>(rows_per_strip, height - first);
      needed = static_cast<std::uint64_t>(TIFFVStripSize64(t, static_cast<std::uint32_t>(rows)));
    }
    if (counts[i] < needed) {
      throw InputError(where + ": " + (tiled ? "tile " : "strip ") + std::to_string(i) + " holds " +
                       std::to_string(counts[i]) + " bytes of image data where its " +
                       (tiled ? "pixels need " : "rows need ") + std::to_string(needed) +
                       " (StripByteCounts/TileByteCounts); the file is truncated or damaged: write it again");
    }
  }
}

struct PageFormat {
  std::uint32_t width = 0, height = 0;
  int bytes = 1;
  bool tiled = false;
  std::uint32_t tile_w = 0, tile_h = 0;
};

// The layout of the current page; throws InputError for what rockperm cannot read.
PageFormat page_format(TIFF* t, const std::string& where) {
  PageFormat f;
  std::uint16_t bits = 0, samples = 1, format = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG;
  TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &f.width);
  TIFFGetField(t, TIFFTAG_IMAGELENGTH, &f.height);
  TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, &bits);
  TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &samples);
  TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLEFORMAT, &format);
  TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &planar);
  if (f.width == 0 || f.height == 0 || f.width > 65535 || f.height > 65535) {
    throw InputError(where + ": image size " + std::to_string(f.width) + " x " + std::to_string(f.height) +
                     " is outside 1..65535");
  }
  if (samples != 1) {
    throw InputError(where + ": " + std::to_string(samples) +
                     " samples per pixel (RGB or similar); rockperm needs single-channel label images");
  }
  if (format == SAMPLEFORMAT_IEEEFP) {
    throw InputError(where + ": floating-point samples; rockperm needs a segmented (integer label) volume");
  }
  if (format != SAMPLEFORMAT_UINT && format != SAMPLEFORMAT_VOID) {
    throw InputError(where + ": signed samples; convert the labels to unsigned 8- or 16-bit");
  }
  if (bits != 8 && bits != 16) {
    throw InputError(where + ": " + std::to_string(bits) + "-bit samples; rockperm reads 8- and 16-bit labels");
  }
  f.bytes = bits / 8;
  f.tiled = TIFFIsTiled(t) != 0;
  if (f.tiled) {
    TIFFGetField(t, TIFFTAG_TILEWIDTH, &f.tile_w);
    TIFFGetField(t, TIFFTAG_TILELENGTH, &f.tile_h);
    if (f.tile_w == 0 || f.tile_h == 0) throw InputError(where + ": tiled image without a tile size");
  }
  check_data_within_file(t, where);
  return f;
}

std::uint16_t sample_at(const std::uint8_t* row, std::int64_t x, int bytes) {
  if (bytes == 1) return row[x];
  std::uint16_t v;
  std::memcpy(&v, row + 2 * x, 2);  // libtiff returns samples in host byte order
  return v;
}

// Reads the crop window of the current page into out (x fastest).
void read_page(TIFF* t, const PageFormat& f, const std::string& where, std::int64_t x0, std::int64_t y0,
               std::int64_t sx, std::int64_t sy, std::vector<std::uint16_t>& out, std::vector<std::uint8_t>& buf) {
  out.resize(static_cast<std::size_t>(sx) * sy);
  const auto fail = [&](const std::string& what) {
    throw InputError(where + ": " + what + (last_tiff_message.empty() ? "" : " (" + last_tiff_message + ")") +
                     "; the file may be truncated or damaged");
  };
  if (f.tiled) {
    buf.resize(static_cast<std::size_t>(TIFFTileSize(t)));
    for (std::uint32_t ty = static_cast<std::uint32_t>(y0 / f.tile_h) * f.tile_h; ty < y0 + sy; ty += f.tile_h) {
      for (std::uint32_t tx = static_cast<std::uint32_t>(x0 / f.tile_w) * f.tile_w; tx < x0 + sx; tx += f.tile_w) {
        if (TIFFReadTile(t, buf.data(), tx, ty, 0, 0) < 0) fail("tile read failed");
        for (std::uint32_t j = 0; j < f.tile_h; ++j) {
          const std::int64_t y = static_cast<std::int64_t>(ty) + j;
          if (y < y0 || y >= y0 + sy) continue;
          const std::uint8_t* row = buf.data() + static_cast<std::size_t>(j) * f.tile_w * f.bytes;
          for (std::uint32_t i = 0; i < f.tile_w; ++i) {
            const std::int64_t x = static_cast<std::int64_t>(tx) + i;
            if (x < x0 || x >= x0 + sx) continue;
            out[(y - y0) * sx + (x - x0)] = sample_at(row, i, f.bytes);
          }
        }
      }
    }
    return;
  }
  buf.resize(static_cast<std::size_t>(TIFFScanlineSize(t)));
  if (buf.size() < static_cast<std::size_t>(f.width) * f.bytes) fail("scanline shorter than the image width");
  // scanlines are read in order from the top: compressed strips cannot be entered midway
  for (std::int64_t y = 0; y < y0 + sy; ++y) {
    if (TIFFReadScanline(t, buf.data(), static_cast<std::uint32_t>(y), 0) < 0) fail("row " + std::to_string(y) + " unreadable");
    if (y < y0) continue;
    for (std::int64_t x = 0; x < sx; ++x) out[(y - y0) * sx + x] = sample_at(buf.data(), x0 + x, f.bytes);
  }
}

// Slices named <prefix><number><suffix> with one prefix and suffix must number consecutively:
// a missing slice would otherwise shorten the volume by a plane without a word.
void check_consecutive_slices(const std::vector<std::filesystem::path>& files) {
  std::string prefix, suffix;
  long long previous = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string name = files[i].filename().string();
    const std::size_t end = name.find_last_of("0123456789");
    if (end == std::string::npos) return;  // not numbered: natural name order is all there is
    std::size_t begin = end;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(name[begin - 1]))) --begin;
    if (end - begin >= 18) return;
    const long long number = std::stoll(name.substr(begin, end - begin + 1));
    if (i == 0) {
      prefix = name.substr(0, begin);
      suffix = name.substr(end + 1);
    } else if (name.substr(0, begin) != prefix || name.substr(end + 1) != suffix) {
      return;  // differently named files: no numbering to check
    } else if (number != previous + 1) {
      throw InputError("sample.volume.path", files[i].parent_path().string() + ": slice number " +
                                                 std::to_string(previous + 1) + " is missing (" +
                                                 files[i - 1].filename().string() + " is followed by " + name +
                                                 "); the volume would lose a plane");
    }
    previous = number;
  }
}

}  // namespace

std::vector<std::filesystem::path> list_tiff_slices(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::string ext = entry.path().extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    if (ext != ".tif" && ext != ".tiff") continue;
    std::error_code sec;
    if (entry.is_symlink(sec) && !std::filesystem::exists(entry.path(), sec)) {
      throw InputError("sample.volume.path", entry.path().string() +
                                                 ": a symbolic link to a slice that does not exist; the volume would "
                                                 "lose a plane");
    }
    if (!entry.is_regular_file(sec)) {
      throw InputError("sample.volume.path", entry.path().string() + ": not a regular file (a pipe, socket or device)");
    }
    files.push_back(entry.path());
  }
  if (ec) throw InputError(dir.string() + ": cannot list the directory (" + ec.message() + ")");
  if (files.empty()) throw InputError(dir.string() + ": holds no .tif or .tiff slices");
  std::sort(files.begin(), files.end(),
            [](const auto& a, const auto& b) { return natural_less(a.filename().string(), b.filename().string()); });
  check_consecutive_slices(files);
  return files;
}

namespace {

class TiffDirectorySource final : public SliceSource {
 public:
  explicit TiffDirectorySource(const std::filesystem::path& dir) : files_(list_tiff_slices(dir)) {
    // every slice must match the first: check the headers now, before any data is read
    for (std::size_t z = 0; z < files_.size(); ++z) {
      TiffPtr t = open_tiff(files_[z]);
      const PageFormat f = page_format(t.get(), files_[z].string());
      if (z == 0) {
        first_ = f;
      } else if (f.width != first_.width || f.height != first_.height || f.bytes != first_.bytes) {
        throw InputError(files_[z].string() + ": slice is " + std::to_string(f.width) + " x " +
                         std::to_string(f.height) + " at " + std::to_string(8 * f.bytes) + " bits, but " +
                         files_[0].filename().string() + " is " + std::to_string(first_.width) + " x " +
                         std::to_string(first_.height) + " at " + std::to_string(8 * first_.bytes) +
                         " bits; all slices must match");
      }
    }
    info_.format = "tiff slices";
    info_.dims = geometry::Dims{first_.width, first_.height, static_cast<std::int64_t>(files_.size())};
    info_.bytes_per_sample = first_.bytes;
  }
  const VolumeInfo& info() const override { return info_; }
  void read_slice(std::int64_t z, std::int64_t x0, std::int64_t y0, std::int64_t sx, std::int64_t sy,
                  std::vector<std::uint16_t>& out) override {
    TiffPtr t = open_tiff(files_[z]);
    const PageFormat f = page_format(t.get(), files_[z].string());
    read_page(t.get(), f, files_[z].string(), x0, y0, sx, sy, out, buf_);
  }

 private:
  std::vector<std::filesystem::path> files_;
  PageFormat first_;
  VolumeInfo info_;
  std::vector<std::uint8_t> buf_;
};

class MultipageTiffSource final : public SliceSource {
 public:
  explicit MultipageTiffSource(const std::filesystem::path& file) : file_(file), tiff_(open_tiff(file)) {
    const std::string name = file.string();
    const tdir_t pages = TIFFNumberOfDirectories(tiff_.get());
    if (pages < 1) throw InputError(name + ": holds no image");
    for (tdir_t p = 0; p < pages; ++p) {
      if (!TIFFSetDirectory(tiff_.get(), p)) {
        throw InputError(name + ": page " + std::to_string(p) + " is unreadable; the file is truncated or damaged");
      }
      const PageFormat f = page_format(tiff_.get(), name + " page " + std::to_string(p));
      if (p == 0) {
        first_ = f;
      } else if (f.width != first_.width || f.height != first_.height || f.bytes != first_.bytes) {
        throw InputError(name + ": page " + std::to_string(p) + " is " + std::to_string(f.width) + " x " +
                         std::to_string(f.height) + ", page 0 is " + std::to_string(first_.width) + " x " +
                         std::to_string(first_.height) + "; all pages must match");
      }
    }
    // a page chain that goes on past the last page libtiff could read: the file is cut or damaged
    if (!TIFFSetDirectory(tiff_.get(), pages - 1) || !TIFFLastDirectory(tiff_.get())) {
      throw InputError(name + ": page " + std::to_string(pages) + " (after " + std::to_string(pages) +
                       " readable pages) is unreadable" +
                       (last_tiff_message.empty() ? std::string() : " (" + last_tiff_message + ")") +
                       "; the file is truncated or damaged");
    }
    info_.format = "multi-page tiff";
    info_.dims = geometry::Dims{first_.width, first_.height, static_cast<std::int64_t>(pages)};
    info_.bytes_per_sample = first_.bytes;
  }
  const VolumeInfo& info() const override { return info_; }
  void read_slice(std::int64_t z, std::int64_t x0, std::int64_t y0, std::int64_t sx, std::int64_t sy,
                  std::vector<std::uint16_t>& out) override {
    const std::string where = file_.string() + " page " + std::to_string(z);
    if (!TIFFSetDirectory(tiff_.get(), static_cast<tdir_t>(z))) {
      throw InputError(where + ": unreadable; the file is truncated or damaged");
    }
    const PageFormat f = page_format(tiff_.get(), where);
    read_page(tiff_.get(), f, where, x0, y0, sx, sy, out, buf_);
  }

 private:
  std::filesystem::path file_;
  TiffPtr tiff_;
  PageFormat first_;
  VolumeInfo info_;
  std::vector<std::uint8_t> buf_;
};

}  // namespace

std::unique_ptr<SliceSource> open_tiff_directory(const std::filesystem::path& dir) {
  return std::make_unique<TiffDirectorySource>(dir);
}

std::unique_ptr<SliceSource> open_multipage_tiff(const std::filesystem::path& file) {
  return std::make_unique<MultipageTiffSource>(file);
}

}  // namespace rockperm::io
