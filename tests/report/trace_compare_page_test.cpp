#include "sim/report/trace_compare_page.hpp"

#include <doctest/doctest.h>

using namespace stepsim;

namespace {

// One stream of `bins` bins: the first half gemm, the rest idle but for one attention bin.
profile::BinnedStreams side(int bins) {
  profile::BinnedStreams b;
  b.start_us = 0.0;
  b.end_us = 1e6;
  b.bins = bins;
  b.labels = {"gemm fprop", "attention"};
  profile::StreamBins s;
  s.stream = 7;
  for (int i = 0; i < bins; ++i) {
    s.top.push_back(i < bins / 2 ? 0 : (i == bins - 1 ? 1 : -1));
    s.busy.push_back(i < bins / 2 ? 1.0 : 0.5);
  }
  b.streams.push_back(s);
  return b;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("The compare page: a lane per stream and side, one mark per run of a class") {
  report::ProfileComparison pc;
  pc.c.measured.file.path = "rank-0.pt.trace.json";
  pc.c.classes = {{"gemm fprop", 0.5, 0.4, 10, 10}, {"attention", 0.01, 0.0, 1, 0}};
  pc.against = "scenario.yaml, pipeline rank 0";
  pc.measured_bins = side(report::kCompareBins);
  pc.simulated_bins = side(report::kCompareBins);
  const std::string page = report::trace_compare_page({pc});
  CHECK(page == report::trace_compare_page({pc}));
  CHECK(page.rfind("<!doctype html>", 0) == 0);
  CHECK(count(page, "profile stream 7 (compute)") == 1);
  CHECK(count(page, "simulated stream 7 (compute)") == 1);
  // Per side: the gemm run and the attention bin, each with its tooltip.
  CHECK(count(page, "<title>gemm fprop: 0 s to 500.00 ms, stream busy 100 %</title>") == 2);
  CHECK(count(page, "<title>attention: ") == 2);
  CHECK(page.find("not simulated") != std::string::npos);  // attention ran only in the profile
  CHECK(page.find("1.250") != std::string::npos);          // gemm: 0.5 / 0.4
}
