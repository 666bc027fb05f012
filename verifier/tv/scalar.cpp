#include "verifier/tv/scalar.h"

#include <cmath>
#include <cstring>
#include <sstream>
#include <utility>
#include <stdexcept>

#include "verifier/witness/numeric.h"

namespace fusecert::tv {

bool parse_fmt(const std::string& s, Fmt& out) {
  if (s == "f32") out = Fmt::F32;
  else if (s == "bf16") out = Fmt::BF16;
  else return false;
  return true;
}

std::string to_string(Fmt f) { return f == Fmt::F32 ? "f32" : "bf16"; }

double round_to(double x, Fmt f) {
  float r = static_cast<float>(x);  // RNE to binary32 (double → float)
  if (f == Fmt::BF16) {
    // Double rounding through binary32 is innocuous for one rounded value
    // only when x is already a binary32 value or a correctly rounded op
    // result (witness/numeric.h); constants are rounded from their exact
    // double directly instead.
    if (static_cast<double>(r) != x && !std::isnan(x)) {
      // Round the double to 8 significant bits directly (RNE).
      int e;
      double m = std::frexp(x, &e);                  // x = m·2^e, |m| in [0.5, 1)
      double scaled = std::ldexp(m, 8);              // 8 significant bits
      double q = std::nearbyint(scaled);             // RNE (default mode)
      return static_cast<double>(static_cast<float>(std::ldexp(q, e - 8)));
    }
    return static_cast<double>(witness::round_bf16(r));
  }
  return static_cast<double>(r);
}

int Program::intern(const Node& n) {
  std::ostringstream key;
  key << static_cast<int>(n.kind) << '|' << static_cast<int>(n.fmt) << '|' << n.name << '|';
  uint64_t bits;
  std::memcpy(&bits, &n.value, 8);
  key << bits << '|' << n.a << '|' << n.b;
  auto [it, fresh] = index_.emplace(key.str(), static_cast<int>(nodes_.size()));
  if (fresh) nodes_.push_back(n);
  return it->second;
}

int Program::var(const std::string& name, Fmt f) {
  Node n;
  n.kind = Node::Kind::Var;
  n.fmt = f;
  n.name = name;
  return intern(n);
}

int Program::constant(double x, Fmt f) {
  Node n;
  n.kind = Node::Kind::Const;
  n.fmt = f;
  n.value = round_to(x, f);
  return intern(n);
}

int Program::op(Node::Kind k, int a, int b) {
  const Node& na = at(a);
  if (b >= 0 && at(b).fmt != na.fmt) throw std::logic_error("tv: operands of different formats");
  // IEEE addition and multiplication are commutative, bit for bit (signed
  // zeros and infinities included; a NaN either way, and NaNs compare
  // equal): one node for both operand orders, so a rewrite that only
  // commutes them (--canonicalize puts a constant on the right) gives the
  // same term on both sides.
  if ((k == Node::Kind::Add || k == Node::Kind::Mul) && b >= 0 && b < a) std::swap(a, b);
  Node n;
  n.kind = k;
  n.fmt = na.fmt;
  n.a = a;
  n.b = b;
  return intern(n);
}

int Program::convert(int a, Fmt f) {
  if (at(a).fmt == f) return a;
  Node n;
  n.kind = Node::Kind::Convert;
  n.fmt = f;
  n.a = a;
  return intern(n);
}

std::vector<int> Program::vars() const {
  std::vector<int> v;
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].kind == Node::Kind::Var) v.push_back(static_cast<int>(i));
  return v;
}

Builder::T Builder::c(const std::string& name) const {
  auto it = k_.find(name);
  if (it == k_.end()) throw std::invalid_argument("tv: unknown constant '" + name + "'");
  return p_.constant(it->second, f_);
}

}  // namespace fusecert::tv
