// Everything one simulation needs, as plain values: model, cluster, training, parallelism.
// `where` remembers which file, line and column each field came from, so that checks done
// after loading (impossible parallelism, memory) still point the user at the right line.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/engine/user_error.hpp"
#include "sim/hw/cluster_spec.hpp"
#include "sim/workload/model_spec.hpp"
#include "sim/workload/parallel_spec.hpp"
#include "sim/workload/training_spec.hpp"

namespace stepsim::workload {

struct Provenance {
  engine::SourceLoc file;                         // the scenario file itself
  std::map<std::string, engine::SourceLoc> keys;  // "parallelism.pp" -> where it was set
  std::vector<std::string> files;  // every file read: scenario, model, cluster, device
  // Where `path` was set, else the closest enclosing key, else the file.
  engine::SourceLoc at(const std::string& path) const;
};

// flow: max-min sharing; analytic: α + S/β per transfer; free: communication takes no time
// (isolates pipeline bubbles and compute).
enum class NetworkFidelity { flow, analytic, free };

struct ScenarioSpec {
  std::string name;
  NetworkFidelity fidelity = NetworkFidelity::flow;
  int chunks = 1;  // chunks streaming through every collective's phases (net/transfer_dag.hpp)
  ModelSpec model;
  hw::ClusterSpec cluster;
  TrainingSpec training;
  ParallelSpec parallel;
  bool exact = false;  // simulate every cell of GPUs, without symmetry classes (exec/symmetry.hpp)
  Provenance where;
};

}  // namespace stepsim::workload
