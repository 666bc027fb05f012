#include "verifier/ir/attributes.h"

#include "verifier/ir/opaque_attrs.h"

#include <algorithm>
#include <cctype>

namespace fusecert::ir {

namespace {

/// Whether `a` is of kind `k`; for an opaque kind, `why` says what the
/// grammar could not read.
bool has_kind(const Attr& a, AttrKind k, std::string& why) {
  switch (k) {
    case AttrKind::Ints: return a.kind == Attr::Kind::Ints;
    case AttrKind::Elements: return a.kind == Attr::Kind::Elements;
    case AttrKind::DotDims: return parse_dot_dimensions(a, why).has_value();
    case AttrKind::Precisions:
      if (a.kind != Attr::Kind::Array) return false;
      for (const auto& [k2, e] : a.items)
        if (!parse_enum_attr(e, "precision", precision_values(), why)) return false;
      return true;
    case AttrKind::CmpDirection:
      return parse_enum_attr(a, "comparison_direction", comparison_direction_values(), why).has_value();
    case AttrKind::CmpType: return parse_enum_attr(a, "comparison_type", comparison_type_values(), why).has_value();
    case AttrKind::Unit: return a.kind == Attr::Kind::Unit;
    case AttrKind::Bool: return a.kind == Attr::Kind::Bool;
    case AttrKind::Int: return a.kind == Attr::Kind::Int && !a.index && a.fits;
    case AttrKind::Index: return a.kind == Attr::Kind::Int && a.index && a.fits;
    case AttrKind::Float: return a.kind == Attr::Kind::Float;
    case AttrKind::String:
    case AttrKind::Dtype: return a.kind == Attr::Kind::String;
    case AttrKind::Symbol: return a.kind == Attr::Kind::Symbol;
    case AttrKind::Dict: return a.kind == Attr::Kind::Dict;
  }
  return false;
}

std::string kind_of_value(const Attr& a) {
  switch (a.kind) {
    case Attr::Kind::String: return "a string";
    case Attr::Kind::Int:
      if (!a.fits) return "an integer wider than 64 bits (" + a.type + ")";
      return a.index ? "an index" : "an integer (" + a.type + ")";
    case Attr::Kind::Float: return "a float (" + a.type + ")";
    case Attr::Kind::Bool: return "a boolean";
    case Attr::Kind::Unit: return "a unit attribute";
    case Attr::Kind::Dict: return "a dictionary";
    case Attr::Kind::Array: return "an array";
    case Attr::Kind::Symbol: return "a symbol";
    case Attr::Kind::Ints: return "a dense integer array";
    case Attr::Kind::Elements: return "a dense elements attribute";
    case Attr::Kind::Opaque: return "an opaque #" + a.dialect + " attribute";
    case Attr::Kind::Other: return "an attribute of another kind";
  }
  return "?";
}

std::string kinds_text(const KeySpec& k) {
  std::string out;
  for (size_t i = 0; i < k.kinds.size(); ++i)
    out += (i == 0 ? "" : i + 1 == k.kinds.size() ? " or " : ", ") + to_string(k.kinds[i]);
  return out;
}

std::string shown(const Attr& a) { return a.kind == Attr::Kind::String ? "\"" + a.text + "\"" : a.text; }



void check(const Op& op, const std::string& path, const Attr& a, const KeySpec& spec, const DialectTable& table,
           std::vector<diag::Diagnostic>& out) {
  std::string why;
  if (std::none_of(spec.kinds.begin(), spec.kinds.end(), [&](AttrKind k) { return has_kind(a, k, why); })) {
    out.push_back(diag::error(op.loc, "input.attr.kind",
                   op.name + ": attribute '" + path + "' = " + shown(a) + " is " + kind_of_value(a) + "; the " +
                       table.dialect + " table (" + table.source + ") gives '" + path + "' the kind " +
                       kinds_text(spec) + (why.empty() ? "" : " (" + why + ")") + ", so fusecert cannot read it"));
    return;
  }
  if (a.kind != Attr::Kind::Dict) return;
  std::vector<std::string> known;
  for (const auto& [k, v] : spec.entries) known.push_back(k);
  for (const auto& [k, v] : a.items) {
    auto it = spec.entries.find(k);
    if (it == spec.entries.end()) {
      std::string near = nearest_key(k, known);
      std::string all;
      for (const auto& n : known) all += (all.empty() ? "" : ", ") + n;
      out.push_back(diag::error(op.loc, "input.attr.key",
                     op.name + ": '" + path + "." + k + "' is not a key the " + table.dialect + " table gives " +
                         path + (near.empty() ? "" : " (did you mean '" + near + "'?)") + "; known: " + all));
      continue;
    }
    check(op, path + "." + k, v, it->second, table, out);
  }
}

}  // namespace


std::vector<diag::Diagnostic> check_attributes(const Op& op, const OpSpec& spec, const DialectTable& table) {
  std::vector<diag::Diagnostic> out;
  std::vector<std::string> known;
  for (const auto& [k, v] : spec.attrs) known.push_back(k);
  for (const auto& [k, v] : op.attrs) {
    auto it = spec.attrs.find(k);
    if (it == spec.attrs.end()) {
      std::string near = nearest_key(k, known);
      out.push_back(diag::error(op.loc, "input.attr.key",
                     op.name + ": attribute '" + k + "' is not a key the " + table.dialect + " table (" + table.source +
                         ") gives " + op.name + (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                         "; an unknown key may change what the op computes, so it is not ignored"));
      continue;
    }
    check(op, k, v, it->second, table, out);
  }
  // A contraction without its dimension numbers: whether it is a weight
  // gradient cannot be read, so it is an error where the op is, never "not a
  // producer". (A key present but refused already has its kind error.)
  if (spec.role == OpRole::Contraction)
    for (const auto& [key, ks] : spec.attrs)
      if (std::find(ks.kinds.begin(), ks.kinds.end(), AttrKind::DotDims) != ks.kinds.end() &&
          std::none_of(op.attrs.begin(), op.attrs.end(), [&](const auto& a) { return a.first == key; }))
        out.push_back(diag::error(op.loc, "input.attr.kind",
                                  op.name + " lacks its '" + key + "' (the " + table.dialect +
                                      " table gives it the kind " + to_string(AttrKind::DotDims) +
                                      "), so fusecert cannot tell whether it produces a weight gradient"));
  return out;
}

void mark_refused(Module& m, const DialectTables& tables) {
  for (Op& op : m.ops) {
    const OpSpec* spec = tables.find(op.name);
    const DialectTable* table = spec ? tables.table_of(op.name) : nullptr;
    if (!spec || !table || spec->role == OpRole::Collective) continue;
    for (const auto& [k, v] : op.attrs) {
      auto it = spec->attrs.find(k);
      std::vector<diag::Diagnostic> problems;
      if (it != spec->attrs.end()) check(op, k, v, it->second, *table, problems);
      // An unknown key inside a dictionary is not read (the guards ask for
      // known entries); a value of another kind anywhere in it is.
      const bool bad_kind = std::any_of(problems.begin(), problems.end(),
                                        [](const diag::Diagnostic& d) { return d.rule == "input.attr.kind"; });
      if (it == spec->attrs.end() || bad_kind) op.refused.push_back(k);
    }
  }
}

void canonicalize_dtypes(Module& m, const DialectTables& tables) {
  for (Op& op : m.ops) {
    const OpSpec* spec = tables.find(op.name);
    const DialectTable* table = spec ? tables.table_of(op.name) : nullptr;
    if (!spec || !table) continue;
    auto fix = [&](auto& self, Attr& a, const KeySpec& k) -> void {
      if (a.kind == Attr::Kind::String && std::find(k.kinds.begin(), k.kinds.end(), AttrKind::Dtype) != k.kinds.end()) {
        if (auto d = table->dtype(a.text)) a.text = *d;
      } else if (a.kind == Attr::Kind::Dict) {
        for (auto& [key, v] : a.items)
          if (auto it = k.entries.find(key); it != k.entries.end()) self(self, v, it->second);
      }
    };
    for (auto& [key, v] : op.attrs)
      if (auto it = spec->attrs.find(key); it != spec->attrs.end()) fix(fix, v, it->second);
  }
}

}  // namespace fusecert::ir
