#include "sim/engine/maxmin.hpp"

#include <algorithm>
#include <cmath>
#include <queue>

#include "sim/engine/check.hpp"

namespace stepsim::engine {

int MaxMinSystem::add_constraint(double capacity) {
  STEPSIM_CHECK(capacity >= 0.0, "negative capacity");
  cnsts_.push_back({capacity, {}, 0.0, 0});
  cnst_stamp_.push_back(0);
  cnst_pos_.push_back(0);
  return static_cast<int>(cnsts_.size() - 1);
}

int MaxMinSystem::add_variable(double weight, double bound) {
  STEPSIM_CHECK(weight > 0.0 && bound >= 0.0, "bad variable");
  int v;
  if (!free_vars_.empty()) {
    v = free_vars_.back();
    free_vars_.pop_back();
  } else {
    v = static_cast<int>(vars_.size());
    vars_.emplace_back();
    var_stamp_.push_back(0);
    var_pos_.push_back(0);
  }
  Variable& x = vars_[v];
  x.weight = weight;
  x.bound = bound;
  x.value = 0.0;
  x.elements.clear();
  x.live = true;
  touch_variable(v);
  return v;
}

void MaxMinSystem::expand(int v, int c, double consumption) {
  if (!(consumption > 0.0)) return;
  Variable& x = vars_[v];
  Constraint& k = cnsts_[c];
  x.elements.push_back({c, consumption});
  k.elements.push_back({v, consumption});
  if (std::isfinite(x.bound))
    k.at_bounds += consumption * x.bound;
  else
    ++k.unbounded;
  if (can_bind(c)) touch_constraint(c);
  touch_variable(v);
}

void MaxMinSystem::detach(int v) {
  Variable& x = vars_[v];
  for (const Element& e : x.elements)
    if (can_bind(e.id)) touch_constraint(e.id);
  for (const Element& e : x.elements) {
    Constraint& k = cnsts_[e.id];
    const auto it = std::find_if(k.elements.begin(), k.elements.end(),
                                 [v](const Element& m) { return m.id == v; });
    STEPSIM_CHECK(it != k.elements.end(), "element missing from its constraint");
    *it = k.elements.back();
    k.elements.pop_back();
    if (std::isfinite(x.bound))
      k.at_bounds = k.elements.empty() ? 0.0 : k.at_bounds - e.a * x.bound;
    else
      --k.unbounded;
  }
  x.elements.clear();
}

void MaxMinSystem::clear(int v) {
  detach(v);
  touch_variable(v);
}

void MaxMinSystem::remove_variable(int v) {
  detach(v);
  vars_[v].live = false;
  free_vars_.push_back(v);
}

double MaxMinSystem::usage(int c) const {
  double u = 0.0;
  for (const Element& e : cnsts_[c].elements) u += e.a * vars_[e.id].value;
  return u;
}

bool MaxMinSystem::can_bind(int c) const {
  const Constraint& k = cnsts_[c];
  if (k.unbounded > 0) return true;
  if (k.at_bounds <= k.capacity * (1.0 - precision_.screen)) return false;
  double sum = 0.0;
  for (const Element& e : k.elements) sum += e.a * vars_[e.id].bound;
  return sum > k.capacity * (1.0 + precision_.saturated);
}

void MaxMinSystem::touch_constraint(int c) {
  touched_cnsts_.push_back(c);
}
void MaxMinSystem::touch_variable(int v) {
  touched_vars_.push_back(v);
}

const std::vector<MaxMinSystem::Change>& MaxMinSystem::solve() {
  changes_.clear();
  if (touched_cnsts_.empty() && touched_vars_.empty()) return changes_;
  ++solves_;
  ++stamp_;
  // The component: the touched variables, every variable of a touched constraint, and, through
  // constraints that can bind, everything connected to them.
  std::vector<int> vars, cnsts;
  auto add_var = [&](int v) {
    if (!vars_[v].live || var_stamp_[v] == stamp_) return;
    var_stamp_[v] = stamp_;
    vars.push_back(v);
  };
  for (int v : touched_vars_) add_var(v);
  for (int c : touched_cnsts_)
    for (const Element& e : cnsts_[c].elements) add_var(e.id);
  touched_vars_.clear();
  touched_cnsts_.clear();
  for (std::size_t i = 0; i < vars.size(); ++i)
    for (const Element& e : vars_[vars[i]].elements) {
      if (cnst_stamp_[e.id] == stamp_ || !can_bind(e.id)) continue;
      cnst_stamp_[e.id] = stamp_;
      cnsts.push_back(e.id);
      for (const Element& m : cnsts_[e.id].elements) add_var(m.id);
    }
  fill(vars, cnsts);
  return changes_;
}

void MaxMinSystem::fill(const std::vector<int>& vars, const std::vector<int>& cnsts) {
  const std::size_t nv = vars.size(), nc = cnsts.size();
  for (std::size_t i = 0; i < nv; ++i) var_pos_[vars[i]] = static_cast<int>(i);
  for (std::size_t k = 0; k < nc; ++k) cnst_pos_[cnsts[k]] = static_cast<int>(k);
  // Per component constraint: capacity left, Σ a·w and count of its unfixed variables.
  std::vector<double> left(nc), load(nc, 0.0);
  std::vector<int> unfixed(nc, 0);
  for (std::size_t k = 0; k < nc; ++k) {
    const Constraint& c = cnsts_[cnsts[k]];
    left[k] = c.capacity;
    for (const Element& e : c.elements) {
      load[k] += e.a * vars_[e.id].weight;
      ++unfixed[k];
    }
  }
  std::vector<double> value(nv, kUnbounded);
  std::vector<bool> fixed(nv, false);
  // Bounds in order of the level at which they are met.
  std::vector<int> by_bound;
  for (std::size_t i = 0; i < nv; ++i)
    if (std::isfinite(vars_[vars[i]].bound)) by_bound.push_back(static_cast<int>(i));
  auto bound_level = [&](int i) { return vars_[vars[i]].bound / vars_[vars[i]].weight; };
  std::stable_sort(by_bound.begin(), by_bound.end(),
                   [&](int a, int b) { return bound_level(a) < bound_level(b); });
  std::size_t next_bound = 0;

  using Item = std::pair<double, int>;  // (level, component position)
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
  auto level_of = [&](std::size_t k) { return std::max(left[k] / load[k], precision_.min_level); };
  for (std::size_t k = 0; k < nc; ++k)
    if (unfixed[k] > 0 && load[k] > 0.0) heap.push({level_of(k), static_cast<int>(k)});

  auto fix = [&](int i, double x) {
    value[i] = x;
    fixed[i] = true;
    const Variable& v = vars_[vars[i]];
    for (const Element& e : v.elements) {
      if (cnst_stamp_[e.id] != stamp_) continue;  // a constraint that cannot bind
      const int k = cnst_pos_[e.id];
      left[k] = std::max(0.0, left[k] - e.a * x);
      load[k] = --unfixed[k] == 0 ? 0.0 : std::max(0.0, load[k] - e.a * v.weight);
    }
  };
  for (;;) {
    // The constraint that fills first (its key is current), if any.
    int bind = -1;
    double level = kUnbounded;
    while (!heap.empty()) {
      const auto [key, k] = heap.top();
      if (unfixed[k] == 0 || !(load[k] > 0.0)) {
        heap.pop();
        continue;
      }
      const double now = level_of(k);
      if (now != key) {
        heap.pop();
        heap.push({now, k});
        continue;
      }
      bind = k;
      level = now;
      break;
    }
    while (next_bound < by_bound.size() && fixed[by_bound[next_bound]]) ++next_bound;
    if (next_bound < by_bound.size() && bound_level(by_bound[next_bound]) <= level) {
      const int i = by_bound[next_bound++];
      fix(i, vars_[vars[i]].bound);
      continue;
    }
    if (bind < 0) break;
    heap.pop();
    for (const Element& e : cnsts_[cnsts[bind]].elements) {
      const int i = var_pos_[e.id];
      if (!fixed[i]) fix(i, vars_[e.id].weight * level);
    }
  }
  for (std::size_t i = 0; i < nv; ++i) {
    Variable& v = vars_[vars[i]];
    if (value[i] == v.value) continue;
    changes_.push_back({vars[i], v.value});
    v.value = value[i];
  }
}

}  // namespace stepsim::engine
