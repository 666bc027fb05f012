// The per-element scalar program of one side of a translation-validation
// query: a DAG of IEEE operations, each in a named format (binary32 or bf16),
// over the element's operands (free variables). Both sides of a query are
// built into one Program so that the same operand is the same variable.
// The front-end translators (table_ops.cpp, linalg_ops.cpp) build it; the
// Z3 encoder (encode_fp.cpp) and the C++ evaluator (eval.cpp) read it.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fusecert::tv {

/// Element formats fusecert validates: IEEE binary32 and bf16 (RNE).
enum class Fmt { F32, BF16 };
/// "f32" / "bf16" → Fmt; false for anything else (f16, f64, integers).
bool parse_fmt(const std::string& s, Fmt& out);
std::string to_string(Fmt f);
/// (ebits, sbits) as SMT-LIB counts them: binary32 (8, 24), bf16 (8, 8).
inline unsigned ebits(Fmt) { return 8; }
inline unsigned sbits(Fmt f) { return f == Fmt::F32 ? 24 : 8; }

/// One node: an operand (Var), a constant, or an operation rounded (RNE) to
/// `fmt`. Convert rounds its operand to `fmt` (exact when widening).
struct Node {
  enum class Kind { Var, Const, Add, Sub, Mul, Div, Sqrt, Neg, Convert } kind = Kind::Const;
  Fmt fmt = Fmt::F32;
  std::string name;   ///< Var: the operand's name, e.g. "arg0[k=2,i]"
  double value = 0;   ///< Const: the exact value (already representable in fmt)
  int a = -1, b = -1; ///< operand node indices
};

/// A shared DAG of nodes. Identical nodes are hash-consed.
class Program {
 public:
  int var(const std::string& name, Fmt f);
  /// `x` rounded (RNE) once to `f`.
  int constant(double x, Fmt f);
  int op(Node::Kind k, int a, int b = -1);
  /// `a` rounded to `f`; returns `a` when it is already in `f`.
  int convert(int a, Fmt f);
  const Node& at(int i) const { return nodes_.at(static_cast<size_t>(i)); }
  const std::vector<Node>& nodes() const { return nodes_; }
  /// Variables in creation order (index, name).
  std::vector<int> vars() const;

 private:
  int intern(const Node& n);
  std::vector<Node> nodes_;
  std::map<std::string, int> index_;
};

/// Rounds a double to `f` (RNE), exactly as the encoder's numerals are.
double round_to(double x, Fmt f);

/// The arithmetic interface verifier/model/optimizer.h templates expect,
/// building nodes of one format with named constants rounded to it once.
class Builder {
 public:
  using T = int;
  Builder(Program& p, Fmt f, std::map<std::string, double> constants) : p_(p), f_(f), k_(std::move(constants)) {}
  T c(const std::string& name) const;
  T num(double x) const { return p_.constant(x, f_); }
  T add(T a, T b) const { return p_.op(Node::Kind::Add, a, b); }
  T sub(T a, T b) const { return p_.op(Node::Kind::Sub, a, b); }
  T mul(T a, T b) const { return p_.op(Node::Kind::Mul, a, b); }
  T div(T a, T b) const { return p_.op(Node::Kind::Div, a, b); }
  T sqrt(T a) const { return p_.op(Node::Kind::Sqrt, a); }
  Fmt fmt() const { return f_; }

 private:
  Program& p_;
  Fmt f_;
  std::map<std::string, double> k_;
};

}  // namespace fusecert::tv
