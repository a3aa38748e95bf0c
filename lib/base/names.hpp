#pragma once
// The names of an enum's values, defined once beside the enum (a constexpr table of Named): its
// to_string, its parse function and the command line's option table all read that one table.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace rockperm {

template <class E>
struct Named {
  const char* name;
  E value;
};

// The name of `value`, or "?" where the table lacks it.
template <class E, std::size_t N>
constexpr const char* name_in(const std::array<Named<E>, N>& names, E value) {
  for (const Named<E>& n : names) {
    if (n.value == value) return n.name;
  }
  return "?";
}

// The value named `text`, or none.
template <class E, std::size_t N>
std::optional<E> value_in(const std::array<Named<E>, N>& names, std::string_view text) {
  for (const Named<E>& n : names) {
    if (text == n.name) return n.value;
  }
  return std::nullopt;
}

// "a, b, c" (separator ", "), or with `last` between the last two: "a, b or c".
template <class E, std::size_t N>
std::string name_list(const std::array<Named<E>, N>& names, const char* last = ", ") {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) out += i + 1 == N ? last : ", ";
    out += names[i].name;
  }
  return out;
}

}  // namespace rockperm
