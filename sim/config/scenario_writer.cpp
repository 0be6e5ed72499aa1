#include "sim/config/scenario_writer.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <sstream>

#include "sim/config/yaml_reader.hpp"
#include "sim/engine/user_error.hpp"

namespace stepsim::config {

namespace fs = std::filesystem;
using engine::UserError;

namespace {

// `path`, relative to `from` (or absolute), relative to `to`; absolute where the two share no
// folder but the root.
std::string rebase(const std::string& path, const fs::path& from, const fs::path& to) {
  fs::path p(path);
  if (p.is_relative()) p = from / p;
  const fs::path target = fs::weakly_canonical(fs::absolute(p));
  const fs::path dir = fs::weakly_canonical(fs::absolute(to));
  const auto t = target.begin(), d = dir.begin();
  const bool shared = std::distance(t, target.end()) > 1 && std::distance(d, dir.end()) > 1 &&
                      *std::next(t) == *std::next(d);
  const fs::path rel = fs::relative(target, dir);
  return (!shared || rel.empty() ? target : rel).generic_string();
}

// A device named without a file (device: h800) is one of the shipped set, not a path.
bool names_file(const std::string& key, const std::string& parent, const YAML::Node& value) {
  if (key == "device" && value.IsScalar() && is_device_name(value.as<std::string>())) return false;
  return is_file_reference(key) || (parent == "placement" && key == "file");
}

// Rewrites the file references in `n` (read from a file in `from`) relative to `to`: the values
// of keys naming a file, and the file names of a device's `kernel_tables` list (its inline
// tables are kept).
void rebase_references(YAML::Node n, const fs::path& from, const fs::path& to,
                       const std::string& parent = "") {
  if (!n.IsMap()) return;
  std::vector<std::string> keys;
  for (const auto& kv : n) keys.push_back(kv.first.as<std::string>());
  for (const std::string& key : keys) {
    YAML::Node v = n[key];
    if (names_file(key, parent, v) && v.IsScalar()) {
      n[key] = rebase(v.as<std::string>(), from, to);
    } else if (key == "kernel_tables" && v.IsSequence()) {
      for (std::size_t i = 0; i < v.size(); ++i)
        if (v[i].IsScalar()) v[i] = rebase(v[i].as<std::string>(), from, to);
    } else {
      rebase_references(v, from, to, key);
    }
  }
}

// The file's YAML, read as every input is (its size and nesting limits, file:line errors).
YAML::Node load_file(const std::string& file) {
  return Document::load(file, {}, "", nullptr).root().yaml();
}

// Sets o.path to o.value under `root` (read from a file in `from`); a file reference on the way is
// replaced by its file's YAML. A value that names files is read, as the loader reads it, relative
// to the file holding its key, and rewritten relative to `out_dir`.
// `inlined` remembers each file inlined so far and its folder, for the overrides that follow.
using Inlined = std::vector<std::pair<YAML::Node, fs::path>>;

void apply(YAML::Node root, const Override& o, fs::path from, const fs::path& out_dir,
           Inlined& inlined_files) {
  YAML::Node n = root;
  std::string parent;
  for (std::size_t i = 0; i + 1 < o.path.size(); ++i) {
    const std::string& key = o.path[i];
    YAML::Node next = n[key];
    for (const auto& [node, dir] : inlined_files)
      if (next.is(node)) from = dir;
    if (names_file(key, parent, next) && next.IsScalar()) {
      // The reference was already rewritten relative to the new file's folder.
      const fs::path file = out_dir / next.as<std::string>();
      YAML::Node inlined = load_file(file.string());
      rebase_references(inlined, file.parent_path(), out_dir);
      from = fs::weakly_canonical(file).parent_path();
      n[key] = inlined;
      next.reset(n[key]);
      inlined_files.emplace_back(next, from);
    }
    if (next.IsDefined() && !next.IsNull() && !next.IsMap())
      throw UserError({o.option + " " + o.text, 0, 0},
                      "'" + key + "' is not a mapping, so it has no key '" + o.path[i + 1] + "'",
                      "check the key path");
    if (!next.IsDefined() || next.IsNull()) {
      n[key] = YAML::Node(YAML::NodeType::Map);
      next.reset(n[key]);
    }
    parent = key;
    n.reset(next);  // rebinds (operator= would overwrite what n refers to)
  }
  YAML::Node value = YAML::Clone(o.value);
  const std::string& key = o.path.back();
  if (names_file(key, parent, value) && value.IsScalar()) {
    value = rebase(value.as<std::string>(), from, out_dir);
  } else if (key == "kernel_tables" && value.IsSequence()) {
    for (std::size_t i = 0; i < value.size(); ++i)
      if (value[i].IsScalar()) value[i] = rebase(value[i].as<std::string>(), from, out_dir);
  } else if (value.IsMap()) {
    rebase_references(value, from, out_dir, key);  // e.g. a whole device, its tables named
  }
  n[key] = value;
}

}  // namespace

std::string derived_scenario(const ScenarioBase& base, const std::vector<std::string>& sets,
                             const std::string& name, const std::string& out_file,
                             const std::string& header) {
  const fs::path out_dir = fs::absolute(out_file).parent_path();
  YAML::Node root;
  if (!base.scenario.empty()) {
    root = load_file(base.scenario);
    if (!root.IsMap())
      throw UserError({base.scenario, 0, 0}, "a scenario is a mapping of key: value",
                      "check the file with stepsim check");
    rebase_references(root, fs::absolute(base.scenario).parent_path(), out_dir);
  } else {
    root = YAML::Node(YAML::NodeType::Map);
    root["name"] = name;  // first, so that the file opens with it
    root["model"] = rebase(base.model, fs::current_path(), out_dir);
    root["cluster"] = rebase(base.cluster, fs::current_path(), out_dir);
  }
  root["name"] = name;
  const fs::path from =
      base.scenario.empty() ? fs::current_path() : fs::absolute(base.scenario).parent_path();
  Inlined inlined;
  for (const std::string& s : sets) apply(root, parse_override(s), from, out_dir, inlined);
  YAML::Emitter e;
  e << root;
  std::ostringstream o;
  std::istringstream lines(header);
  for (std::string line; std::getline(lines, line);) o << "# " << line << "\n";
  o << e.c_str() << "\n";
  return o.str();
}

}  // namespace stepsim::config
