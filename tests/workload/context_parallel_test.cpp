#include "sim/workload/context_parallel.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "sim/engine/user_error.hpp"
#include "sim/net/algorithm/algorithm.hpp"
#include "sim/workload/layer_chains.hpp"
#include "sim/workload/memory.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;
using namespace stepsim::workload;
using net::CollectiveOp;
using spec::CpAlgorithm;

namespace {

// Token-level count of the (query, key) pairs a causal attention computes between two sets of
// positions: a key before its query counts 1, the key at the query's own position 1/2 (the area
// convention of the model's FLOPs: s²/2 per sequence).
double hand_count(const std::vector<int>& queries, const std::vector<int>& keys) {
  double n = 0.0;
  for (int q : queries)
    for (int k : keys) n += k < q ? 1.0 : k == q ? 0.5 : 0.0;
  return n;
}

// Positions of chunks a and b of `c` tokens each.
std::vector<int> chunks(int a, int b, int c) {
  std::vector<int> t;
  for (int chunk : {a, b})
    for (int i = 0; i < c; ++i) t.push_back(chunk * c + i);
  return t;
}

// An attention core of `heads` query heads and `kv` key/value heads of 64 dimensions, BF16.
OpCost attention(double heads, double kv) {
  OpCost op;
  op.name = "attn_core";
  op.cls = OpClass::attention_core;
  op.heads = heads;
  op.kv_heads = kv;
  op.qk_dim = op.v_dim = 64.0;
  op.head_dim = 64.0;
  op.act_bytes = 2.0;
  return op;
}

double total(const std::vector<CpExchange>& xs, CollectiveOp op) {
  double b = 0.0;
  for (const CpExchange& x : xs)
    if (x.op == op) b += x.bytes * x.count;
  return b;
}

spec::ScenarioSpec cp_scenario(int cp, CpAlgorithm a) {
  spec::ScenarioSpec s = test::small_scenario(4, 8);  // 16 heads of 64, hidden 1024
  s.parallel.tp = 2;
  s.parallel.cp = cp;
  s.parallel.cp_algorithm = a;
  s.training.seq_len = 4096;
  return s;
}

}  // namespace

TEST_CASE("The causal-balanced ring's per-step work matches a hand count for cp = 4") {
  // s = 64 tokens in 8 chunks of 8; ring rank r holds chunks r and 7 - r, and at step i attends
  // to the K, V of rank (r - i) mod 4, which holds chunks j and 7 - j.
  const int cp = 4, c = 8, s = 2 * cp * c;
  for (int r = 0; r < cp; ++r) {
    double sum = 0.0;
    for (int i = 0; i < cp; ++i) {
      const int j = ((r - i) % cp + cp) % cp;
      const double counted = hand_count(chunks(r, 2 * cp - 1 - r, c), chunks(j, 2 * cp - 1 - j, c));
      const AttentionBlock b = ring_block(s, cp, r, i, true);
      CAPTURE(r);
      CAPTURE(i);
      CHECK(b.pairs() == doctest::Approx(counted).epsilon(1e-9));
      CHECK(b.causal == (i == 0));  // the first step is the causal block, the rest unmasked
      CHECK(counted == doctest::Approx(2.0 * c * c).epsilon(1e-9));  // 2c² every step
      sum += counted;
    }
    CHECK(sum == doctest::Approx(s * s / (2.0 * cp)).epsilon(1e-9));  // 1/cp of s²/2
  }
  // Rank 0's shapes: its own two chunks (causal 16 x 16), then chunk 7 against the two chunks of
  // ranks 3, 2, 1 (8 x 16 each).
  CHECK(ring_block(s, cp, 0, 0, true).queries == 16);
  CHECK(ring_block(s, cp, 0, 2, true).queries == 8);
  CHECK(ring_block(s, cp, 0, 2, true).keys == 16);
  // Rank 3 at step 1 attends to rank 2's chunks: both its chunks against chunk 2 (16 x 8).
  CHECK(ring_block(s, cp, 3, 1, true).queries == 16);
  CHECK(ring_block(s, cp, 3, 1, true).keys == 8);
  // Without a causal mask every step is a full s/cp square.
  CHECK(ring_block(s, cp, 1, 2, false).pairs() == doctest::Approx(16.0 * 16.0));
}

TEST_CASE("All-gather CP: each rank's two causal blocks hold its pairs of the whole sequence") {
  const int cp = 4, c = 8, s = 2 * cp * c;
  std::vector<int> all(s);
  for (int i = 0; i < s; ++i) all[i] = i;
  for (int r = 0; r < cp; ++r) {
    double pairs = 0.0;
    for (const AttentionBlock& b : gather_blocks(s, cp, r, true)) pairs += b.pairs();
    CHECK(pairs == doctest::Approx(hand_count(chunks(r, 2 * cp - 1 - r, c), all)).epsilon(1e-9));
    CHECK(pairs == doctest::Approx(s * s / (2.0 * cp)).epsilon(1e-9));
  }
}

TEST_CASE("Exchanges per GPU: the closed forms of ring, all-gather, Ulysses and a2a+p2p") {
  // 16 query heads, 4 key/value heads of 64 on tp 2: 8 and 2 per GPU; one sequence of 4096.
  const OpCost op = attention(16, 4);
  const double seq = 4096, e = 2.0, d = 64.0;
  const double local = seq / 4;               // tokens per GPU at cp = 4
  const double kv = local * 2 * 2 * d * e;    // K and V of 2 heads
  const double q = local * 8 * d * e, o = q;  // Q, output of 8 heads
  const std::vector<CpExchange> f = cp_exchanges(op, seq, 1, 2, {4, CpAlgorithm::p2p, 1}, false);
  REQUIRE(f.size() == 1);
  CHECK(f[0].op == CollectiveOp::send_recv);
  CHECK(f[0].group == GroupRole::cp_ring);
  CHECK(f[0].count == 3);  // cp - 1 shifts
  CHECK(f[0].bytes == doctest::Approx(kv).epsilon(1e-9));
  // Backward: K, V at step 0, K, V and dK, dV at steps 1 and 2, dK, dV at step 3: 2(cp-1) of kv.
  const auto b = cp_exchanges(op, seq, 1, 2, {4, CpAlgorithm::p2p, 1}, true);
  CHECK(total(b, CollectiveOp::send_recv) == doctest::Approx(6 * kv).epsilon(1e-9));
  // All-gather: the gathered K, V (the whole sequence), then in backward dK, dV reduce-scattered.
  const auto g = cp_exchanges(op, seq, 1, 2, {4, CpAlgorithm::all_gather, 1}, true);
  CHECK(total(g, CollectiveOp::all_gather) == doctest::Approx(4 * kv).epsilon(1e-9));
  CHECK(total(g, CollectiveOp::reduce_scatter) == doctest::Approx(4 * kv).epsilon(1e-9));
  // Ulysses over 4 GPUs: 2 key/value heads per GPU are fewer than 4, so each is repeated to 4
  // heads before the exchange (twice the K, V bytes).
  const auto u = cp_exchanges(op, seq, 1, 2, {4, CpAlgorithm::a2a, 4}, false);
  REQUIRE(u.size() == 2);
  CHECK(u[0].group == GroupRole::cp_a2a);
  CHECK(u[0].bytes == doctest::Approx(q + 2 * kv).epsilon(1e-9));
  CHECK(u[1].bytes == doctest::Approx(o).epsilon(1e-9));
  CHECK(cp_heads(op, 2, {4, CpAlgorithm::a2a, 4}).q == 2);
  CHECK(cp_heads(op, 2, {4, CpAlgorithm::a2a, 4}).kv == 1);
  // a2a+p2p with 2 GPUs of the all-to-all: no repeat (2 >= 2), a ring of 2 over the rest.
  const auto h = cp_exchanges(op, seq, 1, 2, {4, CpAlgorithm::a2a_p2p, 2}, false);
  CHECK(total(h, CollectiveOp::all_to_all) == doctest::Approx(q + kv + o).epsilon(1e-9));
  CHECK(total(h, CollectiveOp::send_recv) == doctest::Approx(kv).epsilon(1e-9));
}

TEST_CASE("Ring shift bytes per GPU and link class, and its time alone") {
  const net::AlgorithmDef& shift =
      net::choose_algorithm(CollectiveOp::send_recv, {16, 1}, true, "auto");
  CHECK(shift.name == "shift");
  const double S = 4e6;
  // 16 GPUs on 16 nodes: every hop crosses the network; 16 on 2 nodes: 2 of 16 hops do.
  CHECK(shift.bytes_per_gpu({CollectiveOp::send_recv, S, {16, 1}}).ib == doctest::Approx(S));
  CHECK(shift.bytes_per_gpu({CollectiveOp::send_recv, S, {16, 8}}).ib ==
        doctest::Approx(S / 8).epsilon(1e-9));
  CHECK(shift.bytes_per_gpu({CollectiveOp::send_recv, S, {16, 8}}).nvlink ==
        doctest::Approx(S * 7 / 8).epsilon(1e-9));
  CHECK(shift.bytes_per_gpu({CollectiveOp::send_recv, S, {8, 8}}).nvlink == doctest::Approx(S));
  CHECK(shift.steps({CollectiveOp::send_recv, S, {16, 1}}) == 1.0);
}

TEST_CASE("A ring-attention layer's chain: cp steps beside cp - 1 shifts, the attention's FLOPs") {
  const spec::ScenarioSpec s1 = cp_scenario(1, CpAlgorithm::p2p);
  const spec::ScenarioSpec s4 = cp_scenario(4, CpAlgorithm::p2p);
  const ParallelPlan p1 = make_plan(s1), p4 = make_plan(s4);
  CHECK(p4.dp * 4 == p1.dp);
  CHECK(p4.tokens_per_micro_batch * 4 == p1.tokens_per_micro_batch);
  const ModelCost cost(s1.model, s1.training);
  auto attention_flops = [](const Chain& c) {
    double f = 0.0;
    for (const Work& w : c)
      for (const hw::Kernel& k : w.kernels)
        if (k.cls == &hw::kAttentionClass) f += k.flops;
    return f;
  };
  const Chain f1 = LayerChains(s1, p1, cost).forward_layers({0});
  const Chain f4 = LayerChains(s4, p4, cost).forward_layers({0});
  CHECK(attention_flops(f4) * 4 == doctest::Approx(attention_flops(f1)).epsilon(1e-9));
  std::vector<const Work*> steps, shifts;
  for (const Work& w : f4) {
    if (w.part.rfind("cp attn step", 0) == 0) steps.push_back(&w);
    if (w.kind == StepOpKind::cp_exchange) shifts.push_back(&w);
  }
  REQUIRE(steps.size() == 4);
  REQUIRE(shifts.size() == 3);
  // Step i+1 waits for shift i, the work just before it; a shift waits for no kernel of the ring.
  for (std::size_t i = 1; i < steps.size(); ++i) CHECK(steps[i]->after_back == 1);
  for (const Work* w : shifts) {
    CHECK(w->after_back == 0);
    CHECK_FALSE(w->blocks_next);
    REQUIRE(w->collectives.size() == 1);
    CHECK(w->collectives[0].op == CollectiveOp::send_recv);
    CHECK(w->collectives[0].kind == spec::TrafficKind::cp);
  }
  CHECK(steps.back()->blocks_next);
  // Backward: cp shifts, each after the kernel of the step before it, 2(cp - 1) of K, V in all.
  const Chain b4 = LayerChains(s4, p4, cost).backward_layers({0}, true);
  int bshifts = 0;
  double bytes = 0.0;
  for (const Work& w : b4)
    if (w.kind == StepOpKind::cp_exchange) {
      ++bshifts;
      bytes += w.bytes();
      if (bshifts > 1) CHECK(w.after_back == 3);
    }
  CHECK(bshifts == 4);
  CHECK(bytes == doctest::Approx(2 * 3 * shifts[0]->bytes()).epsilon(1e-9));
}

TEST_CASE("Memory at cp = 16: 1/16 of the activations, plus one layer's exchange buffers") {
  spec::ScenarioSpec s1 = test::small_scenario(16, 8);
  s1.parallel.tp = 8;
  s1.training.seq_len = 32768;
  s1.training.global_batch = 16;
  spec::ScenarioSpec s16 = s1;
  s16.parallel.cp = 16;
  const ModelCost cost(s1.model, s1.training);
  const ParallelPlan p1 = make_plan(s1), p16 = make_plan(s16);
  for (int st = 0; st < p1.stages; ++st)
    CHECK(stage_activation_bytes(s16, p16, cost, st) * 16 ==
          doctest::Approx(stage_activation_bytes(s1, p1, cost, st)).epsilon(1e-12));
  CHECK(cp_buffers(s1, p1, cost) == 0.0);
  // Hand count: 2048 tokens per GPU, 16 / 8 = 2 key/value heads of 64 + 64 in BF16 = 512 B per
  // token; the ring double-buffers K, V and dK, dV.
  const double kv = 2048.0 * 512;
  CHECK(cp_buffers(s16, p16, cost) == doctest::Approx(4 * kv).epsilon(1e-12));
  const MemoryBreakdown m1 = memory_per_gpu(s1, p1, cost), m16 = memory_per_gpu(s16, p16, cost);
  CHECK(m16.activations * 16 == doctest::Approx(m1.activations).epsilon(1e-12));
  CHECK(m16.buffers - m1.buffers == doctest::Approx(4 * kv).epsilon(1e-12));
  s16.parallel.cp_algorithm = CpAlgorithm::all_gather;  // the whole sequence's K, V and dK, dV
  CHECK(cp_buffers(s16, make_plan(s16), cost) == doctest::Approx(2 * 16 * kv).epsilon(1e-12));
}

TEST_CASE("Layouts context parallelism cannot run are refused at the scenario's line") {
  spec::ScenarioSpec s = cp_scenario(16, CpAlgorithm::a2a);  // 16 heads / tp 2 = 8 per GPU
  try {
    make_plan(s);
    FAIL("Ulysses with more GPUs than heads accepted");
  } catch (const engine::UserError& e) {
    CHECK(e.loc().file == "where:parallelism.cp");
    CHECK(std::string(e.what()).find("more GPUs than heads") != std::string::npos);
  }
  s.parallel.cp = 8;
  CHECK_NOTHROW(make_plan(s));
  s.training.seq_len = 4100;  // not 8 parts
  CHECK_THROWS_AS(make_plan(s), engine::UserError);
  s = cp_scenario(8, CpAlgorithm::p2p);
  s.training.seq_len = 4104;  // 8 parts, but not the 16 chunks of causal load balancing
  CHECK_THROWS_AS(make_plan(s), engine::UserError);
  // a2a+p2p needs several GPUs of the group on each of several nodes: tp 2, cp 4 sits in a node.
  s = cp_scenario(4, CpAlgorithm::a2a_p2p);
  CHECK_THROWS_AS(make_plan(s), engine::UserError);
  s.parallel.cp = 8;  // 4 GPUs on each of 2 nodes
  CHECK(make_plan(s).cp_a2a == 4);
}
