#include "verifier/ir/dialect_table.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <stdexcept>

#include "support/sha256.h"
#include "verifier/ir/builtin_dialects.h"
#include "verifier/ir/model.h"
#include "verifier/ir/recognize.h"

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
    case OpRole::Elementwise: return "elementwise";
    case OpRole::Broadcast: return "broadcast";
    case OpRole::Transpose: return "transpose";
    case OpRole::Reshape: return "reshape";
    case OpRole::Reduce: return "reduce";
    case OpRole::Constant: return "constant";
    case OpRole::Return: return "return";
    case OpRole::Slice: return "slice";
    case OpRole::DynamicSlice: return "dynamic_slice";
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
    case AttrKind::Ints: return "ints";
    case AttrKind::Elements: return "elements";
    case AttrKind::DotDims: return "dot_dimension_numbers";
    case AttrKind::Precisions: return "precision_config";
    case AttrKind::CmpDirection: return "comparison_direction";
    case AttrKind::CmpType: return "comparison_type";
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

const std::vector<std::string>& meanings() {
  static const std::vector<std::string> m = {
      "k_whole", "split_k", "transposeA", "transposeB", "numeric_policy", "accum", "storage", "state_dtype", "grad_clip_scope",
      "routing", "state_locality", "lr", "beta1", "beta2", "eps", "weight_decay", "step", "momentum", "grad_clip_scale",
      "reduction", "op", "axis", "ranks", "scatter_dim", "epilogue"};
  return m;
}

std::string DialectTable::key(const std::string& meaning) const {
  auto it = keys.find(meaning);
  return it == keys.end() ? meaning : it->second;
}

const OpSpec* DialectTable::first_of(OpRole r) const {
  for (const auto& [n, s] : ops)
    if (s.role == r) return &s;
  return nullptr;
}

namespace {

/// Where a node is: "source:line:col" (1-based, as a diagnostic), or the
/// source alone when yaml-cpp has no position for it.
std::string at(const std::string& source, const YAML::Node& n) {
  YAML::Mark mk = YAML::Mark::null_mark();
  try {
    mk = n.Mark();
  } catch (const YAML::Exception&) {
  }
  if (mk.is_null() || mk.line < 0) return source;
  return source + ":" + std::to_string(mk.line + 1) + ":" + std::to_string(mk.column + 1);
}

/// A table that does not load: "source:line:col: where: what".
[[noreturn]] void bad(const std::string& source, const YAML::Node& n, const std::string& where, const std::string& what) {
  throw std::invalid_argument(at(source, n) + ": " + where + ": " + what);
}

/// A map whose keys are scalars given once: yaml-cpp keeps a repeated key
/// (the second `adamw:` of `ops`), and a table that says two things about
/// one name does not say which it means.
void unique_keys(const YAML::Node& map, const std::string& source, const std::string& where) {
  std::map<std::string, YAML::Node> seen;
  for (const auto& e : map) {
    if (!e.first.IsScalar()) bad(source, e.first, where, "a key must be a name");
    const std::string k = e.first.as<std::string>();
    auto [it, fresh] = seen.emplace(k, e.first);
    if (!fresh)
      bad(source, e.first, where, "'" + k + "' is given twice (first at " + at(source, it->second) + ")");
  }
}

std::vector<std::string> strings(const YAML::Node& n, const std::string& source, const std::string& where) {
  std::vector<std::string> out;
  if (!n) return out;
  if (!n.IsSequence()) bad(source, n, where, "expected a list of names");
  for (const auto& e : n) {
    if (!e.IsScalar()) bad(source, e, where, "expected a list of names");
    out.push_back(e.as<std::string>());
  }
  return out;
}

AttrKind kind_of(const YAML::Node& n, const std::string& source, const std::string& where) {
  static const std::map<std::string, AttrKind> kinds = {
      {"unit", AttrKind::Unit},     {"bool", AttrKind::Bool},     {"int", AttrKind::Int},
      {"index", AttrKind::Index},   {"float", AttrKind::Float},   {"string", AttrKind::String},
      {"symbol", AttrKind::Symbol}, {"dtype", AttrKind::Dtype},     {"ints", AttrKind::Ints},
      {"elements", AttrKind::Elements}, {"dot_dimension_numbers", AttrKind::DotDims},
      {"precision_config", AttrKind::Precisions}, {"comparison_direction", AttrKind::CmpDirection},
      {"comparison_type", AttrKind::CmpType}};
  const std::string s = n.as<std::string>();
  auto it = kinds.find(s);
  if (it == kinds.end())
    bad(source, n, where, "unknown attribute kind '" + s +
                           "' (known: unit, bool, int, index, float, string, symbol, dtype, ints, elements, "
                           "dot_dimension_numbers, precision_config, comparison_direction, comparison_type, or a map "
                           "for a dictionary)");
  return it->second;
}

KeySpec key_spec(const YAML::Node& n, const std::string& source, const std::string& where) {
  KeySpec k;
  if (n.IsScalar()) {
    k.kinds.push_back(kind_of(n, source, where));
  } else if (n.IsSequence()) {
    for (const auto& e : n) {
      if (!e.IsScalar()) bad(source, e, where, "a list of kinds holds kind names only");
      k.kinds.push_back(kind_of(e, source, where));
    }
    if (k.kinds.empty()) bad(source, n, where, "an empty list of kinds");
  } else if (n.IsMap()) {
    unique_keys(n, source, where);
    k.kinds.push_back(AttrKind::Dict);
    for (const auto& e : n) {
      const std::string key = e.first.as<std::string>();
      k.entries[key] = key_spec(e.second, source, where + "." + key);
    }
  } else {
    bad(source, n, where, "expected a kind, a list of kinds or a map");
  }
  return k;
}

OpRole role_of(const YAML::Node& n, const std::string& source, const std::string& where) {
  static const std::map<std::string, OpRole> roles = {
      {"contraction", OpRole::Contraction}, {"optimizer", OpRole::Optimizer}, {"fused", OpRole::Fused},
      {"add", OpRole::Add},                 {"clip", OpRole::Clip},           {"decay", OpRole::Decay},
      {"collective", OpRole::Collective},   {"elementwise", OpRole::Elementwise}, {"broadcast", OpRole::Broadcast},
      {"transpose", OpRole::Transpose},     {"reshape", OpRole::Reshape},         {"reduce", OpRole::Reduce},
      {"constant", OpRole::Constant},       {"return", OpRole::Return},           {"slice", OpRole::Slice},
      {"dynamic_slice", OpRole::DynamicSlice}};
  const std::string s = n.as<std::string>();
  auto it = roles.find(s);
  if (it == roles.end())
    bad(source, n, where, "unknown role '" + s +
                           "' (known: contraction, optimizer, fused, add, clip, decay, collective, elementwise, "
                           "broadcast, transpose, reshape, reduce, constant, return, slice, dynamic_slice)");
  return it->second;
}

}  // namespace

const std::vector<std::string>& operand_roles(OpRole r) {
  // The roles fusecert reads, by op role: an optimizer's W, its gradient g
  // and its state (m, v, B: the reference updates' inputs); a fused op's X
  // and dY besides; a contraction's A (read transposed: K-major) and B; a
  // collective's x; the StableHLO-style ops' operand names, which say only
  // where an operand goes (verifier/ir/dependence.h reads them by position).
  static const std::vector<std::string> contraction = {"A", "B", "lhs", "rhs"};
  static const std::vector<std::string> optimizer = {"W", "g", "m", "v", "B"};
  static const std::vector<std::string> fused = {"X", "dY", "W", "m", "v", "B"};
  static const std::vector<std::string> add = {"a", "b"};
  static const std::vector<std::string> clip = {"g"};
  static const std::vector<std::string> decay = {"m", "v", "B"};
  static const std::vector<std::string> collective = {"x"};
  static const std::vector<std::string> structural = {"operand", "lhs", "rhs", "min", "max", "pred",
                                                      "on_true", "on_false", "input", "init", "start"};
  switch (r) {
    case OpRole::Contraction: return contraction;
    case OpRole::Optimizer: return optimizer;
    case OpRole::Fused: return fused;
    case OpRole::Add: return add;
    case OpRole::Clip: return clip;
    case OpRole::Decay: return decay;
    case OpRole::Collective: return collective;
    default: return structural;
  }
}

namespace {
DialectTable parse_table(const std::string& yaml_text, const std::string& source);
}  // namespace

DialectTable parse_dialect_table(const std::string& yaml_text, const std::string& source) {
  // A node of the wrong shape (a list where a name belongs) makes yaml-cpp
  // throw its own conversion errors: the same refusal, naming the table and
  // the position yaml-cpp gives.
  try {
    return parse_table(yaml_text, source);
  } catch (const YAML::Exception& e) {
    const std::string where =
        e.mark.is_null() ? source : source + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1);
    throw std::invalid_argument(where + ": YAML: " + e.msg);
  }
}

namespace {
std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

DialectTable parse_table(const std::string& yaml_text, const std::string& source) {
  const YAML::Node root = YAML::Load(yaml_text);
  if (!root.IsMap()) bad(source, root, "top level", "expected a map with dialect, dtypes and ops");
  unique_keys(root, source, "top level");
  for (const auto& e : root) {
    const std::string k = e.first.as<std::string>();
    if (k != "dialect" && k != "dtypes" && k != "keys" && k != "lowering" && k != "ops")
      bad(source, e.first, "top level", "unknown field '" + k + "'");
  }
  DialectTable t;
  t.source = source;
  if (!root["dialect"] || !root["dialect"].IsScalar()) bad(source, root, "dialect", "missing (the op-name prefix)");
  t.dialect = root["dialect"].as<std::string>();
  if (t.dialect.empty() || t.dialect.find_first_of(". \t") != std::string::npos)
    bad(source, root["dialect"], "dialect",
        "'" + t.dialect + "' is not an op-name prefix (a non-empty name without '.' or blanks)");
  if (const YAML::Node l = root["lowering"]) {
    if (!l.IsScalar() || l.as<std::string>().empty()) bad(source, l, "lowering", "expected the name of a pass");
    t.lowering = l.as<std::string>();
  }
  const auto& known = meanings();
  if (const YAML::Node k = root["keys"]) {
    if (!k.IsMap()) bad(source, k, "keys", "expected a map meaning -> key");
    unique_keys(k, source, "keys");
    for (const auto& e : k) {
      const std::string meaning = e.first.as<std::string>();
      if (std::find(known.begin(), known.end(), meaning) == known.end())
        bad(source, e.first, "keys." + meaning, "unknown meaning '" + meaning + "' (known: " + joined(known) + ")");
      if (!e.second.IsScalar() || e.second.as<std::string>().empty())
        bad(source, e.second, "keys." + meaning, "expected a key name");
      t.keys[meaning] = e.second.as<std::string>();
    }
    // Two meanings spelt alike: a meaning not listed is spelt as its own
    // name, so `{k_whole: split_k}` makes "split_k" mean both, and the
    // guards could not tell which the op says.
    std::map<std::string, std::string> spelling;  // key -> meaning
    for (const auto& meaning : known) {
      const std::string key = t.key(meaning);
      auto [it, fresh] = spelling.emplace(key, meaning);
      if (!fresh) {
        const std::string listed = t.keys.count(meaning) ? meaning : it->second;
        bad(source, k[listed], "keys." + listed,
            "'" + key + "' would spell both '" + it->second + "' and '" + meaning +
                "' (a meaning the table does not list is spelt as its own name); give each meaning its own key");
      }
    }
  }
  static const std::set<std::string> dtypes = {"f64", "f32", "bf16", "f16"};
  if (const YAML::Node d = root["dtypes"]) {
    if (!d.IsMap()) bad(source, d, "dtypes", "expected a map spelling -> dtype");
    unique_keys(d, source, "dtypes");
    for (const auto& e : d) {
      const std::string to = e.second.as<std::string>();
      if (!dtypes.count(to))
        bad(source, e.second, "dtypes." + e.first.as<std::string>(), "'" + to + "' is not f64, f32, bf16 or f16");
      t.dtypes[e.first.as<std::string>()] = to;
    }
  }
  const YAML::Node ops = root["ops"];
  if (!ops || !ops.IsMap()) bad(source, ops ? ops : root, "ops", "missing (a map of op entries)");
  unique_keys(ops, source, "ops");
  static const std::set<std::string> fields = {"role", "operands", "results", "body", "hyper", "attrs", "attrs_of",
                                               "collective", "computes"};
  std::map<std::string, std::vector<std::string>> attrs_of;
  std::map<std::string, YAML::Node> nodes;  // by full name, for the checks after attrs_of
  for (const auto& e : ops) {
    const std::string short_name = e.first.as<std::string>();
    const std::string where = "ops." + short_name;
    const YAML::Node n = e.second;
    if (!n.IsMap()) bad(source, e.first, where, "expected a map");
    unique_keys(n, source, where);
    for (const auto& f : n) {
      const std::string field = f.first.as<std::string>();
      // The fields `sums:` and `reduction:` said, apart, two things that
      // follow from what the op computes; one `computes:` says it once.
      if (field == "sums" || field == "reduction")
        bad(source, f.first, where,
            "the field '" + field + "' is no longer a table field: `computes:` replaced it\nnote: use `computes: " +
                "<fn>` (one of " + scalar_fn_spellings() + "): whether the op sums its operands and what it is as a " +
                "reduce body follow from it (docs/ir-checking.md, \"Dialect tables\")");
      if (!fields.count(field)) bad(source, f.first, where, "unknown field '" + field + "'");
    }
    OpSpec s;
    s.name = t.dialect + "." + short_name;
    if (!n["role"]) bad(source, e.first, where, "missing role");
    s.role = role_of(n["role"], source, where);
    s.operands = strings(n["operands"], source, where + ".operands");
    {
      // Each operand's role is one fusecert reads for an op of this role,
      // given once: a misspelt `grad` must not leave the gradient unnamed.
      const auto& allowed = operand_roles(s.role);
      std::set<std::string> given;
      size_t i = 0;
      for (const auto& o : n["operands"]) {
        const std::string& r = s.operands[i++];
        if (std::find(allowed.begin(), allowed.end(), r) == allowed.end())
          bad(source, o, where + ".operands",
              "unknown operand role '" + r + "' for a " + to_string(s.role) + " (known: " + joined(allowed) + ")");
        if (!given.insert(r).second) bad(source, o, where + ".operands", "operand role '" + r + "' is given twice");
      }
    }
    s.results = strings(n["results"], source, where + ".results");
    s.hyper = strings(n["hyper"], source, where + ".hyper");
    if (n["body"]) {
      s.body = n["body"].as<std::string>();
      const Reference* ref = find_reference(s.body);
      if (!ref) {
        std::string list;
        for (const auto& r : references()) list += (list.empty() ? "" : ", ") + r.kind;
        bad(source, n["body"], where + ".body", "'" + s.body + "' is not a reference update fusecert has (" + list + ")");
      }
      if (s.role != OpRole::Optimizer && s.role != OpRole::Fused)
        bad(source, n["body"], where + ".body", "only an optimizer or a fused op has a reference update as its body");
      // The body reads every input of its reference (W, g and the state);
      // a fused op computes g itself from X and dY.
      std::vector<std::string> need = ref->in;
      if (s.role == OpRole::Fused) {
        need.erase(std::remove(need.begin(), need.end(), "g"), need.end());
        need.insert(need.begin(), {"X", "dY"});
      }
      std::vector<std::string> lacking;
      for (const auto& r : need)
        if (s.operand(r) < 0) lacking.push_back(r);
      if (!lacking.empty())
        bad(source, n["operands"] ? n["operands"] : n["body"], where + ".operands",
            "body '" + s.body + "' reads the operands " + joined(need) + "; the entry gives no operand the role " +
                joined(lacking));
    }
    if (n["collective"]) {
      if (s.role != OpRole::Collective)
        bad(source, n["collective"], where + ".collective", "only a collective says what it computes");
      const std::string c = n["collective"].as<std::string>();
      s.collective = c == "all_reduce" ? CollectiveKind::AllReduce
                     : c == "reduce_scatter" ? CollectiveKind::ReduceScatter
                                             : CollectiveKind::None;
      if (s.collective == CollectiveKind::None)
        bad(source, n["collective"], where + ".collective", "'" + c + "' is not all_reduce or reduce_scatter");
    } else if (s.role == OpRole::Collective) {
      bad(source, e.first, where, "a collective needs `collective: all_reduce | reduce_scatter` (what it computes)");
    }
    if (const YAML::Node c = n["computes"]) {
      if (!c.IsScalar()) bad(source, c, where + ".computes", "expected a scalar function (" + scalar_fn_spellings() + ")");
      const std::string fn = c.as<std::string>();
      const std::optional<ScalarFn> f = scalar_fn_of(fn);
      if (!f) bad(source, c, where + ".computes", "'" + fn + "' is not a scalar function fusecert has (" + scalar_fn_spellings() + ")");
      if (s.role != OpRole::Elementwise)
        bad(source, c, where + ".computes", "only an elementwise op computes a scalar function of its operands");
      s.computes = *f;
    }
    if (const YAML::Node a = n["attrs"]) {
      if (!a.IsMap()) bad(source, a, where + ".attrs", "expected a map key -> kind");
      unique_keys(a, source, where + ".attrs");
      for (const auto& kv : a) {
        const std::string key = kv.first.as<std::string>();
        s.attrs[key] = key_spec(kv.second, source, where + ".attrs." + key);
      }
    }
    attrs_of[s.name] = strings(n["attrs_of"], source, where + ".attrs_of");
    nodes[s.name] = n;
    t.ops[s.name] = std::move(s);
  }
  for (auto& [name, from] : attrs_of)
    for (const auto& f : from) {
      const OpSpec* o = t.find(t.dialect + "." + f);
      if (!o) bad(source, nodes[name]["attrs_of"], "ops." + name.substr(t.dialect.size() + 1) + ".attrs_of", "no entry '" + f + "'");
      for (const auto& [k, v] : o->attrs) t.ops[name].attrs.emplace(k, v);
    }
  // A hyper-parameter names a key the op takes (its own or by attrs_of); one
  // that names nothing is a key no op can carry, read by no one.
  for (const auto& [name, s] : t.ops) {
    size_t i = 0;
    for (const auto& h : nodes[name]["hyper"]) {
      const std::string& key = s.hyper[i++];
      if (!s.attrs.count(key))
        bad(source, h, "ops." + name.substr(t.dialect.size() + 1) + ".hyper",
            "'" + key + "' is not a key of the entry's attrs (a hyper-parameter is an attribute the op takes)");
    }
  }
  return t;
}
}  // namespace

void DialectTables::add(DialectTable t) {
  for (const auto& have : tables_)
    if (have.dialect == t.dialect)
      throw std::invalid_argument(t.source + ": dialect '" + t.dialect + "' is already given by " + have.source);
  tables_.push_back(std::move(t));
}

std::vector<const DialectTable*> DialectTables::user_tables() const {
  std::vector<const DialectTable*> out;
  for (const auto& t : tables_)
    if (!t.sha256.empty()) out.push_back(&t);
  return out;
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

namespace {
DialectTables& in_force() {
  static DialectTables tables = builtin_dialects();
  return tables;
}
}  // namespace

const DialectTables& dialects() { return in_force(); }

void add_dialect_table(const std::string& yaml_text, const std::string& source) {
  DialectTable t = parse_dialect_table(yaml_text, source);
  t.sha256 = support::sha256_hex(yaml_text);
  in_force().add(std::move(t));
}

const OpSpec* spec_of(const Op& op) { return dialects().find(op.name); }

const DialectTable* table_of(const Op& op) { return dialects().table_of(op.name); }

std::string key_of(const Op& op, const std::string& meaning) {
  const auto& known = meanings();
  if (std::find(known.begin(), known.end(), meaning) == known.end())
    throw std::logic_error("key_of: '" + meaning + "' is not a meaning");
  const DialectTable* t = table_of(op);
  return t ? t->key(meaning) : meaning;
}

}  // namespace fusecert::ir
