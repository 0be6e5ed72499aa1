#include "sim/engine/user_error.hpp"
#include "sim/net/algorithm/algorithm.hpp"

namespace stepsim::net {

extern const AlgorithmDef kHierarchical, kRing, kDirect, kNodeLimited, kChain, kP2p;

const std::vector<const AlgorithmDef*>& algorithms() {
  static const std::vector<const AlgorithmDef*> kAll{&kHierarchical, &kRing,  &kDirect,
                                                     &kNodeLimited,  &kChain, &kP2p};
  return kAll;
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
                                     std::string_view requested) {
  if (requested == "auto") {
    for (const AlgorithmDef* a : algorithms())
      if (a->runs(op) && a->fits(shape, uniform)) return *a;
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
    return *a;
  } else {
    throw engine::UserError({"--algorithm", 0, 0},
                            "unknown algorithm '" + std::string(requested) + "'",
                            algorithm_names());
  }
  std::string needs;
  for (const AlgorithmDef* a : algorithms())
    if (a->runs(op)) needs = a->needs;
  throw engine::UserError({"--group", 0, 0}, std::string(to_string(op)) + " needs " + needs,
                          "use a group of whole nodes, e.g. nodes:0-7");
}

}  // namespace stepsim::net
