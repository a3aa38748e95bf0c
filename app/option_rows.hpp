#pragma once
// What the option table's rows (app/option_table.cpp) are built from: the parsers of a value and
// the text of a value, and the rows of the sections kept in files of their own.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "app/option_table.hpp"
#include "lib/base/error.hpp"
#include "lib/base/names.hpp"

namespace rockperm::app::option_rows {

std::string number(double v);  // every digit a double holds
double parse_double(const std::string& text);
// "a, b, c": numbers separated by commas, spaces around each allowed; `what` names the list in
// the message of an empty entry.
std::vector<double> parse_number_list(const std::string& text, const char* what);
std::int64_t parse_integer(const std::string& text);
bool parse_switch(const std::string& text, const char* on, const char* off);

template <class E, std::size_t N>
E parse_choice(const std::string& text, const std::array<Named<E>, N>& names) {
  if (const auto value = value_in(names, text)) return *value;
  throw InputError("'" + text + "' is unknown; use " + name_list(names));
}

template <class E, std::size_t N>
std::string choice_name(E value, const std::array<Named<E>, N>& names) {
  return name_in(names, value);
}

// [capillary] and [forchheimer]: what a run answers beyond k (app/option_table_beyond_k.cpp)
void add_capillary_and_forchheimer_rows(std::vector<Option>& t);

}  // namespace rockperm::app::option_rows
