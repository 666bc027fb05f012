#include "verifier/guards/assumptions.h"

#include <vector>

namespace fusecert::guards {

namespace {

const std::map<std::string, std::vector<std::string>>& allowed() {
  static const std::map<std::string, std::vector<std::string>> a = {
      {"routing", {"dense", "conditional"}},
      {"grad_clip_scope", {"none", "layer", "global"}},
      {"unrouted", {"dense_zero_grad", "skip"}},
  };
  return a;
}

std::map<std::string, ir::Attr>& table() {
  static std::map<std::string, ir::Attr> t;  // set before any candidate is checked, read-only after
  return t;
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
  return "";
}

const ir::Attr* assumed(const std::string& key) {
  auto it = table().find(key);
  return it == table().end() ? nullptr : &it->second;
}

const std::map<std::string, ir::Attr>& assumptions() { return table(); }

void clear_assumptions() { table().clear(); }

}  // namespace fusecert::guards
