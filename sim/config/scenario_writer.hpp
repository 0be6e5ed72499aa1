// A scenario file derived from another, for `stepsim plan --winner FILE`: the base scenario's
// YAML (or, for a MODEL CLUSTER plan, a new scenario naming the two files) with `--set`-style
// overrides (key.path=value, the value read as YAML) written into it, so that `stepsim run FILE`
// loads what the base loaded with those overrides.
// File references (model, cluster, software, device, a placement file) are rewritten relative to
// the new file's folder. An override under a reference (cluster.nodes=32 on `cluster: x.yaml`)
// writes the referenced file's YAML in place of the reference, its own references rewritten too,
// and sets the key there. yaml-cpp emits the tree: the base's comments and layout are not kept;
// the header comment given is written first.
#pragma once

#include <string>
#include <vector>

namespace stepsim::config {

struct ScenarioBase {
  std::string scenario;  // a scenario file; or else
  std::string model, cluster;
};

// Throws engine::UserError when the base cannot be read or an override does not apply.
std::string derived_scenario(const ScenarioBase& base, const std::vector<std::string>& sets,
                             const std::string& name, const std::string& out_file,
                             const std::string& header);

}  // namespace stepsim::config
