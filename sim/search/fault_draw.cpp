#include "sim/search/fault_draw.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "sim/engine/check.hpp"
#include "sim/engine/splitmix.hpp"
#include "sim/engine/user_error.hpp"
#include "sim/format/text_table.hpp"

namespace stepsim::search {

using spec::FaultEffect;
using spec::FaultKind;
using spec::FaultTarget;

namespace {

constexpr double kDefaultFactor = 0.5;
constexpr double kDefaultSlowdownLow = 1.1, kDefaultSlowdownHigh = 2.0;

bool has_value(FaultKind k) {
  return spec::effect_of(k) != FaultEffect::down;
}

[[noreturn]] void bad(const FaultDraw& d, const std::string& what, const std::string& hint) {
  throw engine::UserError({d.option + " " + d.text, 0, 0}, what, hint);
}

double parse_number(const FaultDraw& d, const std::string& value) {
  std::size_t used = 0;
  double x = 0.0;
  try {
    x = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value.size() || !std::isfinite(x))
    bad(d, "'" + value + "' is not a number", "e.g. " + d.option + " straggler:2@1.2-1.5");
  return x;
}

// A uniform index in [0, n), n < 2^53, without the bias of a plain modulo (rejection).
long long below(std::uint64_t& state, long long n) {
  const std::uint64_t m = static_cast<std::uint64_t>(n);
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % m;
  std::uint64_t x = engine::splitmix64_next(state);
  while (x >= limit) x = engine::splitmix64_next(state);
  return static_cast<long long>(x % m);
}

double uniform(std::uint64_t& state, double lo, double hi) {
  if (hi <= lo) return lo;
  const double u = static_cast<double>(engine::splitmix64_next(state) >> 11) / 9007199254740992.0;
  return lo + (hi - lo) * u;
}

// Component `i` of the draw's kind as a fault.
spec::FaultSpec component(const FaultDraw& d, const spec::ClusterSpec& c, long long i) {
  const spec::FabricShape s = spec::fabric_shape(c);
  spec::FaultSpec f;
  f.kind = d.kind;
  switch (f.target()) {
    case FaultTarget::nic:
      f.node = static_cast<int>(i / c.gpus_per_node);
      f.nic = static_cast<int>(i % c.gpus_per_node);
      break;
    case FaultTarget::link:
      f.spine = static_cast<int>(i % s.spines_per_plane);
      i /= s.spines_per_plane;
      f.leaf = static_cast<int>(i % s.leaves_per_plane);
      f.plane = static_cast<int>(i / s.leaves_per_plane);
      break;
    case FaultTarget::fabric_switch: {
      const int per_plane = s.leaves_per_plane + s.spines();
      f.plane = static_cast<int>(i / per_plane);
      const int j = static_cast<int>(i % per_plane);
      if (j < s.leaves_per_plane)
        f.leaf = j;
      else
        f.spine = j - s.leaves_per_plane;
      break;
    }
    case FaultTarget::node:
      f.node = static_cast<int>(i);
      break;
    case FaultTarget::nvlink:
    case FaultTarget::gpu:
      f.gpu = static_cast<int>(i);
      break;
  }
  return f;
}

}  // namespace

FaultDraw parse_fault_draw(const std::string& text, const std::string& option) {
  FaultDraw d;
  d.text = text;
  d.option = option;
  std::string rest = text, value;
  if (const auto at = rest.find('@'); at != std::string::npos) {
    value = rest.substr(at + 1);
    rest = rest.substr(0, at);
  }
  std::string count;
  const auto colon = rest.find(':');
  if (colon != std::string::npos) {
    count = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
  }
  const std::vector<std::string> words = spec::kFaultKinds.words();
  const auto kind = std::find(words.begin(), words.end(), rest);
  if (kind == words.end()) {
    std::string all;
    for (const std::string& w : words) all += (all.empty() ? "" : ", ") + w;
    bad(d, "unknown fault kind '" + rest + "'", "one of " + all);
  }
  d.kind = static_cast<FaultKind>(kind - words.begin());
  if (colon != std::string::npos) {
    // Decimal digits only, as --trials and --seed read them: no sign, exponent or hexadecimal.
    const bool digits =
        !count.empty() && count.size() <= 7 &&
        std::all_of(count.begin(), count.end(), [](char c) { return c >= '0' && c <= '9'; });
    const long n = digits ? std::stol(count) : 0;
    if (n < 1 || n > 1000000)
      bad(d,
          count.empty() ? std::string("nothing after ':'")
                        : "the count '" + count + "' is not a whole number from 1 to 1000000",
          "e.g. " + option + " " + rest + ":2, or drop ':' for one");
    d.count = static_cast<int>(n);
  }
  const bool straggler = spec::effect_of(d.kind) == FaultEffect::slowdown;
  if (value.empty()) {
    if (text.find('@') != std::string::npos) bad(d, "nothing after '@'", "e.g. @0.5 or @0.25-0.75");
    d.low = straggler ? kDefaultSlowdownLow : kDefaultFactor;
    d.high = straggler ? kDefaultSlowdownHigh : kDefaultFactor;
    return d;
  }
  if (!has_value(d.kind))
    bad(d, std::string(rest) + " takes no value: the component is down",
        "drop '@" + value + "', or use a *_degrade kind with a bandwidth factor");
  const auto dash = value.find('-', 1);
  d.low = parse_number(d, value.substr(0, dash));
  d.high = dash == std::string::npos ? d.low : parse_number(d, value.substr(dash + 1));
  const double lo = straggler ? 1.0 : 1e-2, hi = straggler ? 100.0 : 1.0;
  if (d.low < lo || d.high > hi || d.high < d.low)
    bad(d,
        std::string(straggler ? "a slowdown" : "a bandwidth factor") + " range must lie in [" +
            format::fixed(lo, lo < 1 ? 2 : 0) + ", " + format::fixed(hi, 0) + "], low first",
        straggler ? "e.g. straggler:1@1.2-1.5 (1.2 to 1.5 times slower)"
                  : "e.g. nic_degrade:1@0.25-0.5 (a quarter to half the bandwidth)");
  return d;
}

long long components(const FaultDraw& d, const spec::ClusterSpec& c) {
  const spec::FabricShape s = spec::fabric_shape(c);
  const bool fabric = c.fabric.kind != spec::FabricKind::none;
  switch (spec::target_of(d.kind)) {
    case FaultTarget::nic:
      return fabric ? static_cast<long long>(c.nodes) * c.gpus_per_node : 0;
    case FaultTarget::link:
      return fabric ? static_cast<long long>(s.planes) * s.leaves_per_plane * s.spines_per_plane
                    : 0;
    case FaultTarget::fabric_switch:
      return fabric ? static_cast<long long>(s.planes) * (s.leaves_per_plane + s.spines()) : 0;
    case FaultTarget::node:
      return c.nodes;
    case FaultTarget::nvlink:
    case FaultTarget::gpu:
      return c.world_size();
  }
  STEPSIM_UNREACHABLE("unknown fault target");
}

void check_draw(const FaultDraw& d, const spec::ClusterSpec& c) {
  const long long n = components(d, c);
  if (n >= d.count) return;
  const std::string kind(spec::kFaultKinds.word(d.kind));
  if (n == 0)
    bad(d, "the cluster has no component a " + kind + " fault can hit",
        "NIC, link and switch faults need a scale-out fabric (leaf-spine links need spines)");
  bad(d,
      "the cluster has " + std::to_string(n) + " components a " + kind +
          " fault can hit, fewer than " + std::to_string(d.count),
      "ask for at most " + std::to_string(n));
}

std::vector<spec::FaultSpec> draw_trial(const std::vector<FaultDraw>& draws,
                                        const spec::ClusterSpec& c, long long trial,
                                        std::uint64_t seed) {
  std::uint64_t state =
      engine::splitmix64(engine::splitmix64(seed) ^ static_cast<std::uint64_t>(trial));
  std::vector<spec::FaultSpec> out;
  for (const FaultDraw& d : draws) {
    const long long n = components(d, c);
    STEPSIM_CHECK(n >= d.count, "a draw of more components than the cluster has");
    std::set<long long> taken;
    while (static_cast<int>(taken.size()) < d.count) {
      const long long i = below(state, n);
      if (!taken.insert(i).second) continue;
      spec::FaultSpec f = component(d, c, i);
      if (has_value(d.kind)) f.factor = uniform(state, d.low, d.high);
      out.push_back(f);
    }
  }
  return out;
}

std::string value_text(const FaultDraw& d) {
  if (!has_value(d.kind)) return "";
  const std::string what =
      spec::effect_of(d.kind) == FaultEffect::slowdown ? "slowdown " : "factor ";
  const std::string lo = format::general(d.low), hi = format::general(d.high);
  return what + (d.high > d.low ? lo + "-" + hi : lo);
}

}  // namespace stepsim::search
