#include "verifier/ir/dialect_table.h"

#include <yaml-cpp/yaml.h>

#include <mutex>
#include <set>
#include <stdexcept>

#include "verifier/ir/builtin_dialects.h"

namespace fusecert::ir {

std::string to_string(OpRole r) {
  switch (r) {
    case OpRole::Contraction: return "contraction";
    case OpRole::Optimizer: return "optimizer";
    case OpRole::Fused: return "fused";
    case OpRole::Add: return "add";
    case OpRole::Clip: return "clip";
    case OpRole::Decay: return "decay";
    case OpRole::Collective: return "collective";
  }
  return "?";
}

std::string to_string(AttrKind k) {
  switch (k) {
    case AttrKind::Unit: return "unit";
    case AttrKind::Bool: return "bool";
    case AttrKind::Int: return "int";
    case AttrKind::Index: return "index";
    case AttrKind::Float: return "float";
    case AttrKind::String: return "string";
    case AttrKind::Symbol: return "symbol";
    case AttrKind::Dtype: return "dtype";
    case AttrKind::Dict: return "dict";
  }
  return "?";
}

int OpSpec::operand(const std::string& r) const {
  for (size_t i = 0; i < operands.size(); ++i)
    if (operands[i] == r) return static_cast<int>(i);
  return -1;
}

const OpSpec* DialectTable::find(const std::string& op_name) const {
  auto it = ops.find(op_name);
  return it == ops.end() ? nullptr : &it->second;
}

std::optional<std::string> DialectTable::dtype(const std::string& spelling) const {
  auto it = dtypes.find(spelling);
  if (it == dtypes.end()) return std::nullopt;
  return it->second;
}

namespace {

[[noreturn]] void bad(const std::string& source, const std::string& where, const std::string& what) {
  throw std::invalid_argument(source + ": " + where + ": " + what);
}

std::vector<std::string> strings(const YAML::Node& n, const std::string& source, const std::string& where) {
  std::vector<std::string> out;
  if (!n) return out;
  if (!n.IsSequence()) bad(source, where, "expected a list of names");
  for (const auto& e : n) {
    if (!e.IsScalar()) bad(source, where, "expected a list of names");
    out.push_back(e.as<std::string>());
  }
  return out;
}

AttrKind kind_of(const std::string& s, const std::string& source, const std::string& where) {
  static const std::map<std::string, AttrKind> kinds = {
      {"unit", AttrKind::Unit},     {"bool", AttrKind::Bool},     {"int", AttrKind::Int},
      {"index", AttrKind::Index},   {"float", AttrKind::Float},   {"string", AttrKind::String},
      {"symbol", AttrKind::Symbol}, {"dtype", AttrKind::Dtype}};
  auto it = kinds.find(s);
  if (it == kinds.end())
    bad(source, where, "unknown attribute kind '" + s +
                           "' (known: unit, bool, int, index, float, string, symbol, dtype, or a map for a dictionary)");
  return it->second;
}

KeySpec key_spec(const YAML::Node& n, const std::string& source, const std::string& where) {
  KeySpec k;
  if (n.IsScalar()) {
    k.kinds.push_back(kind_of(n.as<std::string>(), source, where));
  } else if (n.IsSequence()) {
    for (const auto& e : n) {
      if (!e.IsScalar()) bad(source, where, "a list of kinds holds kind names only");
      k.kinds.push_back(kind_of(e.as<std::string>(), source, where));
    }
    if (k.kinds.empty()) bad(source, where, "an empty list of kinds");
  } else if (n.IsMap()) {
    k.kinds.push_back(AttrKind::Dict);
    for (const auto& e : n) {
      const std::string key = e.first.as<std::string>();
      k.entries[key] = key_spec(e.second, source, where + "." + key);
    }
  } else {
    bad(source, where, "expected a kind, a list of kinds or a map");
  }
  return k;
}

OpRole role_of(const std::string& s, const std::string& source, const std::string& where) {
  static const std::map<std::string, OpRole> roles = {
      {"contraction", OpRole::Contraction}, {"optimizer", OpRole::Optimizer}, {"fused", OpRole::Fused},
      {"add", OpRole::Add},                 {"clip", OpRole::Clip},           {"decay", OpRole::Decay},
      {"collective", OpRole::Collective}};
  auto it = roles.find(s);
  if (it == roles.end())
    bad(source, where, "unknown role '" + s + "' (known: contraction, optimizer, fused, add, clip, decay, collective)");
  return it->second;
}

}  // namespace

DialectTable parse_dialect_table(const std::string& yaml_text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    bad(source, "YAML", e.what());
  }
  if (!root.IsMap()) bad(source, "top level", "expected a map with dialect, dtypes and ops");
  for (const auto& e : root) {
    const std::string k = e.first.as<std::string>();
    if (k != "dialect" && k != "dtypes" && k != "ops") bad(source, "top level", "unknown field '" + k + "'");
  }
  DialectTable t;
  t.source = source;
  if (!root["dialect"] || !root["dialect"].IsScalar()) bad(source, "dialect", "missing (the op-name prefix)");
  t.dialect = root["dialect"].as<std::string>();
  static const std::set<std::string> dtypes = {"f64", "f32", "bf16", "f16"};
  if (const YAML::Node d = root["dtypes"]) {
    if (!d.IsMap()) bad(source, "dtypes", "expected a map spelling -> dtype");
    for (const auto& e : d) {
      const std::string to = e.second.as<std::string>();
      if (!dtypes.count(to)) bad(source, "dtypes." + e.first.as<std::string>(), "'" + to + "' is not f64, f32, bf16 or f16");
      t.dtypes[e.first.as<std::string>()] = to;
    }
  }
  const YAML::Node ops = root["ops"];
  if (!ops || !ops.IsMap()) bad(source, "ops", "missing (a map of op entries)");
  static const std::set<std::string> fields = {"role", "operands", "results", "body", "hyper", "attrs", "attrs_of"};
  static const std::set<std::string> bodies = {"adamw", "sgd", "momentum"};
  std::map<std::string, std::vector<std::string>> attrs_of;
  for (const auto& e : ops) {
    const std::string short_name = e.first.as<std::string>();
    const std::string where = "ops." + short_name;
    const YAML::Node n = e.second;
    if (!n.IsMap()) bad(source, where, "expected a map");
    for (const auto& f : n)
      if (!fields.count(f.first.as<std::string>())) bad(source, where, "unknown field '" + f.first.as<std::string>() + "'");
    OpSpec s;
    s.name = t.dialect + "." + short_name;
    if (!n["role"]) bad(source, where, "missing role");
    s.role = role_of(n["role"].as<std::string>(), source, where);
    s.operands = strings(n["operands"], source, where + ".operands");
    s.results = strings(n["results"], source, where + ".results");
    s.hyper = strings(n["hyper"], source, where + ".hyper");
    if (n["body"]) {
      s.body = n["body"].as<std::string>();
      if (!bodies.count(s.body))
        bad(source, where + ".body", "'" + s.body + "' is not a reference update fusecert has (adamw, sgd, momentum)");
    }
    if (const YAML::Node a = n["attrs"]) {
      if (!a.IsMap()) bad(source, where + ".attrs", "expected a map key -> kind");
      for (const auto& kv : a) {
        const std::string key = kv.first.as<std::string>();
        s.attrs[key] = key_spec(kv.second, source, where + ".attrs." + key);
      }
    }
    attrs_of[s.name] = strings(n["attrs_of"], source, where + ".attrs_of");
    t.ops[s.name] = std::move(s);
  }
  for (auto& [name, from] : attrs_of)
    for (const auto& f : from) {
      const OpSpec* o = t.find(t.dialect + "." + f);
      if (!o) bad(source, "ops." + name.substr(t.dialect.size() + 1) + ".attrs_of", "no entry '" + f + "'");
      for (const auto& [k, v] : o->attrs) t.ops[name].attrs.emplace(k, v);
    }
  return t;
}

void DialectTables::add(DialectTable t) {
  for (const auto& have : tables_)
    if (have.dialect == t.dialect)
      throw std::invalid_argument(t.source + ": dialect '" + t.dialect + "' is already given by " + have.source);
  tables_.push_back(std::move(t));
}

const OpSpec* DialectTables::find(const std::string& op_name) const {
  for (const auto& t : tables_)
    if (const OpSpec* s = t.find(op_name)) return s;
  return nullptr;
}

const DialectTable* DialectTables::table_of(const std::string& op_name) const {
  for (const auto& t : tables_)
    if (op_name.size() > t.dialect.size() && op_name.compare(0, t.dialect.size(), t.dialect) == 0 &&
        op_name[t.dialect.size()] == '.')
      return &t;
  return nullptr;
}

const DialectTables& builtin_dialects() {
  static const DialectTables tables = [] {
    DialectTables ts;
    for (const auto& [name, text] : builtin_dialect_sources()) ts.add(parse_dialect_table(text, name));
    return ts;
  }();
  return tables;
}

}  // namespace fusecert::ir
