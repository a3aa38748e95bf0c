#pragma once
// TIFF volumes through libtiff: a directory of 2-D slices (natural name order) or one
// multi-page file. 8- or 16-bit unsigned single-sample images, strips or tiles, any
// compression libtiff decodes.
#include <filesystem>
#include <memory>
#include <vector>

#include "io/slice_source.hpp"

namespace rockperm::io {

// The .tif/.tiff files of a directory of slices in natural name order, numbered without a gap
// when they are numbered. Throws InputError when it cannot be listed, is empty or has a gap.
std::vector<std::filesystem::path> list_tiff_slices(const std::filesystem::path& dir);

std::unique_ptr<SliceSource> open_tiff_directory(const std::filesystem::path& dir);
std::unique_ptr<SliceSource> open_multipage_tiff(const std::filesystem::path& file);

}  // namespace rockperm::io
