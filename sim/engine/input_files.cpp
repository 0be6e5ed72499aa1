#include "sim/engine/input_files.hpp"

#include <sys/stat.h>

#include <deque>
#include <mutex>

namespace stepsim::engine {

namespace {

std::mutex& lock() {
  static std::mutex m;
  return m;
}

// A deque: the addresses input_named returns stay valid as inputs are added.
std::deque<InputFile>& files() {
  static std::deque<InputFile> f;
  return f;
}

}  // namespace

void note_input(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;
  const std::lock_guard<std::mutex> guard(lock());
  for (const InputFile& f : files())
    if (f.device == st.st_dev && f.inode == st.st_ino) return;
  files().push_back({path, static_cast<unsigned long long>(st.st_dev),
                     static_cast<unsigned long long>(st.st_ino)});
}

const InputFile* input_named(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return nullptr;
  const std::lock_guard<std::mutex> guard(lock());
  for (const InputFile& f : files()) {
    if (f.device != st.st_dev || f.inode != st.st_ino) continue;
    struct stat still {};
    if (::stat(f.path.c_str(), &still) == 0 && still.st_dev == st.st_dev &&
        still.st_ino == st.st_ino)
      return &f;
  }
  return nullptr;
}

void forget_inputs() {
  const std::lock_guard<std::mutex> guard(lock());
  files().clear();
}

std::vector<InputFile> inputs_read() {
  const std::lock_guard<std::mutex> guard(lock());
  return {files().begin(), files().end()};
}

}  // namespace stepsim::engine
