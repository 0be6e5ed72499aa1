#include "sim/config/unit_notes.hpp"

#include <algorithm>
#include <regex>
#include <sstream>

#include "sim/format/text_table.hpp"
#include "sim/spec/units.hpp"

namespace stepsim::config {

std::vector<std::string> bit_quantities(const std::string& file, const std::string& text,
                                        bool lines) {
  // A value: after a key's colon, a list's bracket, a flow map's brace or a comma; then the
  // number, an optional SI or binary prefix and a unit in bits; then the value's end.
  static const std::regex value(
      R"((?:^|[:\[{,-])\s*([0-9][0-9.]*(?:[eE][+-]?[0-9]+)?\s*(?:[kMGTPE]i?)?(?:b/s|bps|b))\s*(?=[,}\]#]|$))");
  std::vector<std::string> out;
  std::istringstream stream(text);
  std::string line;
  for (int n = 1; std::getline(stream, line); ++n) {
    const std::string code = line.substr(0, line.find('#'));
    for (std::sregex_iterator it(code.begin(), code.end(), value), end; it != end; ++it) {
      std::string quantity = (*it)[1];
      quantity.erase(std::remove(quantity.begin(), quantity.end(), ' '), quantity.end());
      const bool rate = quantity.back() == 's';
      const auto q = spec::parse_quantity(
          quantity, rate ? spec::Dimension::bandwidth : spec::Dimension::bytes);
      if (!q.value) continue;
      out.push_back(file + (lines ? ":" + std::to_string(n) : "") + ": " + quantity +
                    " is read as bits: " +
                    (rate ? format::fixed(*q.value / 1e9, 3) + " GB/s" : format::gb(*q.value)) +
                    " (" + quantity.substr(0, quantity.size() - (rate ? 3 : 1)) +
                    (rate ? "B/s" : "B") + " would be bytes)");
    }
  }
  return out;
}

}  // namespace stepsim::config
