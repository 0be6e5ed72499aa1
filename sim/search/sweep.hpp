// A sweep (`stepsim sweep`): one scenario simulated at every point of the Cartesian product of
// the values of some keys (the first key outermost, the last fastest), one result per point. A
// point whose scenario the rules refuse keeps the refusal as its error; the points spread over the
// workers' threads and MPI ranks and come back in point order.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/run/workers.hpp"
#include "sim/search/planner.hpp"

namespace stepsim::search {

// A key and its values, as the user wrote them.
struct Vary {
  std::string key;
  std::vector<std::string> values;
};

struct Sweep {
  std::vector<Vary> varies;
  std::size_t points() const;
  // Point i as the index of each key's value.
  std::vector<std::size_t> at(std::size_t i) const;
};

// Point i's scenario (throws engine::UserError when its values make no valid scenario).
using PointScenario = std::function<spec::ScenarioSpec(std::size_t i)>;

// Every point simulated (search::simulate, within `max_memory` bytes each): on rank 0, the
// results in point order; on the other ranks, nothing. Throws engine::UserError (at --vary) when
// no point simulates, naming the first point's error.
std::vector<Simulated> run_sweep(const Sweep& sweep, const PointScenario& scenario,
                                 run::Workers& workers, const engine::RunControl* control,
                                 double max_memory);

}  // namespace stepsim::search
