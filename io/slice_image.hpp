#pragma once
// A plane of the simulated volume as a picture for report.html: a PNG written by VTK's PNG writer
// into memory and returned as a data: URI (base64 by VTK too), so that the page needs no file
// beside it and no network.
#include <string>
#include <vector>

namespace rockperm::io {

struct SliceRaster {
  int width = 0, height = 0;
  std::vector<float> value;  // row-major, row 0 at the lowest vertical coordinate (drawn at the bottom)
};

enum class SlicePalette {
  pore_mask,  // 0: grey (solid or pores without flow), 1: white (pore space that carries the flow)
  magnitude,  // [0, 1] through a perceptual colour map (viridis), below 0: grey (solid)
};

// Throws OutputError when VTK cannot encode the image.
std::string png_data_uri(const SliceRaster& raster, SlicePalette palette);

}  // namespace rockperm::io
