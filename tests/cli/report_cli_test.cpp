// End-to-end: stepsim report writes one self-contained page; in the release build, the page of
// the three DeepSeek-V3 scenarios rendered by headless Chromium draws every section.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "sim/report/html_report.hpp"
#include "tests/html_scan.hpp"
#include "tests/json_dom.hpp"
#include "tests/png_reader.hpp"
#include "tests/test_support.hpp"

using stepsim::test::slurp;

using stepsim::test::run_stepsim;

namespace {

// The build tree, where the stepsim binary is.
std::filesystem::path build_dir() {
  return std::filesystem::path(STEPSIM_BINARY).parent_path();
}

const std::string kSmall =
    "report scenarios/gpt3-175b-a100.yaml scenarios/gpt3-175b-a100.yaml --set cluster.nodes=8 "
    "--set training.global_batch=32";

}  // namespace

TEST_CASE("report: the page goes to -o, or to standard output, the same bytes every time") {
  const auto file = build_dir() / "report_cli_test_small.html";
  std::filesystem::remove(file);
  const auto r = run_stepsim(kSmall + " -o '" + file.string() + "'");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.empty());
  const std::string html = slurp(file);
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(stepsim::test::external_references(html).empty());
  const auto again = run_stepsim(kSmall);
  REQUIRE_MESSAGE(again.status == 0, again.err);
  CHECK(again.out == html);
  std::filesystem::remove(file);
}

TEST_CASE("report: mistakes are exit 2 with one message, and leave no file") {
  auto r = run_stepsim("report");
  CHECK(r.status == 2);
  CHECK(r.err.find("report needs a scenario file") != std::string::npos);
  CHECK(r.err.find("hint: stepsim report scenarios/") != std::string::npos);
  r = run_stepsim("report scenarios/deepseek-v3-dualpipe.yaml -o scenarios");
  CHECK(r.status == 2);
  CHECK(r.err.find("--output: error: cannot write output 'scenarios': it is a directory") !=
        std::string::npos);
  r = run_stepsim(
      "report scenarios/deepseek-v3-dualpipe.yaml -o scenarios/deepseek-v3-dualpipe.yaml");
  CHECK(r.status == 2);
  CHECK(r.err.find("it is an input of this command") != std::string::npos);
  const auto file = build_dir() / "report_cli_test_refused.html";
  r = run_stepsim("report scenarios/deepseek-v3-dualpipe.yaml --max-memory 1MiB -o '" +
                  file.string() + "'");
  CHECK(r.status == 2);
  CHECK(r.err.find("--max-memory") != std::string::npos);
  CHECK(!std::filesystem::exists(file));
  r = run_stepsim("report scenarios/deepseek-v3-dualpipe.yaml --bogus");
  CHECK(r.status == 2);
  CHECK(r.err.find("hint: stepsim report --help") != std::string::npos);
}

#ifndef STEPSIM_TEST_SANITIZED
namespace {

// Rows where the section headings' rule (3 px of #2f4b7c across the content) is drawn: the top
// of each section.
std::vector<int> section_tops(const stepsim::test::Image& img) {
  std::vector<int> tops;
  for (int y = 0; y < img.height; ++y) {
    int run = 0;
    for (int x = 0; x < img.width; ++x) {
      const auto* p = img.at(x, y);
      if (p[0] == 0x2f && p[1] == 0x4b && p[2] == 0x7c) ++run;
    }
    if (run >= 1000 && (tops.empty() || y > tops.back() + 3)) tops.push_back(y);
  }
  return tops;
}

struct Ink {
  double share = 0.0;  // of the pixels, not white
  int colours = 0;     // distinct colours, 4 levels a channel
};

Ink ink(const stepsim::test::Image& img, int y0, int y1) {
  long long inked = 0, all = 0;
  std::set<int> colours;
  for (int y = y0; y < y1; ++y)
    for (int x = 0; x < img.width; ++x) {
      const auto* p = img.at(x, y);
      ++all;
      if (p[0] < 235 || p[1] < 235 || p[2] < 235) {
        ++inked;
        colours.insert((p[0] >> 6) << 4 | (p[1] >> 6) << 2 | (p[2] >> 6));
      }
    }
  return {all ? static_cast<double>(inked) / all : 0.0, static_cast<int>(colours.size())};
}

}  // namespace

TEST_CASE("report: the DeepSeek-V3 page, rendered by headless Chromium, draws every section") {
  REQUIRE_MESSAGE(std::system("command -v chromium >/dev/null 2>&1") == 0,
                  "chromium is not installed (tools/test installs it)");
  const auto html = build_dir() / "report-deepseek-v3.html";
  const auto png = build_dir() / "report-deepseek-v3.png";
  const auto profile = build_dir() / "report-chromium-profile";
  std::filesystem::remove(png);
  const auto r = run_stepsim(
      "report scenarios/deepseek-v3-dualpipe.yaml scenarios/deepseek-v3-1f1b.yaml "
      "scenarios/deepseek-v3-zero3.yaml -o '" +
      html.string() + "'");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const std::string page = slurp(html);
  CHECK(stepsim::test::external_references(page).empty());
  // The page states the verdicts the mission is about.
  CHECK(page.find("communication-bound: NVLink") != std::string::npos);
  CHECK(page.find("compute-bound") != std::string::npos);

  constexpr int kWidth = 1280, kHeight = 9000;
  const std::string cmd =
      "timeout 180 chromium --headless --no-sandbox --disable-gpu "
      "--hide-scrollbars --no-first-run --user-data-dir='" +
      profile.string() + "' --window-size=" + std::to_string(kWidth) + "," +
      std::to_string(kHeight) + " --screenshot='" + png.string() + "' 'file://" + html.string() +
      "' >/dev/null 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::filesystem::remove_all(profile);
  const auto img = stepsim::test::read_png(png.string());
  CHECK(img.width == kWidth);
  CHECK(img.height == kHeight);
  const auto tops = section_tops(img);
  REQUIRE(tops.size() == std::size(stepsim::report::kReportSections));
  // The window holds the whole page: its last rows are blank.
  CHECK(ink(img, kHeight - 40, kHeight).share == 0.0);
  for (std::size_t i = 0; i < tops.size(); ++i) {
    const int end = i + 1 < tops.size() ? tops[i + 1] - 40 : kHeight;
    const Ink in = ink(img, tops[i] + 4, end);
    INFO("section ", stepsim::report::kReportSections[i], " rows ", tops[i], "-", end);
    CHECK(end - tops[i] > 100);
    CHECK(in.share > 0.01);
    CHECK(in.colours >= 4);
  }
}
#endif

#ifndef STEPSIM_TEST_SANITIZED
namespace {

// The report page as headless Chromium lays it out, measured by tests/cli/report_layout.js (see
// there): the page is copied with the probe appended and its DOM dumped after the probe ran.
stepsim::test::Json layout_of(const std::filesystem::path& html) {
  const auto probe = html.string() + ".probe.html";
  const auto dom = html.string() + ".dom.html";
  const auto profile = build_dir() / "report-probe-profile";
  std::string page = slurp(html);
  const auto body_end = page.rfind("</body>");
  REQUIRE(body_end != std::string::npos);
  page.insert(
      body_end,
      "<script>" + slurp(stepsim::test::source_path("tests/cli/report_layout.js")) + "</script>\n");
  std::ofstream(probe, std::ios::binary) << page;
  const std::string cmd =
      "timeout 180 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "
      "--no-first-run --user-data-dir='" +
      profile.string() + "' --window-size=1280,4000 --dump-dom 'file://" + probe + "' > '" + dom +
      "' 2>/dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::filesystem::remove_all(profile);
  const std::string out = slurp(dom);
  const std::string open = "<pre id=\"layout-probe\">{";
  const auto at = out.rfind(open);
  REQUIRE(at != std::string::npos);
  std::string text =
      out.substr(at + open.size() - 1, out.find("</pre>", at) - at - open.size() + 1);
  for (const auto& [entity, c] : {std::pair<std::string, std::string>{"&lt;", "<"},
                                  {"&gt;", ">"},
                                  {"&quot;", "\""},
                                  {"&nbsp;", "\xc2\xa0"},
                                  {"&amp;", "&"}})
    for (auto i = text.find(entity); i != std::string::npos; i = text.find(entity, i + 1))
      text.replace(i, entity.size(), c);
  std::filesystem::remove(probe);
  std::filesystem::remove(dom);
  return stepsim::test::parse_json(text);
}

}  // namespace

TEST_CASE(
    "report: laid out by Chromium, no two texts overlap, schedules share a scale with short ones "
    "zoomed, every mark has a tooltip and no unit wraps from its number") {
  REQUIRE_MESSAGE(std::system("command -v chromium >/dev/null 2>&1") == 0,
                  "chromium is not installed (tools/test installs it)");
  const std::string three =
      "report scenarios/deepseek-v3-dualpipe.yaml scenarios/deepseek-v3-1f1b.yaml "
      "scenarios/deepseek-v3-zero3.yaml";
  const auto html = build_dir() / "report-layout.html";
  REQUIRE(run_stepsim(three + " -o '" + html.string() + "'").status == 0);
  const auto layout = layout_of(html);
  for (const auto& pair : layout.at("overlaps"))
    FAIL_CHECK("overlapping texts: '" << pair.at(0).get<std::string>() << "' and '"
                                      << pair.at(1).get<std::string>() << "'");
  // On one time scale, each step takes what it is of ZeRO-3's 287 s; the two pipeline steps,
  // under a third of it, are drawn again beside themselves over their own step.
  const auto& spans = layout.at("schedule");
  REQUIRE(spans.size() == 3);
  CHECK(spans[0].at("shared").get<double>() < 0.1);
  CHECK(spans[1].at("shared").get<double>() < 0.15);
  CHECK(spans[2].at("shared").get<double>() >= 0.8);
  CHECK(spans[0].at("zoom").get<double>() >= 0.6);
  CHECK(spans[1].at("zoom").get<double>() >= 0.6);
  CHECK(spans[2].at("zoom").get<double>() == 0.0);
  for (const auto& mark : layout.at("untitled"))
    FAIL_CHECK("a mark without <title>: " << mark.get<std::string>());
  for (const auto& text : layout.at("wrapped"))
    FAIL_CHECK("a unit wrapped: " << text.get<std::string>());

  // --own-axis: each over its own step, all as wide as the section allows, none zoomed.
  REQUIRE(run_stepsim(three + " --own-axis -o '" + html.string() + "'").status == 0);
  const auto own = layout_of(html);
  CHECK(own.at("overlaps").empty());
  REQUIRE(own.at("schedule").size() == 3);
  for (const auto& span : own.at("schedule")) {
    CHECK(span.at("shared").get<double>() >= 0.8);
    CHECK(span.at("zoom").get<double>() == 0.0);
  }
  std::filesystem::remove(html);
}
#endif

TEST_CASE("report --stress: a section per scenario's campaign, as stepsim stress draws it") {
  const stepsim::test::ChildLeakChecks leaks;  // report and stress once, leaks checked
  const std::string args = kSmall + " --stress straggler:1@1.5 --trials 4 --seed 3";
  const auto page = run_stepsim(args);
  REQUIRE(page.status == 0);
  CHECK(page.out.find("<section id=\"stress\">") != std::string::npos);
  CHECK(page.out.find("4 trials of 1 straggler") != std::string::npos);
  // The same draws as the stress command, over threads too: its figures appear on the page.
  const auto json = run_stepsim(
      "stress scenarios/gpt3-175b-a100.yaml --set cluster.nodes=8 --set "
      "training.global_batch=32 --fault straggler:1@1.5 --trials 4 --seed 3 --json");
  REQUIRE(json.status == 0);
  const auto j = stepsim::test::parse_json(json.out);
  char median[32];
  std::snprintf(median, sizeof median, "median %+.2f%%",
                100.0 * j.at("change_fraction").at("median").get<double>());
  CHECK(page.out.find(median) != std::string::npos);
  CHECK(run_stepsim(args + " -j 2").out == page.out);
  const auto without = run_stepsim(kSmall);
  CHECK(without.out.find("id=\"stress\"") == std::string::npos);
  const auto bad = run_stepsim(kSmall + " --seed 4");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("--seed has no effect without --stress") != std::string::npos);
}
