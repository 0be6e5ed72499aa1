#include "sim/config/yaml_limits.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <sstream>
#include <string>
#include <vector>

#include "sim/engine/user_error.hpp"

namespace stepsim::config {

using engine::UserError;

namespace {

constexpr std::size_t kMaxScalarBytes = 1u << 20;
constexpr int kMaxDepth = 64;
constexpr double kMaxExpandedNodes = 1e6;  // nodes after expanding every alias

class LimitChecker final : public YAML::EventHandler {
 public:
  explicit LimitChecker(std::string file) : file_(std::move(file)) {}
  void OnDocumentStart(const YAML::Mark& m) override {
    if (++documents_ > 1)
      fail(m, "more than one YAML document in the file",
           "keep one document (remove '---' separators)");
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t a) override { leaf(m, a); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t a) override {
    const double size = a < sizes_.size() ? sizes_[a] : 1.0;
    aliased_ += size;
    add(m, size);
  }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t a,
                const std::string& value) override {
    if (value.size() > kMaxScalarBytes)
      fail(m,
           "a value of " + std::to_string(value.size()) + " bytes exceeds the limit of " +
               std::to_string(kMaxScalarBytes),
           "scenario values are short; is this the right file?");
    leaf(m, a);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t a,
                       YAML::EmitterStyle::value) override {
    open(m, a);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t a,
                  YAML::EmitterStyle::value) override {
    open(m, a);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Frame {
    YAML::anchor_t anchor;
    double size;
    YAML::Mark mark;
  };
  [[noreturn]] void fail(const YAML::Mark& m, const std::string& what,
                         const std::string& hint) const {
    throw UserError({file_, m.line + 1, m.column + 1}, what, hint);
  }
  void remember(YAML::anchor_t a, double size) {
    if (a == YAML::NullAnchor) return;
    if (sizes_.size() <= a) sizes_.resize(a + 1, 1.0);
    sizes_[a] = size;
  }
  void add(const YAML::Mark& m, double size) {
    if (++events_ % 4096 == 0) engine::check_command();  // a long file: signals and --max-wall
    total_ += size;
    if (total_ > kMaxExpandedNodes && aliased_ > 0.0)
      fail(m, "the document expands to more than 1,000,000 values through aliases (*name)",
           "aliases that repeat anchors which themselves repeat anchors grow exponentially; write "
           "the values out");
    if (total_ > kMaxExpandedNodes)
      fail(m, "the document holds more than 1,000,000 values",
           "scenario, model and cluster files hold a few hundred; is this the right file?");
    if (!stack_.empty()) stack_.back().size += size;
  }
  void leaf(const YAML::Mark& m, YAML::anchor_t a) {
    remember(a, 1.0);
    add(m, 1.0);
  }
  void open(const YAML::Mark& m, YAML::anchor_t a) {
    if (static_cast<int>(stack_.size()) >= kMaxDepth)
      fail(m, "the document nests deeper than " + std::to_string(kMaxDepth) + " levels",
           "scenarios are a few levels deep");
    add(m, 1.0);
    stack_.push_back({a, 1.0, m});
  }
  void close() {
    const Frame f = stack_.back();
    stack_.pop_back();
    remember(f.anchor, f.size);
    if (!stack_.empty()) stack_.back().size += f.size - 1.0;  // its own node was counted at open
  }

  std::string file_;
  int documents_ = 0;
  std::uint64_t events_ = 0;
  double total_ = 0.0;
  double aliased_ = 0.0;  // values that aliases repeat
  std::vector<Frame> stack_;
  std::vector<double> sizes_;
};

}  // namespace

void check_limits(const std::string& file, const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  LimitChecker checker(file);
  while (parser.HandleNextDocument(checker)) {
  }
}

}  // namespace stepsim::config
