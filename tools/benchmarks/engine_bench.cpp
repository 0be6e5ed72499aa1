// Engine throughput: `processes` handlers each reschedule themselves at a pseudo-random delay
// until `events` events have run, so the heap holds `processes` pending events throughout.
// Prints events per second of wall time. Usage: engine_bench [events] [processes]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "sim/engine/simulator.hpp"

using namespace stepsim::engine;

namespace {

struct Process final : EventHandler {
  std::uint64_t state = 88172645463325252ULL;
  void on_event(Simulator& sim, std::uint64_t tag) override {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    sim.after(Time::ps(1 + static_cast<std::int64_t>(state % 1'000'000)), this, tag);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t events = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 20'000'000;
  const std::size_t processes = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 4096;
  std::vector<Process> ps(processes);
  Simulator sim;
  sim.queue().reserve(processes + 1);
  for (std::size_t i = 0; i < processes; ++i) {
    ps[i].state += i * 0x9E3779B97F4A7C15ULL;
    sim.at(Time::ps(static_cast<std::int64_t>(i)), &ps[i], i);
  }
  RunLimits lim;
  lim.max_events = events;
  const auto t0 = std::chrono::steady_clock::now();
  const RunStats s = sim.run(lim);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("engine: %llu events, %zu pending, %.3f s wall, %.2f M events/s, simulated %s\n",
              static_cast<unsigned long long>(s.events), processes, wall, s.events / wall / 1e6,
              s.end.to_string().c_str());
  return 0;
}
