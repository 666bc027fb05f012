#include "verifier/ir/opaque_attrs.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace fusecert::ir {

namespace {

/// A cursor over the attribute's data; every read either matches or fails.
struct Cursor {
  const std::string& s;
  size_t i = 0;
  void blanks() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  }
  bool eat(char c) {
    blanks();
    if (i < s.size() && s[i] == c) { ++i; return true; }
    return false;
  }
  std::string word() {
    blanks();
    size_t b = i;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
    return s.substr(b, i - b);
  }
  bool at_end() {
    blanks();
    return i == s.size();
  }
  std::string rest() const { return i < s.size() ? "'" + s.substr(i, 20) + "'" : "the end"; }
};

std::string shown_opaque(const Attr& a) { return a.kind == Attr::Kind::Opaque ? "#" + a.dialect + "<" + a.data + ">" : a.text; }

bool opaque_of(const Attr& a, std::string& why) {
  if (a.kind != Attr::Kind::Opaque || a.dialect != "stablehlo") {
    why = shown_opaque(a) + " is not a #stablehlo attribute";
    return false;
  }
  return true;
}

}  // namespace

std::optional<DotDimensions> parse_dot_dimensions(const Attr& a, std::string& why) {
  if (!opaque_of(a, why)) return std::nullopt;
  Cursor c{a.data};
  const std::string head = c.word();
  if (head != "dot" || !c.eat('<')) {
    why = "expected dot<...>, found '" + a.data.substr(0, 20) + "'";
    return std::nullopt;
  }
  DotDimensions d;
  std::set<std::string> seen;
  if (c.eat('>')) {
    if (!c.at_end()) { why = "text after dot<>: " + c.rest(); return std::nullopt; }
    return d;
  }
  while (true) {
    const std::string field = c.word();
    std::vector<int64_t>* into = field == "lhs_batching_dimensions"      ? &d.lhs_batching
                                 : field == "rhs_batching_dimensions"    ? &d.rhs_batching
                                 : field == "lhs_contracting_dimensions" ? &d.lhs_contracting
                                 : field == "rhs_contracting_dimensions" ? &d.rhs_contracting
                                                                         : nullptr;
    if (!into) {
      why = "unknown field '" + field +
            "' (known: lhs_batching_dimensions, rhs_batching_dimensions, lhs_contracting_dimensions, "
            "rhs_contracting_dimensions)";
      return std::nullopt;
    }
    if (!seen.insert(field).second) { why = "field '" + field + "' given twice"; return std::nullopt; }
    if (!c.eat('=') || !c.eat('[')) { why = "expected '= [' after " + field + ", found " + c.rest(); return std::nullopt; }
    if (!c.eat(']')) {
      while (true) {
        c.blanks();
        size_t b = c.i;
        while (c.i < c.s.size() && std::isdigit(static_cast<unsigned char>(c.s[c.i]))) ++c.i;
        if (c.i == b || c.i - b > 9) {
          why = "expected a dimension (a decimal integer >= 0) in " + field + ", found " + Cursor{c.s, b}.rest();
          return std::nullopt;
        }
        into->push_back(std::stoll(c.s.substr(b, c.i - b)));
        if (c.eat(']')) break;
        if (!c.eat(',')) { why = "expected ',' or ']' in " + field + ", found " + c.rest(); return std::nullopt; }
      }
    }
    if (c.eat('>')) break;
    if (!c.eat(',')) { why = "expected ',' or '>' after " + field + ", found " + c.rest(); return std::nullopt; }
  }
  if (!c.at_end()) { why = "text after dot<...>: " + c.rest(); return std::nullopt; }
  return d;
}

std::optional<std::string> parse_enum_attr(const Attr& a, const std::string& keyword,
                                           const std::vector<std::string>& allowed, std::string& why) {
  if (!opaque_of(a, why)) return std::nullopt;
  Cursor c{a.data};
  const std::string k = c.word();
  const std::string v = c.word();
  if (k != keyword || v.empty() || !c.at_end()) {
    why = "expected #stablehlo<" + keyword + " VALUE>, found " + shown_opaque(a);
    return std::nullopt;
  }
  if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
    std::string all;
    for (const auto& x : allowed) all += (all.empty() ? "" : ", ") + x;
    why = "'" + v + "' is not a " + keyword + " fusecert knows (" + all + ")";
    return std::nullopt;
  }
  return v;
}

const std::vector<std::string>& precision_values() {
  static const std::vector<std::string> v = {"DEFAULT", "HIGH", "HIGHEST"};
  return v;
}
const std::vector<std::string>& comparison_direction_values() {
  static const std::vector<std::string> v = {"EQ", "NE", "GE", "GT", "LE", "LT"};
  return v;
}
const std::vector<std::string>& comparison_type_values() {
  static const std::vector<std::string> v = {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"};
  return v;
}

std::string dot_dimensions_problem(const DotDimensions& d, const Type& lhs, const Type& rhs, const Type& result) {
  auto ranked = [](const Type& t) {
    return t.kind == Type::Kind::Tensor && std::all_of(t.shape.begin(), t.shape.end(), [](int64_t x) { return x >= 0; });
  };
  if (!ranked(lhs) || !ranked(rhs) || !ranked(result))
    return "the operands and result are not ranked tensors of static shape";
  auto count = [](const std::vector<int64_t>& v) { return std::to_string(v.size()); };
  if (d.lhs_batching.size() != d.rhs_batching.size())
    return "lhs_batching_dimensions names " + count(d.lhs_batching) + " dimension(s) and rhs_batching_dimensions " +
           count(d.rhs_batching) + "; they must pair up";
  if (d.lhs_contracting.size() != d.rhs_contracting.size())
    return "lhs_contracting_dimensions names " + count(d.lhs_contracting) +
           " dimension(s) and rhs_contracting_dimensions " + count(d.rhs_contracting) + "; they must pair up";
  // Each side's batching and contracting dimensions: in range of its
  // operand's rank, and each named once over both lists.
  auto check_side = [](const char* side, const std::vector<int64_t>& batch, const std::vector<int64_t>& contr,
                       const Type& t) -> std::string {
    std::set<int64_t> all;
    for (int pass = 0; pass < 2; ++pass)
      for (auto x : pass == 0 ? batch : contr) {
        const std::string field = std::string(side) + (pass == 0 ? "_batching_dimensions" : "_contracting_dimensions");
        if (x < 0 || static_cast<size_t>(x) >= t.shape.size())
          return field + " names dimension " + std::to_string(x) + ", outside the " + side + " operand " + t.text +
                 " (rank " + std::to_string(t.shape.size()) + ")";
        if (!all.insert(x).second)
          return field + " names dimension " + std::to_string(x) + " of the " + side +
                 " operand a second time (a dimension is batched or contracted once)";
      }
    return "";
  };
  if (auto p = check_side("lhs", d.lhs_batching, d.lhs_contracting, lhs); !p.empty()) return p;
  if (auto p = check_side("rhs", d.rhs_batching, d.rhs_contracting, rhs); !p.empty()) return p;
  auto extents = [&](const char* what, const std::vector<int64_t>& l, const std::vector<int64_t>& r) -> std::string {
    for (size_t k = 0; k < l.size(); ++k)
      if (lhs.shape[l[k]] != rhs.shape[r[k]])
        return std::string(what) + " pair " + std::to_string(k) + " (lhs dimension " + std::to_string(l[k]) + " of " +
               lhs.text + ", rhs dimension " + std::to_string(r[k]) + " of " + rhs.text + ") has extents " +
               std::to_string(lhs.shape[l[k]]) + " and " + std::to_string(rhs.shape[r[k]]) + "; they must agree";
    return "";
  };
  if (auto p = extents("batching", d.lhs_batching, d.rhs_batching); !p.empty()) return p;
  if (auto p = extents("contracting", d.lhs_contracting, d.rhs_contracting); !p.empty()) return p;
  std::vector<int64_t> want;
  for (auto b : d.lhs_batching) want.push_back(lhs.shape[b]);
  auto free = [&](const Type& t, const std::vector<int64_t>& b, const std::vector<int64_t>& c) {
    for (size_t i = 0; i < t.shape.size(); ++i)
      if (std::find(b.begin(), b.end(), static_cast<int64_t>(i)) == b.end() &&
          std::find(c.begin(), c.end(), static_cast<int64_t>(i)) == c.end())
        want.push_back(t.shape[i]);
  };
  free(lhs, d.lhs_batching, d.lhs_contracting);
  free(rhs, d.rhs_batching, d.rhs_contracting);
  if (want != result.shape) {
    std::string w;
    for (auto x : want) w += (w.empty() ? "" : "x") + std::to_string(x);
    return "the result type " + result.text + " is not batch x lhs free x rhs free (" + (w.empty() ? "a scalar" : w) +
           ")";
  }
  return "";
}

}  // namespace fusecert::ir
