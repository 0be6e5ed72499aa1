#include "sim/engine/maxmin.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "sim/engine/check.hpp"

namespace stepsim::engine {

int MaxMinSystem::add_constraint(double capacity) {
  STEPSIM_CHECK(capacity >= 0.0, "negative capacity");
  cnsts_.push_back({capacity, {}, 0.0, 0, 0, {}, 0});
  cnst_stamp_.push_back(0);
  cnst_walked_.push_back(0);
  sum_stamp_.push_back(0);
  sum_load_.push_back(0.0);
  sum_count_.push_back(0);
  cnst_pos_.push_back(0);
  cnst_touched_.push_back(0);
  return static_cast<int>(cnsts_.size() - 1);
}

int MaxMinSystem::add_variable(double weight, double bound, std::uint32_t elements) {
  STEPSIM_CHECK(weight > 0.0 && bound >= 0.0, "bad variable");
  int v;
  if (!free_vars_.empty()) {
    v = free_vars_.back();
    free_vars_.pop_back();
  } else {
    v = static_cast<int>(vars_.size());
    vars_.emplace_back();
    slots_.emplace_back();
    var_pos_.push_back(0);
    var_touched_.push_back(0);
  }
  Variable& x = vars_[v];
  x.weight = weight;
  x.bound = bound;
  x.value = 0.0;
  x.count = 0;
  if (elements > x.capacity) grow(v, block_size(elements));
  touch_variable(v);
  return v;
}

void MaxMinSystem::grow(int v, std::uint32_t capacity) {
  Element* block = take_block(capacity);
  Variable& x = vars_[v];
  std::copy_n(x.data, x.count, block);
  if (x.capacity > 0) free_blocks_[size_class(x.capacity)].push_back(x.data);
  x.data = block;
  x.capacity = capacity;
}

void MaxMinSystem::expand(int v, int c, double consumption) {
  attach(v, {consumption, c});
}

int MaxMinSystem::add_group(std::span<const std::pair<int, double>> shares) {
  const int g = static_cast<int>(groups_.size());
  Group& group = groups_.emplace_back();
  for (const auto& [c, share] : shares) {
    STEPSIM_CHECK(c >= 0 && static_cast<std::size_t>(c) < cnsts_.size() && share > 0.0,
                  "a bad group member");
    for (const auto& [g2, s2] : cnsts_[c].groups)
      STEPSIM_CHECK(g2 != g, "a constraint twice in one group");
    group.cnsts.emplace_back(c, share);
    cnsts_[c].groups.emplace_back(g, share);
  }
  group_walked_.push_back(0);
  return g;
}

void MaxMinSystem::expand_group(int v, int g, double consumption) {
  attach(v, {consumption, ~g});
}

void MaxMinSystem::attach(int v, Element e) {
  if (!(e.a > 0.0)) return;
  if (vars_[v].count == vars_[v].capacity)
    grow(v, block_size(std::max<std::uint32_t>(4, 2 * vars_[v].capacity)));
  Variable& x = vars_[v];
  x.data[x.count] = e;
  (e.id >= 0 ? cnsts_[e.id].vars : groups_[~e.id].vars).push_back({v, x.count++, slots_[v].gen});
  rows(e, [&](int c, double a) {
    Constraint& k = cnsts_[c];
    if (e.id < 0) ++k.group_live;
    if (std::isfinite(x.bound))
      k.at_bounds += a * x.bound;
    else
      ++k.unbounded;
    if (can_bind(c)) touch_constraint(c);
  });
  touch_variable(v);
}

std::uint32_t MaxMinSystem::block_size(std::uint32_t elements) {
  return elements <= kExactBlocks ? elements : std::bit_ceil(elements);
}

std::size_t MaxMinSystem::size_class(std::uint32_t capacity) {
  return capacity <= kExactBlocks ? capacity : kExactBlocks + std::bit_width(capacity);
}

MaxMinSystem::Element* MaxMinSystem::take_block(std::uint32_t capacity) {
  const std::size_t cls = size_class(capacity);
  if (free_blocks_.size() <= cls) free_blocks_.resize(cls + 1);
  auto& free = free_blocks_[cls];
  if (!free.empty()) {
    Element* block = free.back();
    free.pop_back();
    return block;
  }
  if (chunk_left_ < capacity) {  // the old chunk's tail, smaller than the block, stays unused
    // Chunks double from a small first one (a system of a few flows, built by the thousand in a
    // plan or a campaign, touches little memory) up to kChunkElements.
    const std::size_t last = chunks_.empty() ? kFirstChunkElements / 2 : chunks_.back().size;
    const std::size_t size = std::max<std::size_t>(capacity, std::min(kChunkElements, 2 * last));
    chunks_.push_back({std::make_unique<Element[]>(size), size});
    chunk_next_ = chunks_.back().data.get();
    chunk_left_ = size;
  }
  Element* block = chunk_next_;
  chunk_next_ += capacity;
  chunk_left_ -= capacity;
  return block;
}

std::size_t MaxMinSystem::pool_elements() const {
  std::size_t n = 0;
  for (const auto& chunk : chunks_) n += chunk.size;
  return n;
}

void MaxMinSystem::detach(int v) {
  Variable& x = vars_[v];
  for (const Element& e : elements(v))
    rows(e, [&](int c, double) {
      if (can_bind(c)) touch_constraint(c);
    });
  STEPSIM_CHECK(slots_[v].gen < UINT32_MAX, "a variable re-routed 2^32 times");
  ++slots_[v].gen;  // its members go stale
  for (const Element& e : elements(v)) {
    if (e.id >= 0)
      ++cnsts_[e.id].stale;
    else
      ++groups_[~e.id].stale;
    rows(e, [&](int c, double a) {
      Constraint& k = cnsts_[c];
      if (e.id < 0) --k.group_live;
      if (std::isfinite(x.bound))
        k.at_bounds = emptied(k) ? 0.0 : k.at_bounds - a * x.bound;
      else
        --k.unbounded;
    });
  }
  // Compacted once all are counted (a variable may hold two elements on one constraint).
  for (const Element& e : elements(v)) {
    if (e.id >= 0) {
      Constraint& k = cnsts_[e.id];
      if (k.stale > 16 && 2 * k.stale > k.vars.size()) compact(k.vars, k.stale);
    } else {
      Group& g = groups_[~e.id];
      if (g.stale > 16 && 2 * g.stale > g.vars.size()) compact(g.vars, g.stale);
    }
  }
  x.count = 0;
}

void MaxMinSystem::compact(std::vector<Member>& members, std::size_t& stale) {
  std::erase_if(members, [&](const Member& m) { return !current(m); });
  stale = 0;
}

void MaxMinSystem::clear(int v) {
  detach(v);
  touch_variable(v);
}

void MaxMinSystem::set_bound(int v, double bound) {
  Variable& x = vars_[v];
  STEPSIM_CHECK(bound >= 0.0 && std::isfinite(bound) && std::isfinite(x.bound),
                "a bound changed to or from unbounded");
  if (bound == x.bound) return;
  auto touch = [&](int c, double) {
    if (can_bind(c)) touch_constraint(c);
  };
  for (const Element& e : elements(v)) rows(e, touch);
  for (const Element& e : elements(v))
    rows(e, [&](int c, double a) { cnsts_[c].at_bounds += a * (bound - x.bound); });
  x.bound = bound;
  for (const Element& e : elements(v)) rows(e, touch);
  touch_variable(v);
}

void MaxMinSystem::remove_variable(int v) {
  detach(v);
  vars_[v].weight = 0.0;
  // An id whose generation would wrap is retired: a stale member could look current again.
  if (slots_[v].gen < UINT32_MAX) free_vars_.push_back(v);
}

double MaxMinSystem::usage(int c) const {
  double u = 0.0;
  for (const Member& m : cnsts_[c].vars)
    if (current(m)) u += element(m).a * vars_[m.var].value;
  for (const auto& [g, share] : cnsts_[c].groups)
    for (const Member& m : groups_[g].vars)
      if (current(m)) u += share * element(m).a * vars_[m.var].value;
  return u;
}

bool MaxMinSystem::can_bind(int c) const {
  const Constraint& k = cnsts_[c];
  if (k.unbounded > 0) return true;
  if (k.at_bounds <= k.capacity * (1.0 - precision_.screen)) return false;
  double sum = 0.0;
  for (const Member& m : k.vars)
    if (current(m)) sum += element(m).a * vars_[m.var].bound;
  for (const auto& [g, share] : k.groups)
    for (const Member& m : groups_[g].vars)
      if (current(m)) sum += share * element(m).a * vars_[m.var].bound;
  return sum > k.capacity * (1.0 + precision_.saturated);
}

void MaxMinSystem::touch_constraint(int c) {
  if (cnst_touched_[c]) return;
  cnst_touched_[c] = 1;
  touched_cnsts_.push_back(c);
}
void MaxMinSystem::touch_variable(int v) {
  if (var_touched_[v]) return;
  var_touched_[v] = 1;
  touched_vars_.push_back(v);
}

const std::vector<MaxMinSystem::Change>& MaxMinSystem::solve() {
  changes_.clear();
  if (touched_cnsts_.empty() && touched_vars_.empty()) return changes_;
  if (stamp_ == (std::uint32_t{1} << 31) - 1) {  // every stamp cleared before it wraps
    stamp_ = 0;
    for (auto* stamps : {&cnst_stamp_, &cnst_walked_, &sum_stamp_, &group_walked_})
      std::fill(stamps->begin(), stamps->end(), 0);
    for (Slot& slot : slots_) slot.mark = 0;
  }
  ++stamp_;
  // The component: the touched variables, every variable of a touched constraint, and, through
  // constraints that can bind, everything connected to them.
  std::vector<int>& vars = comp_vars_;
  std::vector<int>& cnsts = comp_cnsts_;
  vars.clear();
  cnsts.clear();
  auto add_var = [&](int v) {
    if (reached(v)) return;
    slots_[v].mark = 2 * stamp_;
    var_pos_[v] = static_cast<int>(vars.size());
    vars.push_back(v);
  };
  // A constraint's current members are live; a constraint whose members were added once (it was
  // touched) is not walked again when the search reaches it.
  auto add_members = [&](int c) {
    if (cnst_walked_[c] == stamp_) return;
    cnst_walked_[c] = stamp_;
    auto walk = [&](const std::vector<Member>& members) {
      for (std::size_t j = 0; j < members.size(); ++j) {
        if (j + 16 < members.size()) __builtin_prefetch(&slots_[members[j + 16].var]);
        if (current(members[j])) add_var(members[j].var);
      }
    };
    walk(cnsts_[c].vars);
    for (const auto& [g, share] : cnsts_[c].groups) {
      if (group_walked_[g] == stamp_) continue;
      group_walked_[g] = stamp_;
      walk(groups_[g].vars);
    }
  };
  for (int v : touched_vars_) {
    var_touched_[v] = 0;
    if (vars_[v].live()) add_var(v);
  }
  for (int c : touched_cnsts_) {
    cnst_touched_[c] = 0;
    add_members(c);
  }
  touched_vars_.clear();
  touched_cnsts_.clear();
  // The search walks every element of the component once, in the order fill() would: it sums
  // each constraint's Σ a·w and count of variables on the way (fill() keeps those of the
  // constraints that can bind) and lists the bounded variables, so fill() makes no second pass
  // over the variables' records.
  by_bound_.clear();
  for (std::size_t i = 0; i < vars.size(); ++i) {
    if (i + 32 < vars.size()) vars_.prefetch(vars[i + 32]);
    if (i + 16 < vars.size()) prefetch_block(vars_[vars[i + 16]]);
    const Variable& x = vars_[vars[i]];
    const double w = x.weight;
    if (std::isfinite(x.bound)) by_bound_.push_back(static_cast<int>(i));
    auto reach = [&](int c, double a) {
      if (sum_stamp_[c] != stamp_) {
        sum_stamp_[c] = stamp_;
        sum_load_[c] = 0.0;
        sum_count_[c] = 0;
      }
      sum_load_[c] += a * w;
      ++sum_count_[c];
      if (cnst_stamp_[c] == stamp_ || !can_bind(c)) return;
      cnst_stamp_[c] = stamp_;
      cnsts.push_back(c);
      add_members(c);
    };
    for (const Element& e : elements(vars[i])) rows(e, reach);
  }
  fill(vars, cnsts);
  return changes_;
}

void MaxMinSystem::fill(const std::vector<int>& vars, const std::vector<int>& cnsts) {
  const std::size_t nv = vars.size(), nc = cnsts.size();
  for (std::size_t k = 0; k < nc; ++k) cnst_pos_[cnsts[k]] = static_cast<int>(k);
  // Per component constraint: capacity left, Σ a·w and count of its unfixed variables.
  std::vector<double>& left = left_;
  std::vector<double>& load = load_;
  std::vector<int>& unfixed = unfixed_;
  left.resize(nc);
  load.resize(nc);
  unfixed.resize(nc);
  for (std::size_t k = 0; k < nc; ++k) {
    left[k] = cnsts_[cnsts[k]].capacity;
    load[k] = sum_load_[cnsts[k]];  // summed by solve()'s search
    unfixed[k] = sum_count_[cnsts[k]];
  }
  std::vector<double>& value = value_;
  value.assign(nv, kUnbounded);
  // Bounds in order of the level at which they are met (listed by solve()'s search).
  std::vector<int>& by_bound = by_bound_;
  auto bound_level = [&](int i) { return vars_[vars[i]].bound / vars_[vars[i]].weight; };
  std::stable_sort(by_bound.begin(), by_bound.end(),
                   [&](int a, int b) { return bound_level(a) < bound_level(b); });
  std::size_t next_bound = 0;

  // A min-heap of (level, component position).
  std::vector<std::pair<double, int>>& heap = heap_;
  heap.clear();
  auto push = [&](double level, int k) {
    heap.push_back({level, k});
    std::push_heap(heap.begin(), heap.end(), std::greater<>{});
  };
  auto pop = [&] {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>{});
    heap.pop_back();
  };
  auto level_of = [&](std::size_t k) { return std::max(left[k] / load[k], precision_.min_level); };
  for (std::size_t k = 0; k < nc; ++k)
    if (unfixed[k] > 0 && load[k] > 0.0) push(level_of(k), static_cast<int>(k));

  std::size_t fixes = 0, changed = 0;  // changed: values that differ from the last solve's
  auto fix = [&](int i, double x) {
    value[i] = x;
    slots_[vars[i]].mark = fixed_mark();
    const Variable& var = vars_[vars[i]];
    ++fixes;
    changed += x != var.value;
    const double w = var.weight;
    for (const Element& e : elements(vars[i]))
      rows(e, [&](int c, double a) {
        if (cnst_stamp_[c] != stamp_) return;  // a constraint that cannot bind
        const int k = cnst_pos_[c];
        left[k] = std::max(0.0, left[k] - a * x);
        load[k] = --unfixed[k] == 0 ? 0.0 : std::max(0.0, load[k] - a * w);
      });
  };
  for (;;) {
    // The constraint that fills first (its key is current), if any.
    int bind = -1;
    double level = kUnbounded;
    while (!heap.empty()) {
      const auto [key, k] = heap.front();
      if (unfixed[k] == 0 || !(load[k] > 0.0)) {
        pop();
        continue;
      }
      const double now = level_of(k);
      if (now != key) {
        pop();
        push(now, k);
        continue;
      }
      bind = k;
      level = now;
      break;
    }
    while (next_bound < by_bound.size() && fixed(vars[by_bound[next_bound]])) ++next_bound;
    if (next_bound < by_bound.size() && bound_level(by_bound[next_bound]) <= level) {
      const int i = by_bound[next_bound++];
      fix(i, vars_[vars[i]].bound);
      continue;
    }
    if (bind < 0) break;
    pop();
    const std::vector<int>& pending = gather_unfixed(cnsts[bind]);
    for (std::size_t j = 0; j < pending.size(); ++j) {
      if (j + 32 < pending.size()) vars_.prefetch(pending[j + 32]);
      if (j + 16 < pending.size()) prefetch_block(vars_[pending[j + 16]]);
      fix(var_pos_[pending[j]], vars_[pending[j]].weight * level);
    }
  }
  report(vars, fixes < nv, changed);
}

const std::vector<int>& MaxMinSystem::gather_unfixed(int c) {
  std::vector<int>& pending = pending_;
  pending.clear();
  auto gather = [&](const std::vector<Member>& members) {
    for (std::size_t j = 0; j < members.size(); ++j) {
      if (j + 16 < members.size()) __builtin_prefetch(&slots_[members[j + 16].var]);
      const Member& m = members[j];
      Slot& slot = slots_[m.var];
      if (slot.gen != m.gen || slot.mark == fixed_mark()) continue;
      slot.mark = fixed_mark();  // once, should it hold two elements on the constraint
      pending.push_back(m.var);
    }
  };
  gather(cnsts_[c].vars);
  for (const auto& [g, share] : cnsts_[c].groups) gather(groups_[g].vars);
  return pending;
}

void MaxMinSystem::report(const std::vector<int>& vars, bool unfixed_left, std::size_t changed) {
  const std::size_t nv = vars.size();
  if (unfixed_left)  // variables left unbounded: their changes were not counted while fixing
    for (std::size_t i = 0; i < nv; ++i)
      changed += !fixed(vars[i]) && value_[i] != vars_[vars[i]].value;
  // Reserved at the size needed, not grown by doubling (a world all-to-all's first solve reports
  // 135,032 changes).
  changes_.reserve(changed);
  for (std::size_t i = 0; i < nv; ++i) {
    if (i + 16 < nv) vars_.prefetch(vars[i + 16]);
    Variable& v = vars_[vars[i]];
    if (value_[i] == v.value) continue;
    changes_.push_back({vars[i], v.value});
    v.value = value_[i];
  }
}

}  // namespace stepsim::engine
