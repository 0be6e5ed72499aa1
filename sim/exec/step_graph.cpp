#include "sim/exec/step_graph.hpp"

#include <algorithm>
#include <map>

namespace stepsim::exec {

int StepGraph::add(StepOp op, OpFacts f) {
  const int id = static_cast<int>(ops.size());
  streams[op.device][static_cast<int>(op.stream)].push_back(id);
  ops.push_back(std::move(op));
  facts.push_back(f);
  return id;
}

int StepGraph::add_shape(std::vector<net::LinkLoad> load) {
  loads.push_back(std::move(load));
  shapes.push_back({{1.0, static_cast<int>(loads.size()) - 1}});
  return static_cast<int>(shapes.size()) - 1;
}

void StepGraph::merge_equivalent_links() {
  // A link's signature: its capacity and its (profile, bytes) pairs in profile order, over the
  // profiles ops use (a sum's parts do not count).
  std::vector<bool> used(loads.size(), false);
  for (const StepOp& op : ops)
    if (op.load >= 0)
      for (const net::LoadPiece& piece : shapes[op.load])
        if (piece.profile >= 0) used[piece.profile] = true;
  std::vector<std::vector<std::pair<int, double>>> sig(link_capacity.size());
  for (std::size_t p = 0; p < loads.size(); ++p)
    if (used[p])
      for (const net::LinkLoad& l : loads[p]) sig[l.link].push_back({static_cast<int>(p), l.bytes});
  std::map<std::pair<double, std::vector<std::pair<int, double>>>, int> classes;
  std::vector<int> class_of(link_capacity.size(), -1);
  std::vector<double> capacity;
  for (std::size_t l = 0; l < sig.size(); ++l) {
    if (sig[l].empty()) continue;
    auto [it, added] = classes.try_emplace({link_capacity[l], std::move(sig[l])},
                                           static_cast<int>(capacity.size()));
    if (added) capacity.push_back(link_capacity[l]);
    class_of[l] = it->second;
  }
  for (std::size_t p = 0; p < loads.size(); ++p) {
    auto& profile = loads[p];
    if (!used[p]) {
      profile.clear();  // no op reads it
      continue;
    }
    std::vector<net::LinkLoad> merged;
    for (const net::LinkLoad& l : profile) merged.push_back({class_of[l.link], l.bytes});
    std::sort(merged.begin(), merged.end(),
              [](const net::LinkLoad& a, const net::LinkLoad& b) { return a.link < b.link; });
    merged.erase(std::unique(merged.begin(), merged.end(),
                             [](const net::LinkLoad& a, const net::LinkLoad& b) {
                               return a.link == b.link;
                             }),
                 merged.end());
    profile = std::move(merged);
  }
  link_capacity = std::move(capacity);
  link_class_of = std::move(class_of);
}

const workload::Work* StepGraph::work(const workload::StepProgram& program, int op) const {
  const StepOp& o = ops[op];
  if (o.work < 0) return nullptr;
  const auto w = static_cast<std::size_t>(o.work);
  if (o.chain == kTailChain) return &program.tail[rank_of(o.device)][w].work;
  return &program.chains[static_cast<std::size_t>(o.chain)][w];
}

std::string StepGraph::label(int device) const {
  std::string s = std::to_string(rank_of(device));
  if (classes > 1 && !info.empty()) s += ", cells " + short_cells(device);
  return s;
}

std::string StepGraph::short_cells(int device) const {
  const std::string& c = info[device].cells;
  if (c.size() <= 24) return c;
  return c.substr(0, c.find(',')) + ",... (" + std::to_string(info[device].gpus / cell) + " cells)";
}

std::string StepGraph::name(int id) const {
  const StepOp& o = ops[id];
  std::string s(1, workload::letter(o.phase));
  if (o.mb >= 0) s += " mb" + std::to_string(o.mb);
  if (o.layer >= 0)
    s += " L" + std::to_string(o.layer);
  else if (o.layer == workload::kEmbedding)
    s += " embed";
  else if (o.layer == workload::kHead)
    s += " head";
  else if (o.layer == workload::kMtpHead)
    s += " mtp head";
  if (!o.part.empty()) s += " " + o.part;
  return s;
}

std::string StepGraph::operation(int id) const {
  const StepOp& o = ops[id];
  std::string s = !o.part.empty()                   ? o.part
                  : o.layer == workload::kEmbedding ? "embed"
                  : o.layer == workload::kHead      ? "head"
                  : o.layer == workload::kMtpHead   ? "mtp head"
                                                    : "compute";
  if (o.kind != workload::StepOpKind::kernel || o.phase == workload::Phase::weight ||
      o.phase == workload::Phase::step_end)
    return s;
  return s + (o.phase == workload::Phase::forward ? " fwd" : " bwd");
}

}  // namespace stepsim::exec
