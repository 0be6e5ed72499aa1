#include "sim/spec/faults.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

namespace stepsim {

TEST_CASE("Fault descriptions") {
  using spec::FaultKind;
  CHECK(spec::fault_text({FaultKind::nic_down, 2, 7}) == "NIC 7 of node 2 down");
  CHECK(spec::fault_text({FaultKind::link_down, -1, -1, 1, 3, 0}) ==
        "plane 1 leaf 3 - spine 0 link down");
  CHECK(spec::fault_text({FaultKind::link_degrade, -1, -1, 0, 2, 1, -1, 0.25}) ==
        "plane 0 leaf 2 - spine 1 link at 0.25x bandwidth");
  CHECK(spec::fault_text({FaultKind::nvlink_degrade, -1, -1, -1, -1, -1, 9, 0.5}) ==
        "GPU 9's NVLink at 0.50x bandwidth");
  CHECK(spec::fault_text({FaultKind::switch_down, -1, -1, 2, -1, 3}) == "plane 2 spine 3 down");
  CHECK(spec::fault_text({FaultKind::switch_down, -1, -1, 0, 4}) == "plane 0 leaf 4 down");
  CHECK(spec::fault_text({FaultKind::node_down, 5}) == "node 5 down");
  CHECK(spec::fault_place({FaultKind::straggler, -1, -1, -1, -1, -1, 4, 1.5}) == "GPU 4");
  CHECK(spec::fault_text({FaultKind::straggler, -1, -1, -1, -1, -1, 4, 1.5}) ==
        "GPU 4 computes 1.50x slower");
}

TEST_CASE("A fault kind's row says what it hits and does") {
  using spec::FaultEffect;
  using spec::FaultKind;
  using spec::FaultTarget;
  CHECK(spec::target_of(FaultKind::nic_degrade) == FaultTarget::nic);
  CHECK(spec::effect_of(FaultKind::nic_degrade) == FaultEffect::degrade);
  CHECK(spec::target_of(FaultKind::straggler) == FaultTarget::gpu);
  CHECK(spec::effect_of(FaultKind::straggler) == FaultEffect::slowdown);
  CHECK(spec::effect_of(FaultKind::node_down) == FaultEffect::down);

  const spec::FaultSpec nvlink{FaultKind::nvlink_degrade, -1, -1, -1, -1, -1, 13, 0.5};
  CHECK(nvlink.node_hit(8) == 1);
  CHECK(spec::FaultSpec{FaultKind::nic_down, 3, 0}.node_hit(8) == 3);
  CHECK(spec::FaultSpec{FaultKind::link_down, -1, -1, 0, 1, 2}.node_hit(8) == -1);
  CHECK(spec::FaultSpec{FaultKind::switch_down, -1, -1, 0, 1}.leaf_switch());
  CHECK_FALSE(spec::FaultSpec{FaultKind::switch_down, -1, -1, 0, 1}.spine_switch());
}

TEST_CASE("The help lists every kind once, grouped by what it hits") {
  const std::string help = spec::fault_kinds_help();
  std::vector<std::string> tokens;
  std::string token;
  for (char c : help + ' ') {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      token += c;
    } else if (!token.empty()) {
      tokens.push_back(std::exchange(token, {}));
    }
  }
  for (const auto& row : spec::kFaultKinds.names)
    CHECK(std::count(tokens.begin(), tokens.end(), std::string(row.word)) == 1);
  CHECK(help.find("nic_down, nic_degrade (a NIC); ") == 0);
  CHECK(help.find("straggler (a GPU)") != std::string::npos);
  CHECK(help.back() == ')');
}

}  // namespace stepsim
