// One weighted max-min fair sharing system, solved incrementally: the one solver of stepsim. The
// fabric (hw/flow_network.hpp: transfers sharing links) and the step executor
// (exec/step_executor.hpp: collectives in flight sharing the live fabric) are both its clients.
//
// The system, as SimGrid's lmm states it (src/kernel/lmm/System.hpp):
//   variables   x_v >= 0, each with a weight w_v > 0 and a bound b_v (possibly +inf);
//   constraints c, each with a capacity C_c >= 0;
//   elements    (c, v, a_cv): variable v consumes a_cv > 0 of constraint c per unit of x_v.
//   Feasible:   for every c:  Σ_v a_cv · x_v <= C_c,   and for every v:  x_v <= b_v.
//   Solution:   the weighted max-min fair point: the vector (x_v / w_v) sorted ascending is
//               lexicographically largest among feasible points. No variable can grow without
//               shrinking one whose x/w is no larger.
// Solved by progressive filling: every unfixed variable sits at x_v = w_v · λ while the level λ
// rises from 0. Constraint c fills at
//     λ_c = (C_c − Σ_{fixed v} a_cv · x_v) / Σ_{unfixed v} a_cv · w_v
// and variable v meets its bound at λ_v = b_v / w_v. Take the smallest: a bound fixes its variable
// at b_v; a constraint fixes every unfixed variable it holds at w_v · λ_c. Repeat until all are
// fixed; a variable that meets neither stays unbounded (+inf). Fixing at the smallest level never
// lowers another constraint's λ_c ((C − λ·d)/(L − d) >= C/L when λ <= C/L), so the constraints wait
// in a heap keyed by a lower bound of their level, re-keyed lazily when popped.
//
// Worked example. Two links, A (capacity 10) and B (capacity 4); flows f (on A), g (on A and B),
// h (on B, weight 2, bound 1), all a = 1. Levels: λ_A = 10 / (1 + 1) = 5, λ_B = 4 / (1 + 2) = 4/3,
// λ_h = 1 / 2. h meets its bound first: x_h = 1, B has 3 left for g alone, λ_B = 3. B fills: x_g =
// 3, A has 7 left for f: x_f = 7. Check: A carries 10, B carries 4, h is at its bound.
//
// Incremental, and what a solve() recomputes. A change (a variable added, cleared or removed, an
// element added, a bound moved) marks the variable it changes and the constraints it touches
// that can bind; nothing is solved until solve(), so all the changes of one simulated instant
// cost one solve. solve() re-solves R: the marked variables, every variable of a marked
// constraint, and everything connected to those through constraints that can bind. Every other
// variable keeps its value, unsolved, and is not reported. That is exact:
//  - A constraint that cannot bind (only bounded variables, Σ a_cv · b_v within its capacity) is
//    met by every point that keeps the bounds, so dropping it changes neither the feasible set
//    nor the solution; the rest splits into connected components of variables and binding
//    constraints, and progressive filling of one component never reads another's values.
//  - A component none of whose variables or constraints was marked has the same variables,
//    elements, weights, bounds and capacities as at the last solve, hence the same solution.
//    A change marks what it touches both before and after it (a departure marks the
//    constraints its variable could bind before leaving; a bound marks them under the old and
//    the new bound), so components that a change merges or splits are re-solved whole.
// Clients keep what depends on an unreported variable: the fabric leaves a flow whose rate did
// not change with its completion event (its bytes still run out at the same instant), and
// completions wait by instant, one simulator event for all the flows due at it.
// Cost of one solve: O(E_R log C_R) for the E_R elements and C_R binding constraints of R.
// Within R the saturated search is incremental: constraints wait in a heap keyed by a lower
// bound of their level, re-keyed only when popped stale (see above), and bounds are met in
// sorted order. A change inside a large component re-solves all of it: a burst of n flows on
// one bottleneck that ended at n different instants would cost O(n^2); the fabric rounds finish
// times to a grid (hw/flow_network.hpp) so that equal flows leave together, in one solve.
//
// Groups: rows that share their variables. Where many variables cross the same set of
// constraints with the same shares (a bundle spread over the spines crosses its leaf's 32
// uplinks, each with the share w_c of its rate), a group G holds the set {(c, w_Gc)} once and a
// variable joins it with one element of consumption a_vG: it is an element of consumption
// w_Gc·a_vG on each c of G, nothing else. Every sum over a constraint's variables runs over its
// own members and, for each group holding it, w_Gc times the group's members; a solve visits the
// same variables and adds the same products (w_Gc·a_vG, rounded once, as the expanded element
// would hold) as if the elements were expanded, so the solution is the expanded system's up to
// rounding: a constraint's members are visited as its own, then each group's (not in the order
// they joined), so the component's variables, the ties between equal bound levels, the roundings
// of the running sums and the order of the reported changes follow that order (deterministic,
// but not the expanded system's bit for bit).
// Memory: one element and one member per variable and group, not one per constraint of it.
//
// Storage: a variable's elements sit in one block of a pool (taken once, at the size asked, when
// the caller says how many it will add; blocks of one size are reused, so a steady stream of
// variables allocates nothing). The pool is a list of chunks that never move: growing it copies
// nothing and leaves no doubling slack (a 16,384-GPU all-to-all holds over half a million
// elements at once); a constraint lists its members (variable, element, generation). A variable
// leaves its constraints in O(1) each by a new generation: its members go stale in place and are
// skipped, and a constraint drops its stale members in one ordered pass once they are more than
// half its list and 16 (amortised O(1) a departure; a burst of thousands of flows leaving a link
// costs one pass over it, not a scattered write per flow, and the survivors stay in the order they
// joined).
//
// Memory traffic of a solve. Its time on a large component is cache misses, not arithmetic: a
// 512-GPU all-to-all with every flow re-solves up to 258,048 variables whose records, elements
// and members (tens of MB) are read in an order no cache predicts. So a constraint's list is
// walked against an 8-byte slot per variable (its generation and whether this solve reached or
// fixed it), not its record; a binding constraint's unfixed variables are gathered first and then
// fixed in the same order, their records and elements fetched ahead along that short list; the
// search fetches ahead along the component's list, and the count of changed values is taken
// while fixing. The order of every sum and every reported change is the one described above.
//
// Precision (Precision below): the usage screen is a running sum, confirmed by a fresh sum when
// it comes within `screen` of the capacity, and a constraint binds only beyond `saturated` above
// it, so rounding in the running sums never decides a verdict. `min_level` keeps a variable on a
// full constraint from stalling at zero (a transfer that could never end).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "sim/engine/chunked_vector.hpp"

namespace stepsim::engine {

class MaxMinSystem {
 public:
  static constexpr double kUnbounded = std::numeric_limits<double>::infinity();

  struct Precision {
    // Relative margin under the capacity within which the running usage sum is taken afresh.
    double screen = 1e-6;
    // Relative excess over the capacity from which a constraint's usage at the bounds binds.
    double saturated = 1e-9;
    // The smallest level a variable is given.
    double min_level = 1e-12;
  };

  // A variable whose value the last solve() changed, with its value before.
  struct Change {
    int var = 0;
    double old_value = 0.0;
  };

  MaxMinSystem() = default;
  explicit MaxMinSystem(Precision precision) : precision_(precision) {}

  int add_constraint(double capacity);
  double capacity(int c) const { return cnsts_[c].capacity; }

  // A new variable (a freed id may be reused); its value is 0 until the next solve(), which
  // reports it as changed. `elements`: how many expand() will add, so that its block in the pool
  // is taken once (0: grown as they come).
  int add_variable(double weight = 1.0, double bound = kUnbounded, std::uint32_t elements = 0);
  // Adds a_cv = consumption (> 0; non-positive is ignored) of constraint c to variable v.
  void expand(int v, int c, double consumption);
  // A group of constraints with a share each (> 0, every constraint once; see above).
  int add_group(std::span<const std::pair<int, double>> shares);
  // Adds an element of consumption a_vG (> 0; non-positive is ignored) on group g to v: w_Gc·a_vG
  // of each of its constraints c.
  void expand_group(int v, int g, double consumption);
  // Drops all of v's elements; v keeps its weight and bound and is re-solved.
  void clear(int v);
  // Sets v's bound (finite, >= 0; the step executor's compute ops, whose SMs communication
  // kernels take and give back); v and the constraints it can now bind are re-solved.
  void set_bound(int v, double bound);
  void remove_variable(int v);

  double value(int v) const { return vars_[v].value; }
  // Hints that v's record (then, once that is in cache, its elements) will be read soon: a
  // client walking many variables in an order the system cannot see (the fabric's completions)
  // asks ahead, as the solver does along its own lists.
  void prefetch(int v) const { vars_.prefetch(v); }
  void prefetch_elements(int v) const { prefetch_block(vars_[v]); }
  // Σ a_cv · x_v over the constraint's variables.
  double usage(int c) const;
  // Members the constraint lists, stale ones included (below: at most twice its live ones, plus
  // a few).
  std::size_t listed(int c) const { return cnsts_[c].vars.size(); }
  // Whether the constraint can bind: an unbounded variable on it, or usage at the bounds beyond
  // its capacity.
  bool can_bind(int c) const;

  // Elements the pool holds, used or free (12 bytes each): the solver's memory beside its
  // variables' and constraints' own records.
  std::size_t pool_elements() const;

  // Re-solves what changed since the last call; returns the variables whose value changed, in a
  // deterministic order (valid until the next call).
  const std::vector<Change>& solve();

 private:
  // Packed to 12 bytes (a pool of millions of elements; x86 and ARMv8 load an unaligned double
  // at full speed).
  struct __attribute__((packed)) Element {
    double a = 0.0;
    int id = 0;  // the constraint, or ~g for group g
  };
  static_assert(sizeof(Element) == 12);
  // A constraint's member: a variable, which of its elements (by place in the variable's block,
  // which a moved block keeps) is the one on the constraint, and the variable's generation when
  // it joined. Removing or clearing a variable bumps its generation: its members go stale where
  // they are, in O(1) per element with no write into other variables' records, and are skipped
  // until the constraint drops them, in order, once more than 16 of them are more than half its
  // list (so a list holds at most twice its live members plus 16, and the survivors keep the
  // order they joined in). Generations are 32 bits; an id whose generation would wrap is not
  // reused.
  struct Member {
    int var = 0;
    std::uint32_t element = 0;
    std::uint32_t gen = 0;
  };
  // A variable's elements sit in one block of the pool (no allocation per variable): `count` of
  // `capacity` used from `data`; a full block moves to one twice its size. Blocks of up to
  // kExactBlocks elements are taken at the size asked (a route's hops, given up front: up to 66
  // for a bundle spread over the 32 spines of a 64-port plane without groups), larger ones at the
  // next power of two; freed blocks are reused by size.
  // 40 bytes; a removed variable's weight is 0 (a live one's is positive).
  struct Variable {
    double weight = 0.0, bound = kUnbounded, value = 0.0;
    Element* data = nullptr;
    std::uint32_t count = 0, capacity = 0;
    bool live() const { return weight > 0.0; }
  };
  static_assert(sizeof(Variable) == 40);
  // Sums over a constraint's variables count those that reach it through its groups.
  struct Constraint {
    double capacity = 0.0;
    std::vector<Member> vars;  // its variables (their elements hold the consumption)
    double at_bounds = 0.0;    // running Σ a_cv · b_v over its bounded variables
    int unbounded = 0;         // its unbounded variables
    std::size_t stale = 0;     // members of `vars` gone stale
    std::vector<std::pair<int, double>> groups;  // the groups holding it, with its share in each
    int group_live = 0;                          // current members of those groups, summed
  };
  struct Group {
    std::vector<std::pair<int, double>> cnsts;  // (constraint, share)
    std::vector<Member> vars;
    std::size_t stale = 0;
  };

  // Both ends of a block: 12-byte elements packed back to back, so a route's five or six span two
  // cache lines nearly always.
  static void prefetch_block(const Variable& x) {
    __builtin_prefetch(x.data);
    if (x.count > 1) __builtin_prefetch(x.data + x.count - 1);
  }
  const Element& element(const Member& m) const { return vars_[m.var].data[m.element]; }
  bool current(const Member& m) const { return slots_[m.var].gen == m.gen; }
  std::span<const Element> elements(int v) const { return {vars_[v].data, vars_[v].count}; }
  static constexpr std::uint32_t kExactBlocks = 1024;
  static constexpr std::size_t kFirstChunkElements = 64, kChunkElements = std::size_t{1} << 16;
  static std::uint32_t block_size(std::uint32_t elements);
  static std::size_t size_class(std::uint32_t capacity);
  Element* take_block(std::uint32_t capacity);
  void grow(int v, std::uint32_t capacity);  // moves v's elements to a block of `capacity`
  void touch_constraint(int c);
  void touch_variable(int v);
  // Calls f(constraint, consumption) for each constraint the element is on (a group's: each of
  // its constraints, with the share applied).
  template <class F>
  void rows(const Element& e, F&& f) const {
    if (e.id >= 0) {
      f(e.id, e.a);
      return;
    }
    for (const auto& [c, share] : groups_[~e.id].cnsts) f(c, share * e.a);
  }
  bool emptied(const Constraint& k) const { return k.stale == k.vars.size() && k.group_live == 0; }
  void attach(int v, Element e);  // expand() and expand_group(): e on its constraint or group
  void detach(int v);             // drops v's elements, touching the constraints that could bind
  void compact(std::vector<Member>& members, std::size_t& stale);  // drops the stale ones
  // Progressive filling of one component, from the sums and the bounded variables (by_bound_)
  // that solve()'s search gathered.
  void fill(const std::vector<int>& vars, const std::vector<int>& cnsts);
  // A binding constraint's unfixed variables, marked fixed, in the order it lists them (its own,
  // then each group's): fill() fixes them from this short list, fetching their records and
  // elements ahead, where most of the constraint's own list is fixed already.
  const std::vector<int>& gather_unfixed(int c);
  // The component's changed values into changes_, in component order; `changed` counts those
  // fill() saw while fixing (all of them unless variables were left unfixed).
  void report(const std::vector<int>& vars, bool unfixed_left, std::size_t changed);

  Precision precision_;
  ChunkedVector<Variable> vars_;  // (records that never move: no doubling slack)
  struct Chunk {
    std::unique_ptr<Element[]> data;
    std::size_t size = 0;
  };
  std::vector<Chunk> chunks_;      // the pool
  Element* chunk_next_ = nullptr;  // the last chunk's unused tail
  std::size_t chunk_left_ = 0;
  std::vector<std::vector<Element*>> free_blocks_;  // by size_class()
  std::vector<Constraint> cnsts_;
  std::vector<Group> groups_;
  std::vector<std::uint32_t> group_walked_;  // stamp_ once a solve added the group's members
  std::vector<int> free_vars_;
  std::vector<int> touched_cnsts_, touched_vars_;
  std::vector<std::uint32_t> cnst_stamp_;
  std::vector<std::uint32_t> cnst_walked_;  // stamp_ once a solve added the constraint's members
  // Per constraint, by the search of the last solve (stamp): Σ a·w and count of its variables.
  std::vector<std::uint32_t> sum_stamp_;
  std::vector<double> sum_load_;
  std::vector<int> sum_count_;
  // What a solve reads of a variable each time a constraint lists it (see "Memory traffic"
  // above). Marks are relative to stamp_, which solve() keeps below 2^31 by clearing every stamp
  // before it would wrap.
  struct Slot {
    std::uint32_t gen = 0;   // bumped when the variable leaves its constraints
    std::uint32_t mark = 0;  // 2·stamp_ once a solve's search reached it, 2·stamp_ + 1 once fixed
  };
  static_assert(sizeof(Slot) == 8);
  bool reached(int v) const { return slots_[v].mark >> 1 == stamp_; }
  std::uint32_t fixed_mark() const { return 2 * stamp_ + 1; }
  bool fixed(int v) const { return slots_[v].mark == fixed_mark(); }
  std::vector<Slot> slots_;
  std::vector<int> var_pos_;        // positions in the component being solved
  std::vector<char> var_touched_;   // in touched_vars_
  std::vector<int> cnst_pos_;       // positions in the component being solved
  std::vector<char> cnst_touched_;  // in touched_cnsts_
  std::uint32_t stamp_ = 0;         // counts solves, below 2^31 (Slot::mark holds twice it)
  std::vector<Change> changes_;
  // Scratch of solve(), kept between calls for its capacity.
  std::vector<int> comp_vars_, comp_cnsts_, unfixed_, by_bound_, pending_;
  std::vector<double> left_, load_, value_;
  std::vector<std::pair<double, int>> heap_;
};

}  // namespace stepsim::engine
