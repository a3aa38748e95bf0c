#include "io/slice_image.hpp"

#include <vtkBase64Utilities.h>
#include <vtkFloatArray.h>
#include <vtkImageData.h>
#include <vtkImageMapToColors.h>
#include <vtkLookupTable.h>
#include <vtkNew.h>
#include <vtkPNGWriter.h>
#include <vtkPointData.h>
#include <vtkUnsignedCharArray.h>

#include "lib/base/error.hpp"

namespace rockperm::io {

namespace {

// Viridis at nine even stops (matplotlib's table, sampled); the table between them is linear.
constexpr double viridis[9][3] = {{0.267, 0.005, 0.329}, {0.278, 0.175, 0.483}, {0.230, 0.322, 0.546},
                                  {0.173, 0.449, 0.558}, {0.128, 0.567, 0.551}, {0.153, 0.680, 0.504},
                                  {0.369, 0.789, 0.383}, {0.678, 0.864, 0.190}, {0.993, 0.906, 0.144}};
constexpr double solid_grey = 0.35;

void fill_table(vtkLookupTable* table, SlicePalette palette) {
  table->SetRange(0.0, 1.0);
  if (palette == SlicePalette::pore_mask) {
    table->SetNumberOfTableValues(2);
    table->SetTableValue(0, solid_grey, solid_grey, solid_grey, 1.0);
    table->SetTableValue(1, 1.0, 1.0, 1.0, 1.0);
    return;
  }
  constexpr int n = 256;
  table->SetNumberOfTableValues(n);
  for (int i = 0; i < n; ++i) {
    const double t = 8.0 * i / (n - 1);
    const int s = std::min(7, static_cast<int>(t));
    const double f = t - s;
    table->SetTableValue(i, viridis[s][0] + f * (viridis[s + 1][0] - viridis[s][0]),
                         viridis[s][1] + f * (viridis[s + 1][1] - viridis[s][1]),
                         viridis[s][2] + f * (viridis[s + 1][2] - viridis[s][2]), 1.0);
  }
  table->SetBelowRangeColor(solid_grey, solid_grey, solid_grey, 1.0);
  table->UseBelowRangeColorOn();
  table->BuildSpecialColors();
}

}  // namespace

std::string png_data_uri(const SliceRaster& raster, SlicePalette palette) {
  const std::size_t n = static_cast<std::size_t>(raster.width) * static_cast<std::size_t>(raster.height);
  if (raster.width <= 0 || raster.height <= 0 || raster.value.size() != n) {
    throw OutputError("slice image: " + std::to_string(raster.width) + " x " + std::to_string(raster.height) +
                      " pixels do not match " + std::to_string(raster.value.size()) + " values");
  }
  vtkNew<vtkImageData> image;
  image->SetDimensions(raster.width, raster.height, 1);
  vtkNew<vtkFloatArray> values;
  values->SetName("value");
  values->SetNumberOfTuples(static_cast<vtkIdType>(n));
  for (std::size_t i = 0; i < n; ++i) values->SetValue(static_cast<vtkIdType>(i), raster.value[i]);
  image->GetPointData()->SetScalars(values);

  vtkNew<vtkLookupTable> table;
  fill_table(table, palette);
  vtkNew<vtkImageMapToColors> colours;
  colours->SetLookupTable(table);
  colours->SetOutputFormatToRGB();
  colours->SetInputData(image);

  vtkNew<vtkPNGWriter> writer;
  writer->SetInputConnection(colours->GetOutputPort());
  writer->WriteToMemoryOn();
  writer->Write();
  vtkUnsignedCharArray* png = writer->GetResult();
  if (writer->GetErrorCode() != 0 || png == nullptr || png->GetNumberOfValues() == 0) {
    throw OutputError("slice image: VTK's PNG writer failed (error " + std::to_string(writer->GetErrorCode()) + ")");
  }
  const auto bytes = static_cast<unsigned long>(png->GetNumberOfValues());
  std::string encoded((bytes + 2) / 3 * 4 + 1, '\0');
  const unsigned long length = vtkBase64Utilities::Encode(png->GetPointer(0), bytes,
                                                          reinterpret_cast<unsigned char*>(encoded.data()));
  encoded.resize(length);
  return "data:image/png;base64," + encoded;
}

}  // namespace rockperm::io
