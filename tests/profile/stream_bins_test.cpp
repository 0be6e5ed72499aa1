#include "sim/profile/stream_bins.hpp"

#include <doctest/doctest.h>

#include "tests/test_support.hpp"

using namespace stepsim;

TEST_CASE("The hand-written trace in 10 us bins: the longest class of each bin, its busy share") {
  // 22 bins over 100..320 us (the span of its GPU work).
  const profile::BinnedStreams b = profile::bin_streams(
      test::source_path("tests/profile/traces/hand.pt.trace.json"), 100.0, 320.0, 22);
  REQUIRE(b.streams.size() == 2);
  const profile::StreamBins& compute = b.streams[0];
  const profile::StreamBins& comm = b.streams[1];
  CHECK(compute.stream == 7);
  CHECK(comm.stream == 13);
  auto label = [&](const profile::StreamBins& s, int bin) {
    const int i = s.top[static_cast<std::size_t>(bin)];
    return i < 0 ? std::string("-") : b.labels[static_cast<std::size_t>(i)];
  };
  CHECK(label(compute, 0) == "gemm");  // 100..150
  CHECK(compute.busy[0] == doctest::Approx(1.0));
  CHECK(label(compute, 5) == "-");           // 150..160: nothing on the compute stream
  CHECK(label(compute, 12) == "attention");  // 210..240
  CHECK(label(compute, 15) == "memory-bound activation");
  CHECK(label(compute, 17) == "memory-bound norm");  // 270..275: half the bin
  CHECK(compute.busy[17] == doctest::Approx(0.5));
  CHECK(label(compute, 21) == "memcpy");
  CHECK(label(comm, 5) == "communication all_reduce");  // 150..230
  CHECK(label(comm, 13) == "-");
}
