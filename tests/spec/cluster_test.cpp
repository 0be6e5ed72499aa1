#include "sim/spec/cluster.hpp"

#include <doctest/doctest.h>

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
  CHECK(spec::fault_place({FaultKind::straggler, -1, -1, -1, -1, -1, 4, 1.5}) == "GPU 4");
  CHECK(spec::fault_text({FaultKind::straggler, -1, -1, -1, -1, -1, 4, 1.5}) ==
        "GPU 4 computes 1.50x slower");
}

}  // namespace stepsim
