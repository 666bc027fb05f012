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

std::string shown(const Attr& a) { return a.kind == Attr::Kind::Opaque ? "#" + a.dialect + "<" + a.data + ">" : a.text; }

bool opaque_of(const Attr& a, std::string& why) {
  if (a.kind != Attr::Kind::Opaque || a.dialect != "stablehlo") {
    why = shown(a) + " is not a #stablehlo attribute";
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
    why = "expected #stablehlo<" + keyword + " VALUE>, found " + shown(a);
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
  if (d.lhs_batching.size() != d.rhs_batching.size()) return "lhs and rhs name different numbers of batching dimensions";
  if (d.lhs_contracting.size() != d.rhs_contracting.size())
    return "lhs and rhs name different numbers of contracting dimensions";
  auto check_side = [](const std::vector<int64_t>& a, const std::vector<int64_t>& b, size_t rank) {
    std::set<int64_t> all;
    for (auto x : a) if (x < 0 || static_cast<size_t>(x) >= rank || !all.insert(x).second) return false;
    for (auto x : b) if (x < 0 || static_cast<size_t>(x) >= rank || !all.insert(x).second) return false;
    return true;
  };
  if (!check_side(d.lhs_batching, d.lhs_contracting, lhs.shape.size()))
    return "an lhs dimension is out of range or named twice";
  if (!check_side(d.rhs_batching, d.rhs_contracting, rhs.shape.size()))
    return "an rhs dimension is out of range or named twice";
  for (size_t k = 0; k < d.lhs_batching.size(); ++k)
    if (lhs.shape[d.lhs_batching[k]] != rhs.shape[d.rhs_batching[k]]) return "batching extents differ";
  for (size_t k = 0; k < d.lhs_contracting.size(); ++k)
    if (lhs.shape[d.lhs_contracting[k]] != rhs.shape[d.rhs_contracting[k]]) return "contracting extents differ";
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
  if (want != result.shape) return "the result type " + result.text + " is not batch × lhs free × rhs free";
  return "";
}

}  // namespace fusecert::ir
