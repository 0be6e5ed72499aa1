#include "sim/exec/step_graph.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <unordered_map>

#include "sim/engine/splitmix.hpp"

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
  // profiles ops use (a sum's parts do not count). The signatures lie in one array, link after
  // link (a counting sort by link: a million-GPU step loads tens of millions of (link, profile)
  // pairs, too many for a vector per link); equal ones are found by their hash.
  std::vector<bool> used(loads.size(), false);
  for (const StepOp& op : ops)
    if (op.load >= 0)
      for (const net::LoadPiece& piece : shapes[op.load])
        if (piece.profile >= 0) used[piece.profile] = true;
  const std::size_t links = link_capacity.size();
  std::vector<std::size_t> first(links + 1, 0);  // link l's pairs: [first[l], first[l + 1])
  for (std::size_t p = 0; p < loads.size(); ++p)
    if (used[p])
      for (const net::LinkLoad& l : loads[p]) ++first[static_cast<std::size_t>(l.link) + 1];
  for (std::size_t l = 0; l < links; ++l) first[l + 1] += first[l];
  std::vector<std::pair<int, double>> sig(first[links]);
  // Filled through `first` itself, each link's start moving to its end, then moved back.
  for (std::size_t p = 0; p < loads.size(); ++p)
    if (used[p])
      for (const net::LinkLoad& l : loads[p])
        sig[first[static_cast<std::size_t>(l.link)]++] = {static_cast<int>(p), l.bytes};
  for (std::size_t l = links; l > 0; --l) first[l] = first[l - 1];
  first[0] = 0;
  auto bits = [](double v) {
    std::uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
  };
  auto same = [&](std::size_t a, std::size_t b) {
    return link_capacity[a] == link_capacity[b] &&
           std::equal(sig.begin() + first[a], sig.begin() + first[a + 1], sig.begin() + first[b],
                      sig.begin() + first[b + 1]);
  };
  // Classes numbered in the order of their first link.
  std::unordered_multimap<std::uint64_t, std::size_t> by_hash;  // hash -> a class's first link
  std::vector<int> class_of(links, -1);
  std::vector<double> capacity;
  for (std::size_t l = 0; l < links; ++l) {
    if (first[l] == first[l + 1]) continue;
    std::uint64_t h = engine::splitmix64(bits(link_capacity[l]));
    for (std::size_t i = first[l]; i < first[l + 1]; ++i)
      h = engine::splitmix64(h ^ engine::splitmix64(static_cast<std::uint64_t>(sig[i].first) ^
                                                    (bits(sig[i].second) << 1)));
    int found = -1;
    for (auto [it, end] = by_hash.equal_range(h); it != end; ++it)
      if (same(it->second, l)) {
        found = class_of[it->second];
        break;
      }
    if (found < 0) {
      found = static_cast<int>(capacity.size());
      capacity.push_back(link_capacity[l]);
      by_hash.emplace(h, l);
    }
    class_of[l] = found;
  }
  // Each profile over classes: a class's bytes once (all its links carry the same), in class
  // order; found with a mark per class, not by sorting the profile (a million-GPU collective's
  // profile has millions of links and a few classes).
  std::vector<char> seen(capacity.size(), 0);
  for (std::size_t p = 0; p < loads.size(); ++p) {
    auto& profile = loads[p];
    std::vector<net::LinkLoad> merged;
    if (used[p]) {
      for (const net::LinkLoad& l : profile) {
        const int c = class_of[static_cast<std::size_t>(l.link)];
        if (seen[static_cast<std::size_t>(c)]) continue;
        seen[static_cast<std::size_t>(c)] = 1;
        merged.push_back({c, l.bytes});
      }
      for (const net::LinkLoad& m : merged) seen[static_cast<std::size_t>(m.link)] = 0;
      std::sort(merged.begin(), merged.end(),
                [](const net::LinkLoad& a, const net::LinkLoad& b) { return a.link < b.link; });
    }
    profile = std::move(merged);  // an unused profile: emptied, its memory returned
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
