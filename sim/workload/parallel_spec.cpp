#include "sim/workload/parallel_spec.hpp"

#include <array>
#include <utility>

namespace stepsim::workload {

namespace {
constexpr std::array<std::pair<Schedule, std::string_view>, 7> kNames{{
    {Schedule::none, "none"},
    {Schedule::gpipe, "gpipe"},
    {Schedule::one_f_one_b, "1f1b"},
    {Schedule::interleaved, "interleaved"},
    {Schedule::zb1p, "zb1p"},
    {Schedule::dualpipe, "dualpipe"},
    {Schedule::dualpipev, "dualpipev"},
}};
}  // namespace

std::string_view to_string(Schedule s) {
  for (const auto& [k, n] : kNames)
    if (k == s) return n;
  return "?";
}

std::optional<Schedule> parse_schedule(std::string_view s) {
  for (const auto& [k, n] : kNames)
    if (n == s) return k;
  return std::nullopt;
}

}  // namespace stepsim::workload
