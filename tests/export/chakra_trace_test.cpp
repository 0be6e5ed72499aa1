// The Chakra execution traces (export/chakra_trace.hpp), decoded with protobuf as Chakra's own
// reader decodes them, against the step program they were written from: node counts, the
// collective bytes of every GPU against the program's fold, sends matched by receives,
// dependencies in schedule order.
#include "sim/export/chakra_trace.hpp"

#include <doctest/doctest.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "sim/config/load.hpp"
#include "sim/export/chakra_et.pb.h"
#include "tests/json_dom.hpp"
#include "tests/test_support.hpp"
#include "tests/workload/spec_fixture.hpp"

using namespace stepsim;
namespace et = stepsim::chakra;

namespace {

struct Decoded {
  et::GlobalMetadata meta;
  std::vector<et::Node> nodes;
};

Decoded decode(const std::string& bytes) {
  Decoded d;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  bool eof = false;
  REQUIRE(google::protobuf::util::ParseDelimitedFromCodedStream(&d.meta, &in, &eof));
  for (;;) {
    et::Node n;
    if (!google::protobuf::util::ParseDelimitedFromCodedStream(&n, &in, &eof)) {
      REQUIRE(eof);  // the stream ends between messages, not inside one
      break;
    }
    d.nodes.push_back(std::move(n));
  }
  return d;
}

const et::AttributeProto* find_attr(const et::Node& n, const std::string& name) {
  for (const auto& a : n.attr())
    if (a.name() == name) return &a;
  return nullptr;
}

std::int64_t i64(const et::Node& n, const char* name) {
  const et::AttributeProto* a = find_attr(n, name);
  REQUIRE_MESSAGE(a, name);
  REQUIRE(a->value_case() == et::AttributeProto::kInt64Val);
  return a->int64_val();
}

int i32(const et::Node& n, const char* name) {
  const et::AttributeProto* a = find_attr(n, name);
  REQUIRE_MESSAGE(a, name);
  REQUIRE(a->value_case() == et::AttributeProto::kInt32Val);
  return a->int32_val();
}

// Per collective type, the bytes per GPU as stepsim counts them; the pipeline sends' apart.
struct Bytes {
  std::map<int, std::int64_t> collective;  // by CollectiveCommType
  std::int64_t ring = 0;                   // context parallelism's ring shifts (sent)
  std::int64_t pipeline = 0;               // pipeline sends
  int collectives = 0;
};

int comm_type_of(net::CollectiveOp op) {
  switch (op) {
    case net::CollectiveOp::all_reduce:
      return et::ALL_REDUCE;
    case net::CollectiveOp::all_gather:
      return et::ALL_GATHER;
    case net::CollectiveOp::reduce_scatter:
      return et::REDUCE_SCATTER;
    case net::CollectiveOp::broadcast:
      return et::BROADCAST;
    default:
      return et::ALL_TO_ALL;
  }
}

// The program's fold (workload::fold) of pipeline rank `rank`: every collective of a group of
// more than one GPU, times the chunks that run it.
Bytes program_bytes(const run::Result& r, int rank) {
  struct Visitor {
    const workload::StepProgram& p;
    Bytes out;
    void work(const workload::Work& w, double runs) {
      for (const workload::CollectiveWork& c : w.collectives) {
        if (p.plan.group(c.group).size <= 1) continue;
        const auto n = static_cast<std::int64_t>(runs);
        if (c.op == net::CollectiveOp::send_recv || c.op == net::CollectiveOp::p2p) {
          out.ring += n * std::llround(c.bytes);
          continue;
        }
        out.collective[comm_type_of(c.op)] += n * std::llround(c.bytes);
        out.collectives += static_cast<int>(n);
      }
    }
    void chain(int c, double runs) {
      for (const workload::Work& w : p.chains[c]) work(w, runs);
    }
    void sends(const std::vector<double>& counts) {
      for (double n : counts)
        out.pipeline += static_cast<std::int64_t>(n) * std::llround(p.send_bytes);
    }
    void tail(const workload::Work& w) { work(w, 1.0); }
  } v{r.program(), {}};
  workload::fold(r.program(), rank, v);
  return v.out;
}

using Message = std::tuple<int, int, int, std::int64_t>;  // src, dst, tag, size

// Every check of every GPU's file; returns the number of nodes written.
long long check_export(const run::Result& r) {
  const exports::ChakraTraces traces(r);
  const workload::ParallelPlan& plan = r.plan();
  const exec::StepGraph& g = r.build.graph;
  REQUIRE(traces.npus() == plan.world);

  // The communicator groups: every GPU of a role's groups once, each group an arithmetic run.
  const test::Json groups = test::parse_json(traces.comm_groups());
  CHECK(groups.size() == traces.groups().size());
  std::map<int, std::set<int>> members;
  for (const auto& [id, list] : groups.items())
    for (const auto& m : list) members[std::stoi(id)].insert(m.get<int>());

  std::multiset<Message> sent, received;
  long long total = 0;
  for (int npu = 0; npu < plan.world; ++npu) {
    CAPTURE(npu);
    const std::string bytes = traces.trace(npu);
    if (npu % 7 == 0) CHECK(bytes == traces.trace(npu));  // deterministic
    const Decoded d = decode(bytes);
    CHECK(d.meta.version() == "0.0.4");
    const int gpu = npu + plan.gpu_offset, rank = plan.rank_of_gpu(gpu);

    // Node ids from 1 in file order; every dependency names an earlier node.
    std::map<std::uint64_t, const et::Node*> by_id;
    std::set<std::uint64_t> needed;
    for (std::size_t i = 0; i < d.nodes.size(); ++i) {
      const et::Node& n = d.nodes[i];
      REQUIRE(n.id() == i + 1);
      for (std::uint64_t dep : n.data_deps()) {
        REQUIRE(by_id.count(dep) == 1);
        needed.insert(dep);
      }
      CHECK(n.ctrl_deps().empty());
      by_id[n.id()] = &n;
    }

    // Counts against the simulated device the GPU belongs to, and its bytes against the fold.
    int device = 0;  // the rank's first class: every class of a rank runs the same ops
    while (g.rank_of(device) != rank) ++device;
    int compute_ops = 0;
    for (const auto& stream : g.streams[device])
      for (int id : stream)
        if (!workload::is_communication(g.ops[id].kind) &&
            g.ops[id].kind != workload::StepOpKind::barrier)
          ++compute_ops;
    Bytes file;
    int comp = 0;
    const et::Node* before = nullptr;
    for (const et::Node& n : d.nodes) {
      switch (n.type()) {
        case et::COMP_NODE: {
          ++comp;
          const double ps = static_cast<double>(i64(n, "stepsim_duration_ps"));
          CHECK(std::abs(static_cast<double>(n.duration_micros()) - ps * 1e-6) <= 0.5 + 1e-9);
          CHECK(i64(n, "num_ops") >= 0);
          // The compute stream runs in issue order: each compute node waits for the one before.
          if (before) {
            bool after = false;
            for (std::uint64_t dep : n.data_deps()) after = after || dep == before->id();
            CHECK_MESSAGE(after, n.name());
          }
          before = &n;
          break;
        }
        case et::COMM_COLL_NODE: {
          const int type = static_cast<int>(i64(n, "comm_type"));
          const std::int64_t stepsim_bytes = i64(n, "stepsim_bytes");
          file.collective[type] += stepsim_bytes;
          ++file.collectives;
          const et::AttributeProto* pg = find_attr(n, "pg_name");
          REQUIRE(pg);
          const int id = std::stoi(pg->string_val());
          REQUIRE(members.count(id) == 1);
          CHECK(members[id].count(npu) == 1);  // the GPU is in the group it runs over
          const auto size = static_cast<std::int64_t>(members[id].size());
          const std::int64_t comm_size = i64(n, "comm_size");
          if (type == et::ALL_GATHER)  // ASTRA-sim's size: the shard each member brings
            CHECK(std::llabs(comm_size * size - stepsim_bytes) <= size);
          else
            CHECK(comm_size == stepsim_bytes);
          break;
        }
        case et::COMM_SEND_NODE:
        case et::COMM_RECV_NODE: {
          const Message m{i32(n, "comm_src"), i32(n, "comm_dst"), i32(n, "comm_tag"),
                          i64(n, "comm_size")};
          const bool send = n.type() == et::COMM_SEND_NODE;
          CHECK((send ? std::get<0>(m) : std::get<1>(m)) == npu);
          (send ? sent : received).insert(m);
          const int peer = send ? std::get<1>(m) : std::get<0>(m);
          const bool pipeline = plan.rank_of_gpu(peer + plan.gpu_offset) != rank;
          if (send) (pipeline ? file.pipeline : file.ring) += std::get<3>(m);
          // A pipeline input is waited for by an op after it.
          if (!send) CHECK_MESSAGE(needed.count(n.id()) == 1, n.name());
          break;
        }
        default:
          FAIL("a node type stepsim does not write: " << n.type());
      }
    }
    CHECK(comp == compute_ops);
    const Bytes fold = program_bytes(r, rank);
    CHECK(file.collective == fold.collective);
    CHECK(file.collectives == fold.collectives);
    CHECK(file.pipeline == fold.pipeline);
    CHECK(file.ring == fold.ring);
    total += static_cast<long long>(d.nodes.size());
  }
  // Every message sent is received by its destination with the same tag and size.
  CHECK(sent == received);
  return total;
}

}  // namespace

TEST_CASE("chakra traces of a dense pipeline: every node, byte and message of the program") {
  const run::Result r = run::simulate_step(test::pipelined_scenario());
  CHECK(check_export(r) > 0);
  const exports::ChakraTraces traces(r);
  // pp 2 x dp 4 x tp 4: tensor-parallel groups of 4 consecutive GPUs, data-parallel ones 4 apart.
  auto groups_of = [&](workload::GroupRole role) {
    return std::count_if(traces.groups().begin(), traces.groups().end(),
                         [&](const exports::ChakraTraces::Group& x) { return x.role == role; });
  };
  CHECK(groups_of(workload::GroupRole::tp) == 8);
  CHECK(groups_of(workload::GroupRole::dp) == 8);
  CHECK(traces.group_id(workload::GroupRole::tp, 5) == 2);  // GPUs 4-7, after 0-3
  CHECK(exports::ChakraTraces::file_name("step", 17) == "step.17.et");
}

TEST_CASE("chakra traces with every cell its own class, context parallelism's ring and experts") {
  SUBCASE("every cell simulated on its own") {
    spec::ScenarioSpec s = test::pipelined_scenario();
    s.exact = true;
    const run::Result r = run::simulate_step(s);
    REQUIRE(r.build.graph.classes > 1);
    CHECK(check_export(r) > 0);
  }
  SUBCASE("a context-parallel ring") {
    spec::ScenarioSpec s = test::small_scenario(2, 8);
    s.parallel.pp = 2;
    s.parallel.tp = 2;
    s.parallel.cp = 2;
    s.parallel.cp_algorithm = spec::CpAlgorithm::p2p;
    s.parallel.schedule = workload::schedule_named("1f1b");
    s.training.global_batch = 8;
    const run::Result r = run::simulate_step(s);
    REQUIRE(r.plan().cp == 2);
    CHECK(check_export(r) > 0);
  }
  SUBCASE("DeepSeek-V3's DualPipe on four nodes: expert all-to-alls, explicit sends") {
    std::vector<config::Override> o;
    for (const char* set :
         {"cluster.nodes=4", "parallelism.ep=2", "parallelism.pp=4", "training.global_batch=64"})
      o.push_back(config::parse_override(set));
    const run::Result r = run::simulate_step(
        config::load_scenario(test::source_path("scenarios/deepseek-v3-dualpipe.yaml"), o));
    CHECK(check_export(r) > 0);
  }
}
