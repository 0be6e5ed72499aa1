#include "sim/cli/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "sim/cli/interrupt.hpp"
#include "sim/engine/user_error.hpp"

namespace stepsim::cli {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kChunk = 1 << 20;
const char* const kPathHint = "name a regular file, or a new file in an existing directory";

engine::UserError bad_output(const std::string& option, const std::string& path,
                             const std::string& why, const std::string& hint = kPathHint) {
  return engine::UserError({option, 0, 0}, "cannot write output '" + path + "': " + why, hint);
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "it is a directory";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "it is a device, not a regular file";
  if (S_ISFIFO(mode)) return "it is a FIFO, not a regular file";
  if (S_ISSOCK(mode)) return "it is a socket, not a regular file";
  return "it is not a regular file";
}

}  // namespace

OutputSet::~OutputSet() {
  discard();
}

void OutputSet::discard() {
  for (Output& o : outputs_) {
    if (o.temp.empty()) continue;
    ::unlink(o.temp.c_str());
    unregister_temporary(o.slot);
    o.temp.clear();
    o.slot = -1;
  }
}

void OutputSet::add(const std::string& option, const std::string& path) {
  if (path.empty()) throw bad_output(option, path, "the path is empty");
  if (path.find('\0') != std::string::npos)
    throw bad_output(option, path, "the path contains a NUL byte");
  std::error_code ec;
  // Symbolic links are followed to the file they name, a dangling one's too (its target is the
  // new file: the link stays a link); the directories on the way are resolved as well.
  fs::path named = fs::absolute(path, ec);
  std::error_code link_ec;  // none where the name does not exist
  for (int hops = 0; !ec && fs::is_symlink(fs::symlink_status(named, link_ec)); ++hops) {
    if (hops == 40)
      throw bad_output(option, path, "its symbolic links form a loop", "name a file, not a loop");
    const fs::path to = fs::read_symlink(named, ec);
    named = to.is_absolute() ? to : named.parent_path() / to;
  }
  const fs::path target = ec ? named : fs::weakly_canonical(named, ec);
  if (ec) throw bad_output(option, path, ec.message());
  struct stat st {};
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists) {
    if (!S_ISREG(st.st_mode)) throw bad_output(option, path, kind_of(st.st_mode));
  } else {
    const fs::path dir = target.parent_path();
    struct stat ds {};
    if (::stat(dir.c_str(), &ds) != 0 || !S_ISDIR(ds.st_mode))
      throw bad_output(option, path, "no directory " + fs::path(path).parent_path().string(),
                       "create the directory first, or write elsewhere");
  }
  if (::access(target.parent_path().c_str(), W_OK) != 0)
    throw bad_output(option, path, "its directory is not writable", "write elsewhere");
  // The same file as another output: the same path, or (a file that exists) the same inode.
  for (const Output& o : outputs_)
    if (o.target == target.string() ||
        (exists && o.exists && o.device == st.st_dev && o.inode == st.st_ino))
      throw bad_output(option, path, "it is also the " + o.option + " output",
                       "give each output its own file");
  if (const engine::InputFile* in = engine::input_named(target.string()))
    throw bad_output(option, path,
                     "it is an input of this command (" + in->path + "); refusing to overwrite it",
                     "write the output to another file");
  struct stat out {};
  const bool is_stdout = exists && ::fstat(STDOUT_FILENO, &out) == 0 && S_ISREG(out.st_mode) &&
                         out.st_dev == st.st_dev && out.st_ino == st.st_ino;
  outputs_.push_back({option,
                      path,
                      target.string(),
                      {},
                      -1,
                      exists,
                      exists ? static_cast<unsigned long long>(st.st_dev) : 0ULL,
                      exists ? static_cast<unsigned long long>(st.st_ino) : 0ULL,
                      is_stdout});
}

void OutputSet::check_read() const {
  for (const Output& o : outputs_)
    if (const engine::InputFile* in = engine::input_named(o.target))
      throw bad_output(
          o.option, o.path,
          "it is an input of this command (" + in->path + "); refusing to overwrite it",
          "write the output to another file");
}

void OutputSet::check_inputs(const std::vector<std::string>& inputs) const {
  for (const Output& o : outputs_)
    for (const std::string& in : inputs)
      if (same_file(o.target, in))
        throw bad_output(o.option, o.path,
                         "it is an input of this command (" + in + "); refusing to overwrite it",
                         "write the output to another file");
}

OutputSet::Output& OutputSet::find(const std::string& path) {
  for (Output& o : outputs_)
    if (o.path == path) return o;
  throw std::logic_error("output staged without being declared: " + path);
}

void OutputSet::stage(const std::string& path, const std::string& text) {
  Output& o = find(path);
  throw_if_interrupted();
  const fs::path target(o.target);
  const std::string temp = (target.parent_path() / ("." + target.filename().string() + ".tmp" +
                                                    std::to_string(::getpid())))
                               .string();
  // Registered before it exists, so that a second signal removes it whatever the moment.
  o.temp = temp;
  o.slot = register_temporary(temp);
  ::unlink(temp.c_str());  // a leftover of an earlier process with this id
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int err = errno;
    unregister_temporary(o.slot);
    o.temp.clear();
    o.slot = -1;
    throw bad_output(o.option, o.path, std::strerror(err), "check that its directory is writable");
  }
  // A replaced file keeps its permissions.
  struct stat st {};
  if (::stat(o.target.c_str(), &st) == 0) ::fchmod(fd, st.st_mode & 07777);
  std::size_t done = 0;
  while (done < text.size()) {
    if (interrupted().load() ||
        (control_ && std::chrono::steady_clock::now() > control_->deadline)) {
      ::close(fd);
      throw_if_interrupted();
      control_->check();
    }
    const std::size_t n = std::min(kChunk, text.size() - done);
    const ssize_t w = ::write(fd, text.data() + done, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const int err = w < 0 ? errno : EIO;
      ::close(fd);
      throw bad_output(o.option, o.path, std::string("write failed: ") + std::strerror(err),
                       "is the disk full?");
    }
    done += static_cast<std::size_t>(w);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    throw bad_output(o.option, o.path, std::string("write failed: ") + std::strerror(err),
                     "is the disk full?");
  }
  throw_if_interrupted();
}

void OutputSet::finish_report(const std::string& path, const std::string& text) {
  if (path.empty()) {
    finish(text);
    return;
  }
  stage(path, text);
  finish("");
}

void OutputSet::finish(const std::string& stdout_text) {
  throw_if_interrupted();
  if (control_) control_->check();
  check_read();
  // Standard output redirected to a file that is also an output: one would replace the other.
  for (const Output& o : outputs_)
    if (o.is_stdout && !stdout_text.empty())
      throw bad_output(o.option, o.path,
                       "it is the file standard output goes to, which also carries this "
                       "command's text",
                       "give " + o.option + " its own file, or redirect standard output elsewhere");
  write_stdout(stdout_text);
  block_signals_until_exit();
  throw_if_interrupted();
  // Keep a hard link to every file about to be replaced, so that a failed rename can put it back;
  // where none can be made, refuse before replacing anything.
  const std::size_t n = outputs_.size();
  std::vector<std::string> backups(n);
  auto drop_backups = [&] {
    for (const std::string& b : backups)
      if (!b.empty()) ::unlink(b.c_str());
  };
  for (std::size_t i = 0; i < n; ++i) {
    const Output& o = outputs_[i];
    std::error_code ec;
    if (o.temp.empty() || !fs::exists(o.target, ec)) continue;
    backups[i] = o.temp + ".old";
    ::unlink(backups[i].c_str());
    if (::link(o.target.c_str(), backups[i].c_str()) != 0) {
      const int err = errno;
      backups[i].clear();
      drop_backups();
      throw bad_output(
          o.option, o.path,
          std::string("cannot keep the file it replaces until the others are written: ") +
              std::strerror(err),
          "write to a new file name");
    }
  }
  std::vector<char> renamed(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    Output& o = outputs_[i];
    if (o.temp.empty()) continue;
    if (::rename(o.temp.c_str(), o.target.c_str()) != 0) {
      const int err = errno;
      // Put back what was already replaced; remove what was new.
      for (std::size_t j = 0; j < i; ++j) {
        if (!renamed[j]) continue;
        if (backups[j].empty())
          ::unlink(outputs_[j].target.c_str());
        else
          ::rename(backups[j].c_str(), outputs_[j].target.c_str());
        backups[j].clear();
      }
      drop_backups();
      throw bad_output(o.option, o.path, std::string("cannot replace it: ") + std::strerror(err),
                       "write elsewhere");
    }
    renamed[i] = 1;
  }
  for (Output& o : outputs_) {
    unregister_temporary(o.slot);
    o.temp.clear();
    o.slot = -1;
  }
  drop_backups();
}

void write_stdout(const std::string& text) {
  errno = 0;
  std::cout << text;
  std::cout.flush();
  const int error = errno;
  throw_if_interrupted();  // a signal that broke the write is reported as the signal
  if (!std::cout && error == EPIPE) throw StdoutClosed{};
  if (!std::cout)
    throw engine::UserError({"<standard output>", 0, 0}, "cannot write the output",
                            "is the disk full, or standard output closed?");
}

}  // namespace stepsim::cli
