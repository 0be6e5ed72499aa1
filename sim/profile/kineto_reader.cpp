#include "sim/profile/kineto_reader.hpp"

#include <nlohmann/json.hpp>

#include <fstream>
#include <vector>

#include "sim/engine/input_files.hpp"
#include "sim/engine/user_error.hpp"

namespace stepsim::profile {

namespace {

using Json = nlohmann::json;

// Where the parser is: which container, which the handler keeps anything of.
enum class Frame : std::uint8_t {
  top,
  info,
  devices,
  device,
  events,
  event,
  args,
  dims,
  dim,
  types,
  skip
};

// The SAX handler: a stack of frames, the key last read, the event being filled.
class Handler : public nlohmann::json_sax<Json> {
 public:
  Handler(ProfileFile& file, const std::function<void(const ProfileEvent&)>& visit,
          const engine::RunControl* control)
      : file_(file), visit_(visit), control_(control) {}

  bool saw_events() const { return saw_events_; }
  std::size_t error_at() const { return error_at_; }
  const std::string& error() const { return error_; }

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t v) override { return number(static_cast<double>(v)); }
  bool number_unsigned(number_unsigned_t v) override { return number(static_cast<double>(v)); }
  bool number_float(number_float_t v, const string_t&) override { return number(v); }
  bool binary(binary_t&) override { return true; }

  bool string(string_t& v) override {
    const Frame f = frames_.empty() ? Frame::skip : frames_.back();
    if (f == Frame::event) {
      if (key_ == "ph")
        event_.ph = v.empty() ? 0 : v[0];
      else if (key_ == "cat")
        event_.cat = v;
      else if (key_ == "name")
        event_.name = v;
    } else if (f == Frame::args) {
      if (key_ == "Collective name")
        event_.collective = v;
      else if (key_ == "stepsim class")
        event_.stepsim_class = v;
    } else if (f == Frame::types) {
      event_.input_types.push_back(v);
    } else if (f == Frame::device && key_ == "name" && file_.gpu.empty()) {
      file_.gpu = v;
    }
    return true;
  }

  bool start_object(std::size_t) override {
    if (frames_.empty()) return push(Frame::top);
    const Frame f = frames_.back();
    if (f == Frame::top && key_ == "distributedInfo") return push(Frame::info);
    if (f == Frame::events) {
      event_ = ProfileEvent{};
      return push(Frame::event);
    }
    if (f == Frame::event && key_ == "args") return push(Frame::args);
    if (f == Frame::devices) return push(Frame::device);
    return push(Frame::skip);
  }

  bool end_object() override {
    const Frame f = frames_.back();
    frames_.pop_back();
    if (f == Frame::event) {
      ++file_.events;
      if (control_ && (file_.events & 0xFFFF) == 0) control_->check();
      visit_(event_);
    }
    return true;
  }

  bool start_array(std::size_t) override {
    // The Trace Event Format's array form: the events alone.
    if ((frames_.empty() || frames_.back() == Frame::top) &&
        (frames_.empty() || key_ == "traceEvents")) {
      saw_events_ = true;
      return push(Frame::events);
    }
    const Frame f = frames_.empty() ? Frame::skip : frames_.back();
    if (f == Frame::top && key_ == "deviceProperties") return push(Frame::devices);
    if (f == Frame::args && key_ == "Input Dims") return push(Frame::dims);
    if (f == Frame::args && key_ == "Input type") return push(Frame::types);
    if (f == Frame::dims) {
      event_.input_dims.emplace_back();
      return push(Frame::dim);
    }
    return push(Frame::skip);
  }

  bool end_array() override {
    frames_.pop_back();
    return true;
  }

  bool key(string_t& k) override {
    key_ = k;
    return true;
  }

  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& e) override {
    error_at_ = position;
    error_ = e.what();
    return false;
  }

 private:
  bool push(Frame f) {
    frames_.push_back(f);
    return true;
  }

  bool number(double v) {
    const Frame f = frames_.empty() ? Frame::skip : frames_.back();
    const auto whole = static_cast<long long>(v);
    if (f == Frame::event) {
      if (key_ == "ts")
        event_.ts = v;
      else if (key_ == "dur")
        event_.dur = v;
      else if (key_ == "pid")
        event_.pid = whole;
      else if (key_ == "tid")
        event_.tid = whole;
    } else if (f == Frame::args) {
      if (key_ == "stream")
        event_.stream = whole;
      else if (key_ == "correlation")
        event_.correlation = whole;
      else if (key_ == "External id")
        event_.external = whole;
      else if (key_ == "Group size")
        event_.group_size = whole;
      else if (key_ == "bytes")
        event_.bytes = v;
    } else if (f == Frame::dim) {
      event_.input_dims.back().push_back(whole);
    } else if (f == Frame::top && key_ == "baseTimeNanoseconds") {
      file_.base_time_ns = v;
    } else if (f == Frame::info) {
      if (key_ == "rank")
        file_.rank = static_cast<int>(whole);
      else if (key_ == "world_size")
        file_.world_size = static_cast<int>(whole);
    }
    return true;
  }

  ProfileFile& file_;
  const std::function<void(const ProfileEvent&)>& visit_;
  const engine::RunControl* control_;
  std::vector<Frame> frames_;
  std::string key_;
  ProfileEvent event_;
  bool saw_events_ = false;
  std::size_t error_at_ = 0;
  std::string error_;
};

// The 1-based line and column of byte `offset` of the file.
engine::SourceLoc locate(const std::string& path, std::size_t offset) {
  std::ifstream in(path, std::ios::binary);
  engine::SourceLoc at{path, 1, 1};
  char c = 0;
  for (std::size_t i = 0; i + 1 < offset && in.get(c); ++i) {
    if (c == '\n') {
      ++at.line;
      at.column = 1;
    } else {
      ++at.column;
    }
  }
  return at;
}

}  // namespace

namespace {

const char* const kHint =
    "give a PyTorch profiler trace (.json, as export_chrome_trace or tensorboard_trace_handler "
    "writes it)";

}  // namespace

ProfileFile read_kineto(std::istream& in, const std::string& name,
                        const std::function<void(const ProfileEvent&)>& visit,
                        const engine::RunControl* control) {
  ProfileFile file;
  file.path = name;
  Handler h(file, visit, control);
  if (!Json::sax_parse(in, &h)) {
    std::string what = h.error();
    if (const auto colon = what.rfind(": "); colon != std::string::npos)
      what = what.substr(colon + 2);
    throw engine::UserError(locate(name, h.error_at()), "not JSON: " + what, kHint);
  }
  if (!h.saw_events())
    throw engine::UserError({name, 0, 0}, "no traceEvents array at the top level", kHint);
  return file;
}

ProfileFile read_kineto(const std::string& path,
                        const std::function<void(const ProfileEvent&)>& visit,
                        const engine::RunControl* control) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw engine::UserError({path, 0, 0}, "cannot read the trace", kHint);
  engine::note_input(path);  // no output of the command may replace it
  return read_kineto(in, path, visit, control);
}

}  // namespace stepsim::profile
