#include "lib/physics/storage.hpp"

#include "lib/base/error.hpp"

namespace rockperm::physics {

const char* to_string(Storage s) { return s == Storage::float16 ? "fp16" : "fp32"; }

Storage parse_storage(const std::string& text) {
  if (text == "fp32" || text == "float32" || text == "float") return Storage::float32;
  if (text == "fp16" || text == "float16" || text == "half") return Storage::float16;
  throw InputError("storage '" + text + "' is unknown; use fp32 or fp16");
}

}  // namespace rockperm::physics
