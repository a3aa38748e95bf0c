#pragma once
// The options of `rockperm run` as one table (app/options.cpp parses the command line and INI
// files with it, writes config.ini and `--help` from it, and names options in messages): each
// option's INI key, the spec field it sets, its default, its help, and how it is set from text
// and written back.
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "pipeline/spec.hpp"

namespace rockperm::app {

// One option: its INI key, the spec field it sets, its default, its help, how to set it
// from text and how to write the resolved value back.
struct Option {
  std::string key;
  std::string field;
  std::string default_text;
  std::string help;
  std::function<void(pipeline::RunSpec&, const std::string&)> set;
  std::function<std::string(const pipeline::RunSpec&)> get;
};

// Every option of rockperm run, in section order.
const std::vector<Option>& option_table();

// "64 64 64" (or 64x64x64, 64,64,64) as three integers; throws InputError.
std::array<std::int64_t, 3> parse_triple(const std::string& text);

}  // namespace rockperm::app
