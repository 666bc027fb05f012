// Translates one side of a validation (a func.func of the before or after
// module) into per-element scalar programs: the value of output element
// (i, j) of every function result as a DAG over that element's operands.
//
// The element index is symbolic: for result element (i, j), an element-wise
// operand A contributes one variable "argN_ij" (A[i, j]) and a contraction
// operand contributes K variables, "argN_ki_kK" for A[k, i] (transposed) or
// "argN_ik_kK" for A[i, k], "argN_kj_kK" for B[k, j]. Both sides name the
// same operand entry identically, so equal names are equal values.
//
// Op families, chosen by what an op is, never by its name: table_ops.cpp
// (an op a dialect table lists, by its entry's role and body: a contraction,
// an optimizer or fused op whose body is adamw; declared reference
// semantics), linalg_ops.cpp (by the typed kind the front end read:
// linalg.matmul[_transpose_a], linalg.fill, linalg.generic bodies and scalar
// func.func epilogues in arith/math).
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "verifier/ir/dialect_table.h"
#include "verifier/ir/model.h"
#include "verifier/tv/scalar.h"

namespace fusecert::tv {

/// The rule of an input the translators cannot model (fail closed):
/// `file:line:col: error: message [TV.unsupported]`.
inline constexpr const char* kUnsupported = "TV.unsupported";

struct SideOptions {
  int k_bound = 4;  ///< K is unrolled to min(K of the module, k_bound)
};

/// One translated side.
struct Side {
  const ir::Module* module = nullptr;
  int func = -1;
  std::vector<int> outputs;                 ///< node per function result
  std::vector<Fmt> output_fmts;
  std::vector<std::string> output_names;    ///< "result 0 (tessera.adamw #0)"
  std::set<std::string> abstractions;       ///< every approximation made, in words
  std::vector<int> contraction_ops;         ///< ops that carry the K reduction
  std::vector<std::string> summary;         ///< "tessera.matmul (file:l:c)" per op translated
  int k_module = -1;                        ///< K read from the contraction's operand shape
  int k_used = -1;                          ///< K unrolled
};

/// The translator state for one function.
class SideTranslator {
 public:
  SideTranslator(const ir::Module& m, int func, Program& p, SideOptions o) : m_(m), func_(func), p_(p), opt_(o) {
    side_.module = &m;
    side_.func = func;
  }
  /// Translates every result of the function. Throws diag::Fatal (rule TV.unsupported).
  Side run();

  // --- shared helpers for the op-family files ---
  const ir::Module& module() const { return m_; }
  Program& program() { return p_; }
  Side& side() { return side_; }
  /// The element (i, j) value of tensor value `v`.
  int element(int v);
  /// Element format of a tensor/scalar value's type; throws for others.
  Fmt fmt_of(const ir::Type& t, const ir::Loc& loc) const;
  /// K operand entries of a contraction operand (a function argument).
  std::vector<int> k_operand(int v, bool k_major, char other_index, const ir::Op& at, int k);
  /// K to unroll for a contraction whose K extent is `k_module` (-1 unknown).
  int k_for(int k_module, const ir::Op& at);
  [[noreturn]] void fail(const ir::Loc& loc, const std::string& msg) const {
    throw diag::Fatal{diag::error(loc, kUnsupported, msg)};
  }
  /// A required attribute of `op`.
  const ir::Attr& require(const ir::Op& op, const std::string& key, const std::string& meaning) const;
  /// A required numeric attribute.
  double number(const ir::Op& op, const std::string& key, const std::string& meaning) const;

  // --- op families ---
  std::vector<int> table_contraction(const ir::Op& op, const ir::OpSpec& spec);  // table_ops.cpp
  std::vector<int> table_optimizer(const ir::Op& op, const ir::OpSpec& spec);    // table_ops.cpp
  std::vector<int> table_fused(const ir::Op& op, const ir::OpSpec& spec);        // table_ops.cpp
  std::vector<int> linalg_matmul(const ir::Op& op);                  // linalg_ops.cpp
  std::vector<int> linalg_fill(const ir::Op& op);                    // linalg_ops.cpp
  std::vector<int> linalg_generic(const ir::Op& op);                 // linalg_ops.cpp
  /// A scalar func.func (arith/math) applied to `args`; its results.
  std::vector<int> scalar_call(const std::string& callee, const std::vector<int>& args, const ir::Op& at, Fmt* arg_fmts);
  /// A linalg.generic body DAG applied to block argument nodes.
  std::vector<int> body(const ir::Body& b, const std::vector<int>& args, const ir::Op& at);

  /// The contraction g = Σ_k A·B of a matmul-like op with operands a, b in
  /// `accum`, K order sequential from +0 (or split into `splits` chunks),
  /// then rounded to `storage`.
  int contraction(const ir::Op& op, int a, int b, bool transpose_a, Fmt accum, int init, int splits);
  /// The declared AdamW reference (verifier/model/optimizer.h) in `state`,
  /// from the hyper-parameter attributes of `op` (read by meaning through
  /// its table, ir::key_of); returns {W1, m1, v1}.
  std::vector<int> adamw_reference(const ir::Op& op, int W, int g, int m, int v);

 private:
  std::vector<int> results_of(const ir::Op& op);
  const ir::Module& m_;
  int func_;
  Program& p_;
  SideOptions opt_;
  Side side_;
  std::map<int, std::vector<int>> op_results_;
  std::set<int> in_progress_;
};

}  // namespace fusecert::tv
