#include "sim/spec/units.hpp"

#include "sim/engine/check.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

namespace stepsim::spec {

namespace {

// Each dimension's name and example for messages, and the range of values accepted as physically
// sensible (see accepted_range), in the order of the enum.
struct DimensionFacts {
  std::string_view name, example;
  Range range;
};
constexpr std::array<DimensionFacts, 4> kDimensions{{
    {"a size in bytes", "80GB or 80GiB", {1.0, 1125899906842624.0}},
    {"a bandwidth", "50GB/s or 400Gb/s", {1e8, 1e15}},
    {"a time", "3.3us", {1e-12, 1.0}},
    {"a FLOP rate", "989TFLOP/s", {1e12, 1e18}},
}};
static_assert(static_cast<std::size_t>(Dimension::flop_rate) + 1 == kDimensions.size());

const DimensionFacts& facts(Dimension d) {
  return kDimensions[static_cast<std::size_t>(d)];
}

}  // namespace

std::string_view to_string(Dimension d) {
  return facts(d).name;
}

std::string_view example(Dimension d) {
  return facts(d).example;
}

namespace {

// Strips a known prefix from the front of `unit`; returns its factor (1 when none).
double take_prefix(std::string_view& unit, std::string_view base_units) {
  static constexpr std::array<std::pair<std::string_view, double>, 11> kPrefixes{
      {{"Ki", 1024.0},
       {"Mi", 1048576.0},
       {"Gi", 1073741824.0},
       {"Ti", 1099511627776.0},
       {"Pi", 1125899906842624.0},
       {"k", 1e3},
       {"M", 1e6},
       {"G", 1e9},
       {"T", 1e12},
       {"P", 1e15},
       {"E", 1e18}}};
  for (const auto& [p, f] : kPrefixes) {
    if (unit.size() > p.size() && unit.substr(0, p.size()) == p) {
      const std::string_view rest = unit.substr(p.size());
      for (std::size_t i = 0; i < base_units.size();) {
        const std::size_t j = base_units.find('|', i);
        const std::string_view b = base_units.substr(i, j == std::string_view::npos ? j : j - i);
        if (rest == b) {
          unit = rest;
          return f;
        }
        if (j == std::string_view::npos) break;
        i = j + 1;
      }
    }
  }
  return 1.0;
}

}  // namespace

Parsed parse_quantity(std::string_view text, Dimension dim) {
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  double number = 0.0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), number);
  if (ec != std::errc() || end == s.data())
    return {std::nullopt, "'" + std::string(text) + "' is not " + std::string(to_string(dim)) +
                              " (expected a number with a unit, e.g. " + std::string(example(dim)) +
                              ")"};
  std::string_view unit(end, s.data() + s.size() - end);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (unit.empty())
    return {std::nullopt, "'" + std::string(text) + "' has no unit (expected " +
                              std::string(to_string(dim)) + ", e.g. " + std::string(example(dim)) +
                              ")"};
  if (!std::isfinite(number))
    return {std::nullopt, "'" + std::string(text) + "' is not a finite number"};

  double factor = 0.0;
  switch (dim) {
    case Dimension::bytes: {
      const double p = take_prefix(unit, "B|b");
      if (unit == "B")
        factor = p;
      else if (unit == "b")
        factor = p / 8.0;
      break;
    }
    case Dimension::bandwidth: {
      const double p = take_prefix(unit, "B/s|b/s|Bps|bps");
      if (unit == "B/s" || unit == "Bps")
        factor = p;
      else if (unit == "b/s" || unit == "bps")
        factor = p / 8.0;
      break;
    }
    case Dimension::time: {
      static constexpr std::array<std::pair<std::string_view, double>, 7> kTime{{{"s", 1.0},
                                                                                 {"ms", 1e-3},
                                                                                 {"us", 1e-6},
                                                                                 {"\u00b5s", 1e-6},
                                                                                 {"ns", 1e-9},
                                                                                 {"ps", 1e-12},
                                                                                 {"min", 60.0}}};
      for (const auto& [u, f] : kTime)
        if (unit == u) factor = f;
      break;
    }
    case Dimension::flop_rate: {
      const double p = take_prefix(unit, "FLOP/s|FLOPS|flop/s");
      if (unit == "FLOP/s" || unit == "FLOPS" || unit == "flop/s") factor = p;
      break;
    }
  }
  if (factor == 0.0)
    return {std::nullopt, "unknown unit '" + std::string(unit) + "' in '" + std::string(text) +
                              "' (expected " + std::string(to_string(dim)) + ", e.g. " +
                              std::string(example(dim)) + ")"};
  if (!std::isfinite(number * factor))
    return {std::nullopt, "'" + std::string(text) + "' is too large"};
  return {number * factor, {}};
}

Range accepted_range(Dimension dim) {
  return facts(dim).range;
}

std::string format_quantity(double value, Dimension dim) {
  char buf[64];
  const double a = std::fabs(value);
  switch (dim) {
    case Dimension::bytes: {
      static constexpr std::array<const char*, 6> kUnits{"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
      std::size_t i = 0;
      double v = value;
      while (i + 1 < kUnits.size() && std::fabs(v) >= 1024.0) {
        v /= 1024.0;
        ++i;
      }
      std::snprintf(buf, sizeof buf, i == 0 ? "%.0f %s" : "%.2f %s", v, kUnits[i]);
      return buf;
    }
    case Dimension::time: {
      if (a >= 1.0)
        std::snprintf(buf, sizeof buf, "%g s", value);
      else if (a >= 1e-3)
        std::snprintf(buf, sizeof buf, "%g ms", value * 1e3);
      else if (a >= 1e-6)
        std::snprintf(buf, sizeof buf, "%g us", value * 1e6);
      else if (a >= 1e-9)
        std::snprintf(buf, sizeof buf, "%g ns", value * 1e9);
      else
        std::snprintf(buf, sizeof buf, "%g ps", value * 1e12);
      return buf;
    }
    case Dimension::bandwidth:
    case Dimension::flop_rate: {
      static constexpr std::array<const char*, 7> kPrefix{"", "k", "M", "G", "T", "P", "E"};
      std::size_t i = 0;
      double v = value;
      while (i + 1 < kPrefix.size() && std::fabs(v) >= 1000.0) {
        v /= 1000.0;
        ++i;
      }
      std::snprintf(buf, sizeof buf, "%g %s%s", v, kPrefix[i],
                    dim == Dimension::bandwidth ? "B/s" : "FLOP/s");
      return buf;
    }
  }
  STEPSIM_UNREACHABLE("unknown dimension");
}

}  // namespace stepsim::spec
