#include "verifier/guards/assumptions.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>
#include <vector>

#include "support/repo_config.h"

namespace fusecert::guards {

namespace {

const std::map<std::string, std::vector<std::string>>& allowed() {
  static const std::map<std::string, std::vector<std::string>> a = {
      {"routing", {"dense", "conditional"}},
      {"grad_clip_scope", {"none", "layer", "global"}},
      {"unrouted", {"dense_zero_grad", "skip"}},
      {"buffer_args", {"distinct"}},
  };
  return a;
}

std::map<std::string, ir::Attr>& table() {
  static std::map<std::string, ir::Attr> t;  // set before any candidate is checked, read-only after
  return t;
}

std::map<std::string, std::string>& sources() {
  static std::map<std::string, std::string> s;  // key -> "--assume" or FILE:LINE:COL
  return s;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += (s.empty() ? "" : " | ") + x;
  return s;
}

}  // namespace

std::string add_assumption(const std::string& kv) {
  const auto eq = kv.find('=');
  std::string keys;
  for (auto& [k, vs] : allowed()) keys += (keys.empty() ? "" : ", ") + k + " (" + join(vs) + ")";
  if (eq == std::string::npos) return "--assume '" + kv + "': expected KEY=VALUE; keys: " + keys;
  const std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
  auto it = allowed().find(key);
  if (it == allowed().end()) return "--assume: unknown key '" + key + "'; keys: " + keys;
  bool ok = false;
  for (auto& v : it->second) ok = ok || v == value;
  if (!ok) return "--assume " + key + ": unknown value '" + value + "'; one of " + join(it->second);
  if (auto old = table().find(key); old != table().end() && old->second.text != value)
    return "--assume " + key + " given twice: '" + old->second.text + "' and '" + value + "'";
  ir::Attr a;
  a.kind = ir::Attr::Kind::String;
  a.text = value;
  table()[key] = a;
  sources().emplace(key, "--assume");
  return "";
}

ConfigProblem load_assumption_file(const std::string& path) {
  auto at = [&](const YAML::Node& n, const std::string& msg) {
    const YAML::Mark m = n.Mark();
    return ConfigProblem{path, m.is_null() ? 0u : static_cast<unsigned>(m.line + 1),
                         m.is_null() ? 0u : static_cast<unsigned>(m.column + 1), msg};
  };
  YAML::Node top;
  try {
    top = YAML::LoadFile(path);
  } catch (const YAML::ParserException& e) {
    return {path, static_cast<unsigned>(e.mark.line + 1), static_cast<unsigned>(e.mark.column + 1),
            "does not parse as YAML: " + e.msg};
  } catch (const std::exception& e) {
    return {path, 0, 0, std::string("cannot be read: ") + e.what()};
  }
  if (top.IsNull()) return {};
  if (!top.IsMap()) return at(top, "a configuration file must be a mapping");
  const auto& sections = support::repo_config_sections();
  YAML::Node ir;
  bool has_ir = false, has_assume = false;  // a default Node is defined (null): flags, not `if (node)`
  for (const auto& kv : top) {
    const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : "?";
    if (std::find(sections.begin(), sections.end(), k) == sections.end())
      return at(kv.first, "unknown top-level key `" + k + "`; a configuration file holds only `docs:` and `ir:`");
    if (k == "ir") {
      if (has_ir) return at(kv.first, "duplicate key `ir`; YAML keeps only one of the two values");
      ir = kv.second;
      has_ir = true;
    }
  }
  if (!has_ir || ir.IsNull()) return {};
  if (!ir.IsMap()) return at(ir, "`ir:` must be a mapping (its one key is `assume:`)");
  YAML::Node assume;
  for (const auto& kv : ir) {
    const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : "?";
    if (k != "assume") return at(kv.first, "unknown key `ir." + k + "`; `ir:` holds only `assume:`");
    if (has_assume) return at(kv.first, "duplicate key `ir.assume`; YAML keeps only one of the two values");
    assume = kv.second;
    has_assume = true;
  }
  if (!has_assume || assume.IsNull()) return {};
  if (!assume.IsMap()) return at(assume, "`ir.assume:` must be a mapping of KEY: VALUE");
  std::string keys;
  for (auto& [k, vs] : allowed()) keys += (keys.empty() ? "" : ", ") + k + " (" + join(vs) + ")";
  std::map<std::string, std::pair<std::string, std::string>> read;  // key -> value, where
  for (const auto& kv : assume) {
    const std::string k = kv.first.IsScalar() ? kv.first.Scalar() : "?";
    auto it = allowed().find(k);
    if (it == allowed().end()) return at(kv.first, "ir.assume: unknown key '" + k + "'; keys: " + keys);
    if (read.count(k)) return at(kv.first, "ir.assume: duplicate key '" + k + "'; YAML keeps only one of the two values");
    // A plain string, exactly one of the listed spellings (a quoted "dense"
    // is the same string; a number, a list or a mapping is not one).
    if (!kv.second.IsScalar())
      return at(kv.second, "ir.assume " + k + ": the value must be one of " + join(it->second));
    const std::string v = kv.second.Scalar();
    if (std::find(it->second.begin(), it->second.end(), v) == it->second.end())
      return at(kv.second, "ir.assume " + k + ": unknown value '" + v + "'; one of " + join(it->second));
    const YAML::Mark m = kv.first.Mark();
    read[k] = {v, path + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1)};
  }
  for (auto& [k, vw] : read) {
    if (table().count(k)) continue;  // --assume beats the file
    ir::Attr a;
    a.kind = ir::Attr::Kind::String;
    a.text = vw.first;
    table()[k] = a;
    sources()[k] = vw.second;
  }
  return {};
}

std::string assumption_source(const std::string& key) {
  auto it = sources().find(key);
  return it == sources().end() ? "--assume" : it->second;
}

const ir::Attr* assumed(const std::string& key) {
  auto it = table().find(key);
  return it == table().end() ? nullptr : &it->second;
}

const std::map<std::string, ir::Attr>& assumptions() { return table(); }

void clear_assumptions() {
  table().clear();
  sources().clear();
}

}  // namespace fusecert::guards
