#include "app/option_rows.hpp"

#include <sstream>
#include <stdexcept>

#include "lib/base/number.hpp"

namespace rockperm::app::option_rows {

std::string number(double v) {
  std::ostringstream o;
  o.precision(17);
  o << v;
  return o.str();
}

double parse_double(const std::string& text) {
  NumberError why = NumberError::none;
  if (const auto v = decimal_number(text, &why)) return *v;
  if (why == NumberError::not_finite) throw InputError("'" + text + "' is not a finite number");
  if (why == NumberError::out_of_range) throw InputError("'" + text + "' is outside the range of numbers");
  throw InputError("'" + text + "' is not a number");
}

std::vector<double> parse_number_list(const std::string& text, const char* what) {
  std::vector<double> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const auto a = item.find_first_not_of(" \t"), b = item.find_last_not_of(" \t");
    if (a == std::string::npos) throw InputError(std::string("an empty entry in the ") + what + " '" + text + "'");
    out.push_back(parse_double(item.substr(a, b - a + 1)));
  }
  return out;
}

std::int64_t parse_integer(const std::string& text) {
  try {
    std::size_t used = 0;
    const long long v = std::stoll(text, &used);
    if (used == text.size()) return v;
  } catch (const std::logic_error&) {
  }
  throw InputError("'" + text + "' is not an integer");
}

bool parse_switch(const std::string& text, const char* on, const char* off) {
  if (text == on) return true;
  if (text == off) return false;
  throw InputError("'" + text + "' is unknown; use " + on + " or " + off);
}

}  // namespace rockperm::app::option_rows
