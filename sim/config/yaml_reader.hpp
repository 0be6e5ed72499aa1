// Reading YAML documents into spec structs, with every mistake reported at its file:line:column.
//
// `Document::load` parses one file (YAML syntax errors become engine::UserError with the parser's
// position; a raw control byte in the file, refused at its line and column before parsing:
// engine::refuse_control_bytes) and applies the command line's `--set key.path=value` overrides
// that fall inside it.
// `Node` is a YAML node plus its dotted path ("training.precision.gemm") and where it came from;
// its typed accessors (integer, quantity, choice, ...) reject wrong types, out-of-range numbers,
// bare numbers where a unit is needed, and unknown enum words with a did-you-mean.
// `MapReader` reads a mapping key by key and, on `finish()`, rejects every key it was not asked
// for, suggesting the closest known one. Every key read is recorded in the document's provenance
// so that later checks can point back at it.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/engine/user_error.hpp"
#include "sim/spec/precision.hpp"
#include "sim/spec/units.hpp"

namespace stepsim::config {

// One `--set key.path=value` from the command line.
struct Override {
  std::vector<std::string> path;
  std::string text;  // as typed, for messages
  YAML::Node value;
  std::string option = "--set";  // the option that gave it, for messages
};
// Parses "key.path=value" given by `option`; throws engine::UserError on a malformed one.
Override parse_override(const std::string& text, const std::string& option = "--set");
// Whether two dotted keys name the same setting: equal, or one inside the other (parallelism and
// parallelism.pp), so that giving both lets one silently override the other.
bool keys_overlap(const std::string& a, const std::string& b);

struct Context {
  std::string file;                               // as the user named it
  std::map<std::string, std::string> overridden;  // dotted path -> "--set ..." text
  std::map<std::string, engine::SourceLoc>* provenance = nullptr;
};

class Node {
 public:
  Node(YAML::Node node, std::string path, std::shared_ptr<const Context> ctx)
      : node_(std::move(node)), path_(std::move(path)), ctx_(std::move(ctx)) {}

  engine::SourceLoc loc() const;
  // Whether an option (--set and the like) gave this value or one around it, not the file.
  bool set_by_option() const { return option_text() != nullptr; }
  const std::string& path() const { return path_; }
  const YAML::Node& yaml() const { return node_; }
  const Context& context() const { return *ctx_; }
  std::shared_ptr<const Context> shared_context() const { return ctx_; }
  bool is_map() const { return node_.IsMap(); }
  bool is_sequence() const { return node_.IsSequence(); }

  [[noreturn]] void fail(const std::string& message, const std::string& hint = {}) const;

  std::string text() const;  // any scalar
  long long integer(long long lo = 1, long long hi = (1LL << 53)) const;
  double number(double lo, double hi) const;
  bool boolean() const;
  double quantity(spec::Dimension dim) const;  // with a unit, within spec::accepted_range(dim)
  double quantity(spec::Dimension dim, spec::Range range) const;  // with a unit, within `range`
  spec::Precision precision() const;
  int choice(const std::vector<std::string>& words) const;  // index of the word
  std::vector<Node> items() const;                          // a sequence's elements

 private:
  // The option that gave this value or one around it ("--set a.b=1"), or null.
  const std::string* option_text() const;
  YAML::Node node_;
  std::string path_;
  std::shared_ptr<const Context> ctx_;
};

class MapReader {
 public:
  explicit MapReader(const Node& node);  // fails unless a mapping; rejects duplicate keys
  bool has(const std::string& key) const;
  Node get(const std::string& key);  // required: "missing field" otherwise
  std::optional<Node> find(const std::string& key);
  const Node& node() const { return node_; }
  // Rejects keys never asked for, naming the closest asked-for key.
  void finish() const;
  // For foreign formats whose other keys are ignored: rejects only keys set by --set and never
  // read.
  void reject_unread_overrides() const;

 private:
  Node node_;
  std::set<std::string> asked_;
};

// One loaded YAML (or JSON) file.
class Document {
 public:
  // `prefix` is the dotted path of this document inside the scenario ("" for the scenario,
  // "model", "cluster", "cluster.device"); overrides under it are applied.
  static Document load(const std::string& file, const std::vector<Override>& overrides,
                       const std::string& prefix,
                       std::map<std::string, engine::SourceLoc>* provenance);
  // The same from text already in memory; `file` names it in messages.
  static Document parse(const std::string& text, const std::string& file,
                        const std::vector<Override>& overrides, const std::string& prefix,
                        std::map<std::string, engine::SourceLoc>* provenance);
  const Node& root() const { return root_; }

 private:
  explicit Document(Node root) : root_(std::move(root)) {}
  Node root_;
};

// Why `file` cannot be read as an input ("it does not exist", "it is a directory", ...), or "".
std::string unreadable_because(const std::string& file);
// Fails at `ref` (the key naming `file`) when the file cannot be read.
void check_referenced_file(const std::string& file, const Node& ref);

// Keys whose scalar value names another file (overrides under them apply to that file).
bool is_file_reference(const std::string& key);
// Whether a `device:` value names a shipped device (h800: no folder, no extension), not a file.
bool is_device_name(const std::string& value);

using engine::did_you_mean;

}  // namespace stepsim::config
