#include "sim/engine/input_files.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using stepsim::engine::input_named;
using stepsim::engine::inputs_read;
using stepsim::engine::note_input;

TEST_CASE("An input is known by its file, however the path names it") {
  const fs::path dir = fs::temp_directory_path() / ("stepsim_inputs_" + std::to_string(::getpid()));
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "a.yaml") << "a: 1\n";
  std::ofstream(dir / "b.yaml") << "b: 1\n";
  fs::create_hard_link(dir / "a.yaml", dir / "hard.yaml");
  fs::create_symlink("a.yaml", dir / "soft.yaml");
  CHECK(input_named((dir / "a.yaml").string()) == nullptr);
  note_input((dir / "sub" / ".." / "a.yaml").string());
  note_input((dir / "soft.yaml").string());  // the same file: registered once
  for (const char* name : {"a.yaml", "hard.yaml", "soft.yaml", "sub/../a.yaml"}) {
    CAPTURE(name);
    const auto* in = input_named((dir / name).string());
    REQUIRE(in != nullptr);
    CHECK(in->path == (dir / "sub" / ".." / "a.yaml").string());
  }
  CHECK(input_named((dir / "b.yaml").string()) == nullptr);
  CHECK(input_named((dir / "missing.yaml").string()) == nullptr);
  note_input((dir / "missing.yaml").string());  // not stat'able: nothing registered
  std::size_t mine = 0;
  for (const auto& f : inputs_read()) mine += f.path.rfind(dir.string(), 0) == 0;
  CHECK(mine == 1);
  fs::remove_all(dir);
}
