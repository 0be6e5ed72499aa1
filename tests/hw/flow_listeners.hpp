// Flow listeners for the tests that start flows by hand: a flow network asks a waiting flow's
// request of its listener again when the flow joins its links (hw::FlowListener::request), so a
// test's listener keeps what it started, by tag.
#pragma once

#include <cstdint>
#include <map>

#include "sim/hw/flow_network.hpp"

namespace stepsim::test {

// Keeps the requests it starts, by tag (a tag names one waiting flow: a second start under it
// replaces the first's request); a subclass says what a delivery does.
class RequestKeeper : public hw::FlowListener {
 public:
  void start(hw::FlowNetwork& net, const hw::FlowRequest& q, std::uint64_t tag) {
    requests_[tag] = q;
    net.start(q, this, tag);
  }
  hw::FlowRequest request(std::uint64_t tag) const override { return requests_.at(tag); }

 protected:
  ~RequestKeeper() = default;

 private:
  std::map<std::uint64_t, hw::FlowRequest> requests_;
};

// Records when each tag was delivered.
struct Deliveries final : RequestKeeper {
  std::map<std::uint64_t, engine::Time> at;
  void on_flow_done(engine::Simulator& sim, std::uint64_t tag) override { at[tag] = sim.now(); }
};

}  // namespace stepsim::test
