#include "sim/cli/output_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "sim/engine/user_error.hpp"

namespace stepsim::cli {

void write_file_atomically(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path tmp = target.parent_path() / ("." + target.filename().string() + ".tmp" + std::to_string(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw engine::UserError({path, 0, 0}, "cannot write output file", "check that the directory exists and is writable");
    out << text;
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw engine::UserError({path, 0, 0}, "failed while writing output file", "is the disk full?");
    }
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw engine::UserError({path, 0, 0}, "cannot replace output file: " + ec.message());
  }
}

}  // namespace stepsim::cli
