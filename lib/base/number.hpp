#pragma once
// A number as a user writes it in an option or a table: decimal, with an optional exponent, and
// nothing else of the text left over. One reader for the option table, grey labels and grey laws,
// so "0x10" (hexadecimal, which strtod/stod accept) or "1.5abc" is refused everywhere alike.
#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>

namespace rockperm {

enum class NumberError { none, not_a_number, not_finite, out_of_range };

// The whole of `text` (spaces and tabs around it ignored, a leading '+' allowed) as a finite decimal
// number; `error` says why not.
inline std::optional<double> decimal_number(std::string_view text, NumberError* error = nullptr) {
  const auto fail = [&](NumberError e) -> std::optional<double> {
    if (error) *error = e;
    return std::nullopt;
  };
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return fail(NumberError::not_a_number);  // "++1", "-+1": refused by from_chars
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) return fail(NumberError::out_of_range);
  if (ec != std::errc() || end != text.data() + text.size()) return fail(NumberError::not_a_number);
  if (!std::isfinite(v)) return fail(NumberError::not_finite);
  if (error) *error = NumberError::none;
  return v;
}

}  // namespace rockperm
