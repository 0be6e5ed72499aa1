#include "sim/exec/step_jobs.hpp"

#include <doctest/doctest.h>

using namespace stepsim;
using namespace stepsim::exec;
using engine::Time;

namespace {

// A job of one device: a 10 ms kernel, then a communication op of `ms` that, alone, asks
// `share` of link `link`'s 100 GB/s over its run. Links are unmerged, as build_step leaves them
// for joining.
StepGraph job(int link, double share, double ms = 10.0) {
  StepGraph g;
  g.devices = 1;
  g.streams.resize(1);
  g.link_capacity = {100e9, 100e9};
  StepOp k;
  k.duration = Time::ms(10);
  const int a = g.add(k);
  StepOp c;
  c.stream = workload::StreamKind::comm;
  c.kind = workload::StepOpKind::dp_grads;
  c.duration = Time::from_seconds(ms * 1e-3);
  c.deps = {a};
  c.load = g.add_shape({{link, share * 100e9 * ms * 1e-3}});
  g.add(c);
  return g;
}

double end_of(const StepGraph& a, const StepGraph& b, int j) {
  const JointGraph joint = join_graphs({&a, &b});
  return job_timeline(joint, execute_step(joint.graph), j).step.seconds();
}

}  // namespace

TEST_CASE("Jobs on disjoint links keep their own step") {
  const StepGraph a = job(0, 1.0), b = job(1, 1.0);
  CHECK(end_of(a, b, 0) == doctest::Approx(0.020).epsilon(1e-9));
  CHECK(end_of(a, b, 1) == doctest::Approx(0.020).epsilon(1e-9));
}

TEST_CASE("Jobs sharing a link get their max-min shares of it") {
  // Both ask the whole link for 10 ms: each gets half, so both transfers take 20 ms.
  const StepGraph a = job(0, 1.0), b = job(0, 1.0);
  CHECK(end_of(a, b, 0) == doctest::Approx(0.030).epsilon(1e-9));
  CHECK(end_of(a, b, 1) == doctest::Approx(0.030).epsilon(1e-9));
  // One asks 30 % and the other all of it: max-min over the ops' speeds x gives both
  // x = 1 / (0.3 + 1), so both 10 ms transfers take 13 ms.
  const StepGraph light = job(0, 0.3);
  CHECK(end_of(light, b, 0) == doctest::Approx(0.023).epsilon(1e-9));
  CHECK(end_of(light, b, 1) == doctest::Approx(0.023).epsilon(1e-9));
}

TEST_CASE("A job's timeline is its own ops, numbered as in its graph") {
  const StepGraph a = job(0, 1.0, 5.0), b = job(0, 1.0);
  const JointGraph joint = join_graphs({&a, &b});
  CHECK(joint.graph.devices == 2);
  CHECK(joint.first_op == std::vector<int>{0, 2, 4});
  CHECK(joint.first_device == std::vector<int>{0, 1, 2});
  CHECK(joint.graph.ops[3].deps == std::vector<int>{2});
  CHECK(joint.graph.ops[3].device == 1);
  const StepTimeline t = execute_step(joint.graph);
  const StepTimeline tb = job_timeline(joint, t, 1);
  REQUIRE(tb.end.size() == 2);
  CHECK(tb.end[0] == t.end[2]);
  CHECK(tb.end[1] == t.end[3]);
  for (const PieceRun& p : tb.pieces) CHECK(p.op == 1);
  CHECK(tb.step == t.end[3]);
  // Half speed while both send (5 ms of a's work takes 10), then b alone: 10 + 10 + 5 ms.
  CHECK(tb.step.seconds() == doctest::Approx(0.025).epsilon(1e-9));
  CHECK(link_bytes(a) == std::vector<double>{0.5e9, 0.0});
}
