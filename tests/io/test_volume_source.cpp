// Every input path on small generated files: TIFF slices (stripped, tiled, compressed),
// multi-page TIFF, raw uint8/uint16 in both byte orders with a header, NRRD and MHD, crops,
// natural sort, and the bad inputs of issue 5.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <tiffio.h>

#include <cstring>
#include <fstream>

#include "io/sha256.hpp"
#include "io/volume_source.hpp"
#include "lib/base/error.hpp"

namespace rockperm::io {

namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("rockperm_io_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Label of voxel (x, y, z) in the test volumes.
std::uint16_t label(std::int64_t x, std::int64_t y, std::int64_t z, int bits) {
  const std::uint32_t v = static_cast<std::uint32_t>(x * 3 + y * 5 + z * 7);
  return static_cast<std::uint16_t>(bits == 8 ? v % 4 : (v % 4) * 1000 + 300);
}

struct TiffOptions {
  int bits = 8;
  bool tiled = false;
  std::uint16_t compression = COMPRESSION_NONE;
  std::uint16_t samples = 1;
  std::uint16_t format = SAMPLEFORMAT_UINT;
};

void write_page(TIFF* t, std::uint32_t w, std::uint32_t h, std::int64_t z, const TiffOptions& o) {
  TIFFSetField(t, TIFFTAG_IMAGEWIDTH, w);
  TIFFSetField(t, TIFFTAG_IMAGELENGTH, h);
  TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, o.bits);
  TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, o.samples);
  TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, o.format);
  TIFFSetField(t, TIFFTAG_PHOTOMETRIC, o.samples == 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(t, TIFFTAG_COMPRESSION, o.compression);
  const int bytes = o.bits / 8 * o.samples;
  std::vector<std::uint8_t> plane(static_cast<std::size_t>(w) * h * bytes);
  for (std::uint32_t y = 0; y < h; ++y)
    for (std::uint32_t x = 0; x < w; ++x) {
      const std::uint16_t v = label(x, y, z, o.bits);
      std::uint8_t* p = plane.data() + (static_cast<std::size_t>(y) * w + x) * bytes;
      if (o.bits == 8) std::fill(p, p + o.samples, static_cast<std::uint8_t>(v));
      else std::memcpy(p, &v, 2);
    }
  if (o.tiled) {
    const std::uint32_t tile = 16;
    TIFFSetField(t, TIFFTAG_TILEWIDTH, tile);
    TIFFSetField(t, TIFFTAG_TILELENGTH, tile);
    std::vector<std::uint8_t> buf(static_cast<std::size_t>(TIFFTileSize(t)));
    for (std::uint32_t ty = 0; ty < h; ty += tile)
      for (std::uint32_t tx = 0; tx < w; tx += tile) {
        std::fill(buf.begin(), buf.end(), 0);
        for (std::uint32_t j = 0; j < tile && ty + j < h; ++j)
          for (std::uint32_t i = 0; i < tile && tx + i < w; ++i)
            std::memcpy(&buf[(j * tile + i) * bytes], &plane[((ty + j) * w + tx + i) * bytes], bytes);
        TIFFWriteTile(t, buf.data(), tx, ty, 0, 0);
      }
  } else {
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 4);
    for (std::uint32_t y = 0; y < h; ++y) TIFFWriteScanline(t, plane.data() + static_cast<std::size_t>(y) * w * bytes, y, 0);
  }
  TIFFWriteDirectory(t);
}

void write_tiff(const fs::path& file, std::uint32_t w, std::uint32_t h, std::int64_t pages, std::int64_t first_z,
                const TiffOptions& o) {
  TIFF* t = TIFFOpen(file.string().c_str(), "w");
  ASSERT_NE(t, nullptr);
  for (std::int64_t z = 0; z < pages; ++z) write_page(t, w, h, first_z + z, o);
  TIFFClose(t);
}

// Checks a loaded mask against the label function for pore labels `pore`.
void expect_mask(const LoadedMask& m, const geometry::Dims& full, const Crop& crop, int bits, std::uint16_t pore) {
  (void)full;
  ASSERT_EQ(m.mask.dims, (geometry::Dims{crop.size[0], crop.size[1], crop.size[2]}));
  std::size_t wrong = 0;
  for (std::int64_t z = 0; z < crop.size[2]; ++z)
    for (std::int64_t y = 0; y < crop.size[1]; ++y)
      for (std::int64_t x = 0; x < crop.size[0]; ++x) {
        const bool expected =
            label(x + crop.offset[0], y + crop.offset[1], z + crop.offset[2], bits) == pore;
        if (m.mask.is_pore(x, y, z) != expected) ++wrong;
      }
  EXPECT_EQ(wrong, 0u);
}

std::string error_of(const VolumeSpec& spec, const std::string& labels = "0") {
  try {
    (void)load_pore_mask(spec, geometry::LabelSelection::parse(labels));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(NaturalSort, NumbersCompareByValue) {
  EXPECT_TRUE(natural_less("slice_9.tif", "slice_10.tif"));
  EXPECT_FALSE(natural_less("slice_10.tif", "slice_9.tif"));
  EXPECT_TRUE(natural_less("slice_009.tif", "slice_10.tif"));
  EXPECT_TRUE(natural_less("a2b3", "a2b10"));
  EXPECT_TRUE(natural_less("img", "img1"));
}

TEST(TiffSlices, DirectoryInNaturalOrderStrippedAndTiledAndCompressed) {
  for (const TiffOptions o : {TiffOptions{8, false, COMPRESSION_NONE}, TiffOptions{8, true, COMPRESSION_LZW},
                              TiffOptions{16, false, COMPRESSION_DEFLATE}, TiffOptions{16, true, COMPRESSION_NONE}}) {
    const fs::path dir = fresh_dir("slices");
    const int nz = 11;  // names 0..10: lexicographic order would put 10 before 2
    for (int z = 0; z < nz; ++z) write_tiff(dir / ("slice_" + std::to_string(z) + ".tif"), 37, 21, 1, z, o);
    std::ofstream(dir / "notes.txt") << "not a slice";
    VolumeSpec spec;
    spec.path = dir;
    spec.voxel_size_um = 2.0;
    const std::uint16_t pore = label(1, 0, 0, o.bits);
    const LoadedMask m = load_pore_mask(spec, geometry::LabelSelection::parse(std::to_string(pore)));
    EXPECT_EQ(m.info.format, "tiff slices");
    EXPECT_EQ(m.info.bytes_per_sample, o.bits / 8);
    expect_mask(m, geometry::Dims{37, 21, nz}, Crop{{0, 0, 0}, {37, 21, nz}}, o.bits, pore);
    // a crop reads only what it needs
    spec.crop = Crop{{5, 3, 2}, {20, 17, 6}};
    expect_mask(load_pore_mask(spec, geometry::LabelSelection::parse(std::to_string(pore))), geometry::Dims{37, 21, nz},
                spec.crop, o.bits, pore);
  }
}

TEST(TiffSlices, TheHashOfADirectoryIsThatOfItsSlicesInReadingOrder) {
  const fs::path dir = fresh_dir("hashed");
  std::string all;
  for (const int z : {8, 9, 10}) {  // natural order: 10 after 9 (by name it would come first)
    std::ofstream(dir / ("s" + std::to_string(z) + ".tif"), std::ios::binary) << "slice " << z << ';';
  }
  for (const int z : {8, 9, 10}) all += "slice " + std::to_string(z) + ";";
  EXPECT_EQ(hash_volume(dir), sha256_hex(all));
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");  // FIPS 180-2
}

TEST(TiffStack, MultiPageFile) {
  const fs::path dir = fresh_dir("stack");
  write_tiff(dir / "stack.tiff", 19, 23, 9, 0, TiffOptions{16, false, COMPRESSION_LZW});
  VolumeSpec spec;
  spec.path = dir / "stack.tiff";
  spec.voxel_size_um = 1.5;
  const std::uint16_t pore = label(0, 0, 0, 16);
  const LoadedMask m = load_pore_mask(spec, geometry::LabelSelection::parse(std::to_string(pore)));
  EXPECT_EQ(m.info.format, "multi-page tiff");
  expect_mask(m, geometry::Dims{19, 23, 9}, Crop{{0, 0, 0}, {19, 23, 9}}, 16, pore);
}

TEST(Raw, Uint16BothByteOrdersWithHeaderAndCrop) {
  const fs::path dir = fresh_dir("raw");
  const geometry::Dims d{13, 7, 5};
  for (const bool big : {false, true}) {
    const fs::path file = dir / (big ? "big.raw" : "little.raw");
    std::ofstream out(file, std::ios::binary);
    out << std::string(100, 'h');  // a header to skip
    for (std::int64_t z = 0; z < d.nz; ++z)
      for (std::int64_t y = 0; y < d.ny; ++y)
        for (std::int64_t x = 0; x < d.nx; ++x) {
          const std::uint16_t v = label(x, y, z, 16);
          const char bytes[2] = {static_cast<char>(big ? v >> 8 : v & 0xFF), static_cast<char>(big ? v & 0xFF : v >> 8)};
          out.write(bytes, 2);
        }
    out.close();
    VolumeSpec spec;
    spec.path = file;
    spec.dims = d;
    spec.bytes_per_sample = 2;
    spec.big_endian = big;
    spec.header_bytes = 100;
    spec.voxel_size_um = 3;
    spec.crop = Crop{{2, 1, 1}, {0, 5, 3}};
    const LoadedMask m = load_pore_mask(spec, geometry::LabelSelection::parse("300"));
    expect_mask(m, d, Crop{{2, 1, 1}, {11, 5, 3}}, 16, 300);
    spec.header_bytes = 99;
    EXPECT_NE(error_of(spec, "300").find("header"), std::string::npos);
  }
}

TEST(Headers, NrrdAttachedAndDetachedAndMhd) {
  const fs::path dir = fresh_dir("headers");
  const geometry::Dims d{6, 5, 4};
  std::string data;
  for (std::int64_t z = 0; z < d.nz; ++z)
    for (std::int64_t y = 0; y < d.ny; ++y)
      for (std::int64_t x = 0; x < d.nx; ++x) data.push_back(static_cast<char>(label(x, y, z, 8)));
  std::ofstream(dir / "data.raw", std::ios::binary) << data;
  std::ofstream(dir / "attached.nrrd", std::ios::binary)
      << "NRRD0004\n# made by a test\ntype: uint8\ndimension: 3\nsizes: 6 5 4\nspacings: 0.0025 0.0025 0.0025\n"
         "encoding: raw\n\n"
      << data;
  std::ofstream(dir / "detached.nhdr") << "NRRD0004\ntype: unsigned char\ndimension: 3\nsizes: 6 5 4\n"
                                          "space directions: (0.004,0,0) (0,0.004,0) (0,0,0.004)\nencoding: raw\n"
                                          "data file: data.raw\n";
  std::ofstream(dir / "image.mhd") << "ObjectType = Image\nNDims = 3\nDimSize = 6 5 4\nElementType = MET_UCHAR\n"
                                      "ElementSpacing = 0.001 0.001 0.001\nElementDataFile = data.raw\n";
  const struct {
    const char* file;
    double voxel_um;
    const char* format;
  } cases[] = {{"attached.nrrd", 2.5, "nrrd"}, {"detached.nhdr", 4.0, "nrrd"}, {"image.mhd", 1.0, "mhd"}};
  for (const auto& c : cases) {
    VolumeSpec spec;
    spec.path = dir / c.file;
    const LoadedMask m = load_pore_mask(spec, geometry::LabelSelection::parse("2"));
    EXPECT_EQ(m.info.format, c.format);
    EXPECT_NEAR(m.voxel_size_um, c.voxel_um, 1e-9) << c.file;
    expect_mask(m, d, Crop{{0, 0, 0}, {6, 5, 4}}, 8, 2);
  }
  std::ofstream(dir / "float.nrrd") << "NRRD0004\ntype: float\ndimension: 3\nsizes: 6 5 4\nencoding: raw\n\n";
  VolumeSpec bad;
  bad.path = dir / "float.nrrd";
  bad.voxel_size_um = 1;
  EXPECT_NE(error_of(bad).find("float"), std::string::npos);
}

TEST(BadInput, EachGetsOneClearMessage) {
  const fs::path dir = fresh_dir("bad");
  VolumeSpec spec;
  spec.voxel_size_um = 1;
  // missing file
  spec.path = dir / "missing.tif";
  EXPECT_NE(error_of(spec).find("no such file"), std::string::npos);
  // slices of different sizes
  fs::create_directories(dir / "mixed");
  write_tiff(dir / "mixed" / "s1.tif", 10, 10, 1, 0, {});
  write_tiff(dir / "mixed" / "s2.tif", 11, 10, 1, 1, {});
  spec.path = dir / "mixed";
  EXPECT_NE(error_of(spec).find("s2.tif"), std::string::npos);
  // a numbered series with a slice missing
  fs::create_directories(dir / "gap");
  for (const int z : {1, 2, 4}) write_tiff(dir / "gap" / ("s" + std::to_string(z) + ".tif"), 8, 8, 1, z, {});
  spec.path = dir / "gap";
  EXPECT_NE(error_of(spec).find("slice number 3 is missing"), std::string::npos) << error_of(spec);
  // RGB, float, 32-bit
  write_tiff(dir / "rgb.tif", 8, 8, 1, 0, TiffOptions{8, false, COMPRESSION_NONE, 3});
  spec.path = dir / "rgb.tif";
  EXPECT_NE(error_of(spec).find("single-channel"), std::string::npos);
  write_tiff(dir / "float.tif", 8, 8, 1, 0, TiffOptions{32, false, COMPRESSION_NONE, 1, SAMPLEFORMAT_IEEEFP});
  spec.path = dir / "float.tif";
  EXPECT_NE(error_of(spec).find("floating-point"), std::string::npos);
  write_tiff(dir / "u32.tif", 8, 8, 1, 0, TiffOptions{32, false, COMPRESSION_NONE});
  spec.path = dir / "u32.tif";
  EXPECT_NE(error_of(spec).find("32-bit"), std::string::npos);
  // truncated TIFF
  write_tiff(dir / "whole.tif", 64, 64, 3, 0, TiffOptions{8, false, COMPRESSION_NONE});
  {
    std::ifstream in(dir / "whole.tif", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(dir / "cut.tif", std::ios::binary) << bytes.substr(0, bytes.size() / 3);
  }
  spec.path = dir / "cut.tif";
  EXPECT_NE(error_of(spec).find("cut.tif"), std::string::npos);
  // dims that do not match the file, absurd dims, no pore
  std::ofstream(dir / "v.raw", std::ios::binary) << std::string(60, '\0');
  spec.path = dir / "v.raw";
  spec.dims = geometry::Dims{4, 4, 4};
  EXPECT_NE(error_of(spec).find("60 bytes"), std::string::npos);
  spec.dims = geometry::Dims{3000000000, 4, 4};
  EXPECT_NE(error_of(spec).find("outside"), std::string::npos);
  spec.dims = geometry::Dims{5, 4, 3};
  EXPECT_NE(error_of(spec, "7").find("select no voxel"), std::string::npos);
  // voxel size unknown for raw
  spec.voxel_size_um = 0;
  EXPECT_NE(error_of(spec).find("voxel size"), std::string::npos);
}

// audit finding 3: a 16-page file cut in half was read as 7 slices with exit 0
TEST(BadInput, AMultiPageTiffCutShortIsAnErrorNamingThePage) {
  const fs::path dir = fresh_dir("cut16");
  write_tiff(dir / "whole.tif", 32, 32, 16, 0, TiffOptions{8, false, COMPRESSION_NONE});
  std::ifstream in(dir / "whole.tif", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  VolumeSpec spec;
  spec.voxel_size_um = 1;
  for (const std::size_t keep : {bytes.size() / 2, bytes.size() - 3, bytes.size() / 2 + 700}) {
    std::ofstream(dir / "half.tif", std::ios::binary | std::ios::trunc) << bytes.substr(0, keep);
    spec.path = dir / "half.tif";
    const std::string e = error_of(spec);
    EXPECT_NE(e.find("page"), std::string::npos) << keep << ": " << e;
    EXPECT_NE(e.find("truncated"), std::string::npos) << keep << ": " << e;
  }
  spec.path = dir / "whole.tif";
  EXPECT_EQ(error_of(spec), "");
}

// audit: an uncompressed strip whose StripByteCounts is smaller than its rows need was read
// without a word (libtiff fills the rest) and the run went on to a k
TEST(BadInput, AStripShorterThanItsRowsIsRefused) {
  const fs::path dir = fresh_dir("shortstrip");
  const auto write = [&](const fs::path& file, tmsize_t second) {
    TIFF* t = TIFFOpen(file.c_str(), "w");
    ASSERT_NE(t, nullptr);
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, 8u);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, 8u);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 4u);
    std::vector<std::uint8_t> rows(32, 1);
    for (std::size_t i = 0; i < rows.size(); i += 3) rows[i] = 0;  // some pore (label 0)
    TIFFWriteRawStrip(t, 0, rows.data(), 32);
    TIFFWriteRawStrip(t, 1, rows.data(), second);  // rows 4..7: 32 bytes, or fewer
    TIFFWriteDirectory(t);
    TIFFClose(t);
  };
  write(dir / "short.tif", 20);
  write(dir / "whole.tif", 32);
  VolumeSpec spec;
  spec.voxel_size_um = 1;
  spec.path = dir / "short.tif";
  const std::string e = error_of(spec);
  EXPECT_NE(e.find("strip 1 holds 20 bytes"), std::string::npos) << e;
  EXPECT_NE(e.find("32"), std::string::npos) << e;
  spec.path = dir / "whole.tif";
  EXPECT_EQ(error_of(spec), "");
}

// audit: headers rockperm cannot read are named as unsupported, not as a size mismatch
TEST(BadInput, UnsupportedHeaderFeaturesAreNamed) {
  const fs::path dir = fresh_dir("unsupported");
  std::ofstream(dir / "d.raw", std::ios::binary) << std::string(64, '\2');
  const std::string nrrd = "NRRD0004\ntype: uint8\ndimension: 3\nsizes: 4 4 4\nencoding: raw\n";
  std::ofstream(dir / "noblank.nrrd") << nrrd;  // ends without the blank line: no data
  std::ofstream(dir / "lineskip.nhdr") << nrrd << "line skip: 2\ndata file: d.raw\n";
  std::ofstream(dir / "skip.nhdr") << nrrd << "byte skip: -1\ndata file: d.raw\n";
  const std::string mhd = "NDims = 3\nDimSize = 4 4 4\nElementType = MET_UCHAR\nElementDataFile = d.raw\n";
  std::ofstream(dir / "compressed.mhd") << "CompressedData = True\n" << mhd;
  std::ofstream(dir / "rgb.mhd") << "ElementNumberOfChannels = 3\n" << mhd;
  VolumeSpec spec;
  spec.voxel_size_um = 1;
  const std::pair<const char*, const char*> cases[] = {{"noblank.nrrd", "blank line"},
                                                       {"lineskip.nhdr", "'line skip' is not supported"},
                                                       {"compressed.mhd", "CompressedData"},
                                                       {"rgb.mhd", "3 channels"}};
  for (const auto& [file, text] : cases) {
    spec.path = dir / file;
    EXPECT_NE(error_of(spec, "2").find(text), std::string::npos) << file << ": " << error_of(spec, "2");
  }
  spec.path = dir / "skip.nhdr";  // byte skip -1: the data are the file's last bytes
  EXPECT_EQ(error_of(spec, "2"), "");
}

// audit findings 10 and 11: a pipe blocked forever; a dangling slice link was skipped; a header
// could name any file on the server
TEST(BadInput, PipesDanglingLinksAndDataFilesOutsideTheFolderAreRefused) {
  const fs::path dir = fresh_dir("special");
  VolumeSpec spec;
  spec.voxel_size_um = 1;
  spec.dims = geometry::Dims{4, 4, 4};
  ASSERT_EQ(::mkfifo((dir / "pipe.raw").c_str(), 0600), 0);
  spec.path = dir / "pipe.raw";
  EXPECT_NE(error_of(spec).find("not a regular file"), std::string::npos) << error_of(spec);
  spec.path = "/dev/zero";
  EXPECT_NE(error_of(spec).find("not a regular file"), std::string::npos) << error_of(spec);
  fs::create_directories(dir / "slices");
  for (const int z : {0, 1}) write_tiff(dir / "slices" / ("s" + std::to_string(z) + ".tif"), 8, 8, 1, z, {});
  fs::create_symlink(dir / "gone.tif", dir / "slices" / "s2.tif");
  spec.path = dir / "slices";
  spec.dims = geometry::Dims{};
  EXPECT_NE(error_of(spec).find("does not exist"), std::string::npos) << error_of(spec);

  fs::create_directories(dir / "upload");
  fs::create_directories(dir / "elsewhere");
  std::ofstream(dir / "elsewhere" / "secret.raw", std::ios::binary) << std::string(64, '\2');
  std::ofstream(dir / "upload" / "mine.raw", std::ios::binary) << std::string(64, '\2');
  fs::create_symlink(dir / "elsewhere" / "secret.raw", dir / "upload" / "link.raw");
  const std::string head = "NRRD0004\ntype: uint8\ndimension: 3\nsizes: 4 4 4\nencoding: raw\ndata file: ";
  std::ofstream(dir / "upload" / "abs.nhdr") << head << (dir / "elsewhere" / "secret.raw").string() << "\n";
  std::ofstream(dir / "upload" / "up.nhdr") << head << "../elsewhere/secret.raw\n";
  std::ofstream(dir / "upload" / "link.nhdr") << head << "link.raw\n";
  std::ofstream(dir / "upload" / "ok.nhdr") << head << "mine.raw\n";
  spec.confine_to = dir / "upload";
  for (const char* file : {"abs.nhdr", "up.nhdr", "link.nhdr"}) {
    spec.path = dir / "upload" / file;
    const std::string e = error_of(spec, "2");
    EXPECT_NE(e.find("outside the folder"), std::string::npos) << file << ": " << e;
    EXPECT_EQ(e.find("64"), std::string::npos) << file << ": the size of the outside file shows: " << e;
  }
  spec.path = dir / "upload" / "ok.nhdr";
  EXPECT_EQ(error_of(spec, "2"), "");
  spec.confine_to.clear();  // rockperm run: the user's own files, anywhere
  spec.path = dir / "upload" / "abs.nhdr";
  EXPECT_EQ(error_of(spec, "2"), "");
}

}  // namespace rockperm::io
