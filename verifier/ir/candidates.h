// Finding weight-gradient producer → consumer candidates in the model, in the
// forms ../shared/spec/ir-and-certificates.md names:
//  - linalg on tensors: linalg.matmul_transpose_a (and its grouped form
//    linalg.batch_matmul_transpose_a), linalg.matmul fed by
//    linalg.transpose, a contraction-shaped linalg.generic whose first input
//    is K-major (dW = Xᵀ·dY, tokens = K); a split-K contraction followed by
//    the reduction of its partial sums counts as one producer;
//  - bufferized linalg (memref operands): the gradient is the init buffer;
//  - tessera.* generic-form ops: "tessera.matmul" with transposeA = true;
//  - fused results: "tessera.training.wgrad_<optimizer>";
//  - a contraction with dimension numbers (stablehlo.dot_general) that
//    contracts the leading (token) axis of both operands, dW = Xᵀ·dY, whose
//    consumer is the element-wise DAG to the step's results (Form::Dag).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "verifier/ir/model.h"

namespace fusecert::ir {

/// Table: a producer and an optimizer op of a dialect table (Tessera's, or
/// a --dialect table's; the certificate records which, candidate.dialect).
/// Dag: a contraction whose consumer is the element-wise DAG of table ops
/// from the gradient to the function's results (StableHLO: dot_general and
/// the ops optax's update lowers to; verifier/ir/dependence.h).
enum class Form { Linalg, Table, Bufferized, Fused, Dag };
std::string to_string(Form f);
/// The form a certificate's `candidate.form` names (to_string's inverse), or nullopt.
std::optional<Form> form_from_string(const std::string& s);

struct Candidate {
  Form form = Form::Linalg;
  int func = -1;
  int producer = -1;        ///< the wgrad producer (the fused op itself for Form::Fused)
  int result_no = 0;        ///< producer result number (init operand number when bufferized)
  int grad = -1;            ///< the gradient value: a tensor result, or the init buffer
  int split_reduce = -1;    ///< linalg split-K: the op that sums the partial products
  /// linalg split-K over a loop: the scf.for whose iterations each add the
  /// producer's contraction (over a slice of K) into the running sum; the
  /// gradient is the loop's result.
  int k_loop = -1;
  std::vector<std::pair<int, int>> uses;  ///< uses of the gradient (op, operand number)
  int consumer = -1;        ///< the single use when it may be an optimizer, else -1
  int consumer_operand = -1;
  int downstream = -1;      ///< when the use is not an optimizer: the optimizer it feeds, if any
};

/// Tessera optimizer ops and their state operands (after W, g).
bool is_tessera_optimizer(const std::string& name);
/// Names of tessera ops fusecert knows the semantics of.
bool is_known_tessera(const std::string& name);

/// An op fusecert cannot see into that may be a fused weight-gradient step:
/// of a dialect a table lists (tessera, a --dialect table), with no entry in
/// it, whose types show dW = Xᵀ·dY fused with W's update — two operands of
/// static rank-2 types [K, M] and [K, N] (X, dY), a third of type [M, N]
/// (W), and a result of W's type (the updated W). Decided from the table
/// and the types, never from the op's name: a renamed
/// tessera.training.wgrad_lion is found the same way. Such an op is an
/// inconclusive candidate, never "no candidate".
bool is_unlisted_fused(const Module& m, const Op& op);

/// The generic collectives "tessera.all_reduce" and "tessera.reduce_scatter"
/// (one operand, one result). Semantics: the element-wise `reduction` (only
/// "sum" is modelled) of the operand over the `ranks` ranks of the group;
/// reduce_scatter keeps this rank's shard of the sum (`scatter_dim`, optional:
/// which dimension is sharded does not change any element's value).
bool is_tessera_collective(const std::string& name);
/// One problem with a collective's semantic keys: a missing required key
/// (`reduction`, `ranks`), a value fusecert does not model (a reduction other
/// than "sum", ranks < 1), a key fusecert has no semantics for, or types
/// that contradict them (a dynamic shape, scatter_dim outside the operand's
/// rank, a result shape other than the operand's (all_reduce) or the
/// operand's with dimension scatter_dim divided by ranks (reduce_scatter)).
struct KeyProblem {
  std::string key;
  std::string message;
  bool missing = false;  ///< the key is absent (else present but not modelled)
};
std::vector<KeyProblem> collective_key_problems(const Module& m, const Op& op);

/// Every candidate in program order: a weight-gradient producer whose
/// gradient reaches an optimizer (its one use, or downstream through an add,
/// a clip or a collective). Producers whose gradient reaches none are not
/// candidates; they go to `no_optimizer` when given (for a remark).
std::vector<Candidate> find_candidates(const Module& m, std::vector<Candidate>* no_optimizer = nullptr);

/// The ids of the ops fusecert cannot model (unregistered ops outside the
/// known tessera set, and calls whose callee has no body in the module:
/// Op::opaque_call), in program order.
std::vector<int> unknown_op_ids(const Module& m);

/// unknown_op_ids as error diagnostics, one per op in the same order: an
/// unknown op may read or write any buffer.
std::vector<diag::Diagnostic> unknown_ops(const Module& m);

/// The ops on some candidate's slice (indexed by op id): every op the
/// gradient reaches (across func.call into callees and back through their
/// returns), every op that computes, directly or not, an operand of the
/// producer or of the consumer (X, dY, W, the state), every direct reader of
/// the consumer's operands, and, with a bufferized candidate, every op on
/// buffers (it may write an alias of any of them).
std::vector<bool> candidate_slice(const Module& m, const std::vector<Candidate>& cands);

/// unknown_ops (in unknown_op_ids' order), each an error where it may be on
/// a candidate's slice and a remark elsewhere. With candidates, an unknown op is an error on
/// candidate_slice and a remark off it. Without one, an unknown op is an error only when a
/// weight gradient reaches it (it may be that gradient's optimizer) or it
/// computes, directly or not, the gradient operand of an optimizer a table
/// knows (it may be a weight-gradient producer fusecert cannot see); any
/// other unknown op is a remark.
/// Each diagnostic carries the id of the op it is about.
struct UnknownOpDiag {
  int op = -1;
  diag::Diagnostic diag;
};
std::vector<UnknownOpDiag> unknown_op_diags(const Module& m, const std::vector<Candidate>& cands,
                                            const std::vector<Candidate>& no_optimizer);

/// The unknown ops (unknown_op_ids) that `grad` reaches, directly or not,
/// across calls and returns, in program order: for a weight gradient that
/// reaches no optimizer a table knows, the ops that may be its optimizer.
std::vector<int> unknown_ops_reached(const Module& m, int grad);

/// Collectives whose keys fusecert cannot model, as error diagnostics (fail
/// closed, like an unknown op), skipping the op ids in `reported` (the
/// collectives the P3 guard already reported with its own diagnostics).
std::vector<diag::Diagnostic> collective_key_diags(const Module& m, const std::vector<int>& reported);

/// `uses` with every use by a call (CallOpInterface) to a function of the
/// module replaced by the uses of the callee's argument, and every use by a
/// function's return replaced by the uses of each call's result, followed
/// transitively: the slice of a value across func.call (optax emits private
/// helpers). A use by an external callee stays a use of the call. A return
/// from a public function, or from one no op of the module calls, stays a
/// use too: the value leaves the module (a private helper's return is
/// followed to its callers only).
std::vector<std::pair<int, int>> through_calls(const Module& m, const std::vector<std::pair<int, int>>& uses);

/// Whether what function `func` returns leaves the module: it is public (the
/// entry), or no op of the module calls it.
bool leaves_module(const Module& m, int func);

/// The DPS init operands of a linalg op (value ids).
std::vector<int> inits(const Op& op);
/// The DPS input operands.
std::vector<int> inputs(const Op& op);

}  // namespace fusecert::ir
