#include "sim/config/yaml_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/config/yaml_limits.hpp"
#include "sim/engine/input_files.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/user_error.hpp"

namespace stepsim::config {

using engine::did_you_mean;
using engine::listing;
using engine::SourceLoc;
using engine::UserError;

namespace {

std::string join(const std::vector<std::string>& parts, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n && i < parts.size(); ++i) s += (i ? "." : "") + parts[i];
  return s;
}

std::string child_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

}  // namespace

std::string unreadable_because(const std::string& file) {
  std::error_code ec;
  const auto st = std::filesystem::status(file, ec);
  if (st.type() == std::filesystem::file_type::not_found) return "it does not exist";
  if (ec) return ec.message();
  if (st.type() == std::filesystem::file_type::directory) return "it is a directory";
  if (st.type() != std::filesystem::file_type::regular) return "it is not a regular file";
  return {};
}

void check_referenced_file(const std::string& file, const Node& ref) {
  if (const std::string why = unreadable_because(file); !why.empty())
    ref.fail("cannot read file '" + file + "': " + why,
             "paths are relative to the file that names them");
}

bool is_device_name(const std::string& value) {
  return !value.empty() && value.find_first_of("/.") == std::string::npos;
}

bool is_file_reference(const std::string& key) {
  return key == "model" || key == "cluster" || key == "device" || key == "software";
}

Override parse_override(const std::string& text, const std::string& option) {
  const SourceLoc where{option + " " + text, 0, 0};
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UserError(where, option + " expects key.path=value",
                    "e.g. " + option + " training.precision.gemm=bf16");
  Override o;
  o.text = text;
  o.option = option;
  std::string key = text.substr(0, eq);
  for (std::size_t i = 0; i <= key.size();) {
    const auto dot = key.find('.', i);
    const std::string part = key.substr(i, dot == std::string::npos ? std::string::npos : dot - i);
    if (part.empty())
      throw UserError(where, "empty component in key '" + key + "'", "write keys as a.b.c");
    o.path.push_back(part);
    if (dot == std::string::npos) break;
    i = dot + 1;
  }
  try {
    check_limits(option + " " + text, text.substr(eq + 1));
    o.value = YAML::Load(text.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw UserError(where, "value is not valid YAML: " + e.msg,
                    "quote strings, write lists as [a, b]");
  }
  if (!o.value.IsDefined() || o.value.IsNull()) o.value = YAML::Node(std::string());
  return o;
}

const std::string* Node::option_text() const {
  std::string p = path_;
  while (true) {
    if (auto it = ctx_->overridden.find(p); it != ctx_->overridden.end()) return &it->second;
    const auto dot = p.rfind('.');
    if (dot == std::string::npos) return nullptr;
    p.resize(dot);
  }
}

SourceLoc Node::loc() const {
  if (const std::string* option = option_text()) return {*option, 0, 0};
  const YAML::Mark m = node_.Mark();
  if (m.line < 0) return {ctx_->file, 0, 0};
  return {ctx_->file, m.line + 1, m.column + 1};
}

void Node::fail(const std::string& message, const std::string& hint) const {
  throw UserError(loc(), message, hint);
}

std::string Node::text() const {
  if (!node_.IsScalar())
    fail("'" + path_ + "' must be a single value, not a " +
         (node_.IsMap()        ? "mapping"
          : node_.IsSequence() ? "list"
                               : "null"));
  // A YAML escape ("\0", "\x1b") can put a control character into a value; it would reach the
  // outputs raw. Line breaks and tabs are text.
  for (const char ch : node_.Scalar()) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c != 0x7f) continue;
    if (c == '\n' || c == '\t') continue;
    char code[8];
    std::snprintf(code, sizeof code, "%02X", c);
    fail("'" + path_ + "' holds the control character U+00" + code,
         "values are printable text: remove the escape");
  }
  return node_.Scalar();
}

long long Node::integer(long long lo, long long hi) const {
  const std::string s = text();
  long long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range)
    fail("'" + path_ + "' = " + s + " is too large", "use an integer <= " + std::to_string(hi));
  if (ec != std::errc() || end != s.data() + s.size())
    fail("'" + path_ + "' must be an integer, got '" + s + "'");
  if (v < lo || v > hi)
    fail("'" + path_ + "' = " + s + " is out of range",
         "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

double Node::number(double lo, double hi) const {
  const std::string s = text();
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
    fail("'" + path_ + "' must be a number, got '" + s + "'");
  if (v < lo || v > hi) {
    std::ostringstream os;
    os << "expected a number in [" << lo << ", " << hi << "]";
    fail("'" + path_ + "' = " + s + " is out of range", os.str());
  }
  return v;
}

bool Node::boolean() const {
  const std::string s = text();
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  fail("'" + path_ + "' must be true or false, got '" + s + "'");
}

double Node::quantity(spec::Dimension dim) const {
  return quantity(dim, spec::accepted_range(dim));
}

double Node::quantity(spec::Dimension dim, spec::Range r) const {
  const std::string s = text();
  const spec::Parsed p = spec::parse_quantity(s, dim);
  if (!p.value)
    fail("'" + path_ + "': " + p.error, "write the unit: " + std::string(spec::example(dim)));
  if (*p.value <= 0.0) fail("'" + path_ + "' must be positive, got '" + s + "'");
  if (*p.value < r.lo || *p.value > r.hi)
    fail("'" + path_ + "' = '" + s + "' is outside the physically sensible range",
         std::string(spec::to_string(dim)) + " from " + spec::format_quantity(r.lo, dim) + " to " +
             spec::format_quantity(r.hi, dim));
  return *p.value;
}

spec::Precision Node::precision() const {
  const int i = choice({"fp8", "bf16", "fp16", "fp32"});
  return static_cast<spec::Precision>(i);
}

int Node::choice(const std::vector<std::string>& words) const {
  const std::string s = text();
  for (std::size_t i = 0; i < words.size(); ++i)
    if (words[i] == s) return static_cast<int>(i);
  fail("'" + path_ + "': unknown value '" + s + "'", engine::choice_hint(s, words));
}

std::vector<Node> Node::items() const {
  if (!node_.IsSequence()) fail("'" + path_ + "' must be a list, e.g. [a, b]");
  std::vector<Node> out;
  std::size_t i = 0;
  for (const auto& n : node_) out.emplace_back(n, path_ + "." + std::to_string(i++), ctx_);
  return out;
}

MapReader::MapReader(const Node& node) : node_(node) {
  if (!node.yaml().IsMap())
    node.fail("'" + (node.path().empty() ? std::string("document") : node.path()) +
                  "' must be a mapping of key: value",
              "check the indentation");
  std::set<std::string> seen;
  for (const auto& kv : node.yaml()) {
    const Node key(kv.first, child_path(node.path(), kv.first.Scalar()), node_.shared_context());
    if (!kv.first.IsScalar()) key.fail("keys must be plain words");
    if (!seen.insert(kv.first.Scalar()).second)
      key.fail("duplicate key '" + kv.first.Scalar() + "'", "remove one of them");
  }
}

bool MapReader::has(const std::string& key) const {
  return node_.yaml()[key].IsDefined();
}

std::optional<Node> MapReader::find(const std::string& key) {
  asked_.insert(key);
  const YAML::Node n = node_.yaml()[key];
  if (!n.IsDefined() || n.IsNull()) return std::nullopt;
  Node child(n, child_path(node_.path(), key), node_.shared_context());
  if (auto* prov = node_.context().provenance) (*prov)[child.path()] = child.loc();
  return child;
}

Node MapReader::get(const std::string& key) {
  auto n = find(key);
  if (!n) {
    // A misspelt key is the likelier cause: report it where it is.
    for (const auto& kv : node_.yaml()) {
      const std::string k = kv.first.Scalar();
      if (asked_.count(k) || !did_you_mean(k, {key})) continue;
      Node(kv.first, child_path(node_.path(), k), node_.shared_context())
          .fail("unknown key '" + k + "'" +
                    (node_.path().empty() ? "" : " in '" + node_.path() + "'"),
                "did you mean '" + key + "'?");
    }
    const std::string where =
        node_.path().empty() ? std::string("the document") : "'" + node_.path() + "'";
    node_.fail("missing field '" + key + "' in " + where, "add " + key + ": ...");
  }
  return *n;
}

void MapReader::finish() const {
  std::vector<std::string> known(asked_.begin(), asked_.end());
  for (const auto& kv : node_.yaml()) {
    const std::string k = kv.first.Scalar();
    if (asked_.count(k)) continue;
    const Node key(kv.first, child_path(node_.path(), k), node_.shared_context());
    std::string hint = "known keys here: " + listing(known);
    if (auto m = did_you_mean(k, known)) hint = "did you mean '" + *m + "'?";
    key.fail("unknown key '" + k + "'" + (node_.path().empty() ? "" : " in '" + node_.path() + "'"),
             hint);
  }
}

void MapReader::reject_unread_overrides() const {
  const std::vector<std::string> known(asked_.begin(), asked_.end());
  for (const auto& [path, text] : node_.context().overridden) {
    const std::string key = path.substr(0, path.find('.'));
    if (asked_.count(key)) continue;
    std::string hint = "this file format does not use '" + key + "'";
    if (auto m = did_you_mean(key, known)) hint = "did you mean '" + *m + "'?";
    throw UserError({text, 0, 0}, "'" + key + "' is not read from " + node_.context().file, hint);
  }
}

namespace {

void apply(YAML::Node root, const Override& o, std::size_t from,
           std::map<std::string, std::string>& overridden) {
  YAML::Node cur = root;
  for (std::size_t i = from; i < o.path.size(); ++i) {
    const std::string& seg = o.path[i];
    const bool last = i + 1 == o.path.size();
    if (cur.IsScalar() && i > from && is_file_reference(o.path[i - 1]))
      return;  // applied to that file
    if (cur.IsSequence()) {
      std::size_t idx = 0;
      const auto [end, ec] = std::from_chars(seg.data(), seg.data() + seg.size(), idx);
      if (ec != std::errc() || end != seg.data() + seg.size() || idx >= cur.size())
        throw UserError({o.option + " " + o.text, 0, 0},
                        "'" + join(o.path, i) + "' is a list; '" + seg + "' is not an index in it");
      if (last) {
        cur[idx] = o.value;
        break;
      }
      cur.reset(cur[idx]);
      continue;
    }
    if (!cur.IsMap() && !cur.IsNull())
      throw UserError({o.option + " " + o.text, 0, 0},
                      "'" + join(o.path, i) + "' is a single value, not a mapping");
    if (last) {
      cur[seg] = o.value;
      break;
    }
    YAML::Node next = cur[seg];
    if (!next.IsDefined() || next.IsNull()) {
      cur[seg] = YAML::Node(YAML::NodeType::Map);
      next.reset(cur[seg]);
    }
    cur.reset(next);
  }
  overridden[join(o.path, o.path.size())] = o.option + " " + o.text;
}

}  // namespace

bool keys_overlap(const std::string& a, const std::string& b) {
  return a == b || a.rfind(b + ".", 0) == 0 || b.rfind(a + ".", 0) == 0;
}

Document Document::load(const std::string& file, const std::vector<Override>& overrides,
                        const std::string& prefix, std::map<std::string, SourceLoc>* provenance) {
  if (const std::string why = unreadable_because(file); !why.empty())
    throw UserError(
        {file, 0, 0}, "cannot read file: " + why,
        "check the path (relative paths inside a scenario are relative to the scenario)");
  std::ifstream in(file, std::ios::binary);
  engine::note_input(file);
  if (!in)
    throw UserError(
        {file, 0, 0}, "cannot read file",
        "check the path (relative paths inside a scenario are relative to the scenario)");
  std::error_code size_ec;
  if (std::filesystem::file_size(file, size_ec) > kMaxFileBytes && !size_ec)
    throw UserError({file, 0, 0}, "file larger than 16 MiB",
                    "scenario, model and cluster files are small; is this the right file?");
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw UserError({file, 0, 0}, "cannot read file", "is it a directory?");
  return parse(buf.str(), file, overrides, prefix, provenance);
}

Document Document::parse(const std::string& text, const std::string& file,
                         const std::vector<Override>& overrides, const std::string& prefix,
                         std::map<std::string, SourceLoc>* provenance) {
  if (text.size() > kMaxFileBytes)
    throw UserError({file, 0, 0}, "file larger than 16 MiB",
                    "scenario, model and cluster files are small; is this the right file?");
  engine::refuse_control_bytes(file, text,
                               "scenario, model and cluster files are text: remove the byte (is "
                               "this the right file?)");
  YAML::Node root;
  try {
    check_limits(file, text);
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw UserError({file, e.mark.line + 1, e.mark.column + 1}, "YAML syntax error: " + e.msg,
                    "check indentation, colons and brackets near this position");
  } catch (const YAML::Exception& e) {
    throw UserError({file, 0, 0}, "cannot parse YAML: " + e.msg);
  }
  if (!root.IsDefined() || root.IsNull())
    throw UserError({file, 1, 1}, "file is empty", "expected a mapping of key: value");

  auto ctx = std::make_shared<Context>();
  ctx->file = file;
  ctx->provenance = provenance;
  std::vector<std::string> pre;
  if (!prefix.empty()) pre = parse_override(prefix + "=0").path;
  for (const auto& o : overrides) {
    if (o.path.size() <= pre.size() || !std::equal(pre.begin(), pre.end(), o.path.begin()))
      continue;
    if (!root.IsMap()) continue;
    std::map<std::string, std::string> local;
    apply(root, o, pre.size(), local);
    for (auto& [k, v] : local) {
      // Paths inside this document are relative to it.
      ctx->overridden[k.substr(prefix.empty() ? 0 : prefix.size() + 1)] = v;
    }
  }
  return Document(Node(root, "", ctx));
}

}  // namespace stepsim::config
