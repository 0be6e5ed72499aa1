// A shipped cluster file loaded for network tests, with --set style overrides.
#pragma once

#include <string>
#include <vector>

#include "sim/config/load.hpp"
#include "tests/test_support.hpp"

namespace stepsim::test {

inline spec::ClusterSpec cluster(const char* file, const std::vector<std::string>& sets = {}) {
  std::vector<config::Override> o;
  for (const auto& s : sets) o.push_back(config::parse_override(s));
  return config::load_cluster(source_path(file), o);
}

}  // namespace stepsim::test
