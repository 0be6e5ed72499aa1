#include "sim/cli/output_file.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/engine/user_error.hpp"

namespace stepsim::cli {

namespace fs = std::filesystem;

OutputSet::~OutputSet() {
  std::error_code ec;
  for (const auto& [tmp, target] : staged_) fs::remove(tmp, ec);
}

void OutputSet::check_directory(const std::string& path) {
  const fs::path dir = fs::path(path).parent_path();
  std::error_code ec;
  if (!dir.empty() && !fs::is_directory(dir, ec))
    throw engine::UserError({path, 0, 0}, "cannot write output file: no directory " + dir.string(),
                            "create the directory first, or write elsewhere");
}

void OutputSet::stage(const std::string& path, const std::string& text) {
  const fs::path target(path);
  const fs::path tmp = target.parent_path() / ("." + target.filename().string() + ".tmp" + std::to_string(::getpid()));
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (!out) throw engine::UserError({path, 0, 0}, "cannot write output file", "check that the directory exists and is writable");
  staged_.emplace_back(tmp.string(), path);
  out << text;
  out.flush();
  if (!out) throw engine::UserError({path, 0, 0}, "failed while writing output file", "is the disk full?");
}

void OutputSet::commit() {
  for (std::size_t i = 0; i < staged_.size(); ++i) {
    std::error_code ec;
    fs::rename(staged_[i].first, staged_[i].second, ec);
    if (ec) {
      const std::string target = staged_[i].second;
      staged_.erase(staged_.begin(), staged_.begin() + static_cast<std::ptrdiff_t>(i));
      throw engine::UserError({target, 0, 0}, "cannot replace output file: " + ec.message());
    }
  }
  staged_.clear();
}

void write_file_atomically(const std::string& path, const std::string& text) {
  OutputSet out;
  out.stage(path, text);
  out.commit();
}

}  // namespace stepsim::cli
