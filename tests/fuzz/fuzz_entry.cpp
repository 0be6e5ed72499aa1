#include "tests/fuzz/fuzz_entry.hpp"

#include "sim/config/load.hpp"
#include "sim/report/spec_summary.hpp"

namespace stepsim::fuzz {

namespace {

// Relative paths in the input resolve against the shipped scenarios, as for a file in scenarios/.
const std::string kScenario = std::string(STEPSIM_SOURCE_DIR) + "/scenarios/fuzz-input.yaml";
const std::string kTopology = std::string(STEPSIM_SOURCE_DIR) + "/topologies/fuzz-input.yaml";

template <class F>
int accepts(F f) {
  try {
    f();
    return 1;
  } catch (const engine::UserError&) {
    return 0;
  }
}

}  // namespace

int load_everything(const std::string& text) {
  int ok = accepts([&] { config::parse_scenario(text, kScenario); });
  ok += accepts([&] { config::read_model(config::Document::parse(text, "model.yaml", {}, "", nullptr).root()); });
  ok += accepts([&] { config::read_hf_config(config::Document::parse(text, "config.json", {}, "", nullptr).root()); });
  ok += accepts([&] {
    config::read_cluster(config::Document::parse(text, kTopology, {}, "", nullptr).root(), STEPSIM_SOURCE_DIR "/topologies", {}, "");
  });
  ok += accepts([&] { config::read_device(config::Document::parse(text, "device.yaml", {}, "", nullptr).root()); });
  return ok;
}

int check_scenario(const std::string& text) {
  return accepts([&] { report::describe(config::parse_scenario(text, kScenario)); });
}

}  // namespace stepsim::fuzz
