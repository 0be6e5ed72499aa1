#include "sim/engine/user_error.hpp"
#include "sim/net/algorithm/algorithm.hpp"

namespace stepsim::net {

extern const AlgorithmDef kHierarchical, kRing, kTree, kNvls, kNvlsTree, kSharp, kDirect, kDeepEp,
    kChain, kP2p, kShift;

const std::vector<const AlgorithmDef*>& algorithms() {
  static const std::vector<const AlgorithmDef*> kAll{&kHierarchical, &kRing,  &kTree,   &kNvls,
                                                     &kNvlsTree,     &kSharp, &kDirect, &kDeepEp,
                                                     &kChain,        &kP2p,   &kShift};
  return kAll;
}

bool available(const AlgorithmDef& a, const spec::ClusterSpec& c) {
  switch (a.feature) {
    case Feature::nvls:
      return c.nvls_bandwidth > 0.0;
    case Feature::sharp:
      return c.fabric.sharp;
    case Feature::none:
      break;
  }
  return true;
}

const AlgorithmDef* find_algorithm(std::string_view name) {
  for (const AlgorithmDef* a : algorithms())
    if (a->name == name) return a;
  return nullptr;
}

std::string algorithm_names() {
  std::string s = "auto";
  for (const AlgorithmDef* a : algorithms()) s += ", " + std::string(a->name);
  return s;
}

const AlgorithmDef& choose_algorithm(CollectiveOp op, GroupShape shape, bool uniform,
                                     std::string_view requested, const spec::ClusterSpec* cluster) {
  if (requested == "auto") {
    for (const AlgorithmDef* a : algorithms())
      if (a->feature == Feature::none && a->runs(op) && a->fits(shape, uniform)) return *a;
  } else if (const AlgorithmDef* a = find_algorithm(requested)) {
    if (!a->runs(op))
      throw engine::UserError({"--algorithm", 0, 0},
                              std::string(a->name) + " does not run " + std::string(to_string(op)),
                              "use --algorithm auto");
    if (!a->fits(shape, uniform))
      throw engine::UserError(
          {"--algorithm", 0, 0},
          "a " + std::string(a->name) + " collective needs " + std::string(a->needs),
          "use --algorithm auto, or a group such as world or nodes:A-B");
    if (cluster && !available(*a, *cluster))
      throw engine::UserError({"--algorithm", 0, 0},
                              std::string(a->name) + " needs " +
                                  (a->feature == Feature::nvls ? "NVLS (nvlink: {nvls: RATE})"
                                                               : "SHARP (fabric: {sharp: true})") +
                                  ", which " + cluster->name + " does not declare",
                              "use --algorithm auto");
    return *a;
  } else {
    throw engine::UserError({"--algorithm", 0, 0},
                            "unknown algorithm '" + std::string(requested) + "'",
                            algorithm_names());
  }
  std::string needs;
  for (const AlgorithmDef* a : algorithms())
    if (a->runs(op) && a->feature == Feature::none) needs = a->needs;
  throw engine::UserError({"--group", 0, 0}, std::string(to_string(op)) + " needs " + needs,
                          "use a group of whole nodes, e.g. nodes:0-7");
}

}  // namespace stepsim::net
