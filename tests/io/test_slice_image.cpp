// The slice pictures of report.html, decoded and read back with VTK's PNG reader: size,
// orientation (row 0 at the bottom) and the colours of each palette.
#include <gtest/gtest.h>
#include <vtkBase64Utilities.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkPNGReader.h>

#include <string>
#include <vector>

#include "io/slice_image.hpp"
#include "lib/base/error.hpp"

namespace rockperm::io {

namespace {

struct Rgb {
  int r, g, b;
};

// Decodes a data: URI and reads it as a PNG; pixel(x, y) with y = 0 the bottom row.
class Decoded {
 public:
  explicit Decoded(const std::string& uri) {
    const std::string prefix = "data:image/png;base64,";
    EXPECT_EQ(uri.rfind(prefix, 0), 0u);
    const std::string text = uri.substr(prefix.size());
    bytes_.resize(text.size());
    const std::size_t n = vtkBase64Utilities::DecodeSafely(reinterpret_cast<const unsigned char*>(text.data()),
                                                           text.size(), bytes_.data(), bytes_.size());
    bytes_.resize(n);
    reader_->SetMemoryBuffer(bytes_.data());
    reader_->SetMemoryBufferLength(static_cast<vtkIdType>(bytes_.size()));
    reader_->Update();
  }
  std::vector<unsigned char>& bytes() { return bytes_; }
  int width() { return reader_->GetOutput()->GetDimensions()[0]; }
  int height() { return reader_->GetOutput()->GetDimensions()[1]; }
  Rgb pixel(int x, int y) {
    const auto* p = static_cast<unsigned char*>(reader_->GetOutput()->GetScalarPointer(x, y, 0));
    return {p[0], p[1], p[2]};
  }

 private:
  std::vector<unsigned char> bytes_;
  vtkNew<vtkPNGReader> reader_;
};

}  // namespace

TEST(SliceImage, PoreMaskIsWhiteOverGreyWithRowZeroAtTheBottom) {
  const SliceRaster raster{3, 2, {1, 0, 0, 0, 0, 1}};  // (0,0) and (2,1) pore
  Decoded png(png_data_uri(raster, SlicePalette::pore_mask));
  ASSERT_GE(png.bytes().size(), 8u);
  EXPECT_EQ(std::string(png.bytes().begin() + 1, png.bytes().begin() + 4), "PNG");
  ASSERT_EQ(png.width(), 3);
  ASSERT_EQ(png.height(), 2);
  const Rgb pore = png.pixel(0, 0), solid = png.pixel(1, 0), corner = png.pixel(2, 1);
  EXPECT_EQ(pore.r, 255);
  EXPECT_EQ(corner.g, 255);
  EXPECT_NEAR(solid.r, 89, 1);  // 0.35 grey
  EXPECT_EQ(solid.r, solid.b);
}

TEST(SliceImage, MagnitudeRunsFromViridisDarkToYellowAndSolidIsGrey) {
  const SliceRaster raster{3, 1, {0.0f, 1.0f, -1.0f}};
  Decoded png(png_data_uri(raster, SlicePalette::magnitude));
  ASSERT_EQ(png.width(), 3);
  const Rgb low = png.pixel(0, 0), high = png.pixel(1, 0), solid = png.pixel(2, 0);
  EXPECT_NEAR(low.r, 68, 2);  // viridis (0.267, 0.005, 0.329)
  EXPECT_NEAR(low.b, 84, 2);
  EXPECT_NEAR(high.r, 253, 2);  // viridis (0.993, 0.906, 0.144)
  EXPECT_NEAR(high.g, 231, 2);
  EXPECT_NEAR(solid.r, 89, 1);
  EXPECT_EQ(solid.g, solid.r);
}

TEST(SliceImage, ValuesThatDoNotFillTheRasterAreAnError) {
  EXPECT_THROW(png_data_uri(SliceRaster{4, 4, {1, 2, 3}}, SlicePalette::magnitude), OutputError);
  EXPECT_THROW(png_data_uri(SliceRaster{0, 4, {}}, SlicePalette::pore_mask), OutputError);
}

}  // namespace rockperm::io
