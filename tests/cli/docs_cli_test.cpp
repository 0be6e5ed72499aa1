// The documentation against the program: the command reference is what tools/command-ref
// generates from the command table, and every example in the README and docs/ (a `$ stepsim ...`
// line in a code block) runs, exits 0 and prints the lines shown under it (spaces squeezed: a
// table's widths follow its widest cell). A shown line may elide with "...": its pieces must then
// appear in order on one line of the output. docs/errors.md is
// generated and checked by errors_doc_test.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using stepsim::test::slurp;

struct Example {
  std::string file, command;
  std::vector<std::string> shown;  // the lines under it
};

std::string trimmed(const std::string& s) {
  const auto a = s.find_first_not_of(' ');
  const auto b = s.find_last_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// [[maybe_unused]]: the sanitizer build leaves out the test that runs the examples.
[[maybe_unused]] std::vector<Example> examples(const fs::path& file) {
  std::vector<Example> out;
  std::istringstream in(slurp(file));
  std::string line;
  bool block = false;
  Example* current = nullptr;
  while (std::getline(in, line)) {
    const std::string t = trimmed(line);
    if (t.rfind("```", 0) == 0) {
      block = !block;
      current = nullptr;
      continue;
    }
    if (!block) continue;
    if (t.rfind("$ ", 0) == 0) {
      current = nullptr;
      if (t.rfind("$ stepsim ", 0) != 0) continue;  // tools/run: the README's first lines
      std::string command = t.substr(2);
      while (!command.empty() && command.back() == '\\' && std::getline(in, line))
        command = command.substr(0, command.size() - 1) + " " + trimmed(line);
      out.push_back({fs::relative(file, STEPSIM_SOURCE_DIR).string(), command, {}});
      current = &out.back();
    } else if (current && !t.empty()) {
      current->shown.push_back(line);
    }
  }
  return out;
}

// Runs of spaces as one: a table's column widths follow its widest cell.
std::string squeezed(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != ' ' || out.empty() || out.back() != ' ') out += c;
  return out;
}

// Whether `shown` (pieces split at "...") appears on one line of `output`, in order, spaces
// squeezed.
[[maybe_unused]] bool appears(const std::string& shown_line, const std::string& output) {
  const std::string shown = squeezed(shown_line);
  std::vector<std::string> pieces;
  for (std::size_t at = 0;;) {
    const auto dots = shown.find("...", at);
    const std::string piece =
        trimmed(shown.substr(at, dots == std::string::npos ? dots : dots - at));
    if (!piece.empty()) pieces.push_back(piece);
    if (dots == std::string::npos) break;
    at = dots + 3;
  }
  if (pieces.empty()) return true;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    line = squeezed(line);
    std::size_t from = 0;
    bool all = true;
    for (const std::string& p : pieces) {
      const auto hit = line.find(p, from);
      if (hit == std::string::npos) {
        all = false;
        break;
      }
      from = hit + p.size();
    }
    if (all) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("docs/commands.md is the command reference tools/command-ref generates") {
  const fs::path out = fs::temp_directory_path() / "stepsim_commands.md";
  const auto r =
      stepsim::test::run_shell(std::string("cd '") + STEPSIM_SOURCE_DIR + "' && STEPSIM='" +
                               STEPSIM_BINARY + "' tools/command-ref '" + out.string() + "' 2>&1");
  REQUIRE_MESSAGE(r.status == 0, r.out);
  CHECK_MESSAGE(slurp(out) == slurp(fs::path(STEPSIM_SOURCE_DIR) / "docs/commands.md"),
                "docs/commands.md is out of date: run tools/command-ref");
  fs::remove(out);
}

#ifndef STEPSIM_TEST_SANITIZED
TEST_CASE("every example in the README and docs/ runs and prints the lines shown") {
  // In a folder of its own that sees the source tree's inputs, so that what an example writes
  // (an export's folder, a CSV) lands there.
  const fs::path dir = fs::temp_directory_path() / "stepsim_docs_examples";
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* d : {"scenarios", "models", "topologies", "tests"})
    fs::create_directory_symlink(fs::path(STEPSIM_SOURCE_DIR) / d, dir / d);
  std::vector<fs::path> files{fs::path(STEPSIM_SOURCE_DIR) / "README.md"};
  for (const auto& e : fs::directory_iterator(fs::path(STEPSIM_SOURCE_DIR) / "docs"))
    if (e.path().extension() == ".md" && e.path().filename() != "errors.md" &&
        e.path().filename() != "commands.md")
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::size_t ran = 0;
  for (const fs::path& f : files)
    for (const Example& ex : examples(f)) {
      CAPTURE(ex.file);
      CAPTURE(ex.command);
      const auto r = stepsim::test::run_shell(
          "cd '" + dir.string() + "' && '" + STEPSIM_BINARY + "'" +
          ex.command.substr(std::string("stepsim").size()) + " 2>/dev/null");
      CHECK(r.status == 0);
      for (const std::string& line : ex.shown) {
        const std::string missing = "not in the output: " + line;
        CHECK_MESSAGE(appears(line, r.out), missing);
      }
      ++ran;
    }
  CHECK(ran >= 15);
  fs::remove_all(dir);
}
#endif
