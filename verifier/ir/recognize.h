// Recognising a linalg.generic consumer as AdamW / SGD / momentum by proof:
// its scalar body, evaluated over the reals with its own constants, is shown
// equal (Z3, QF_NRA, `unsat` of the disequality) to the reference update of
// verifier/model/optimizer.h instantiated with the hyper-parameters the op
// declares (lr, beta1, beta2, eps, weight_decay, step, momentum). A declared
// `optimizer` attribute is only a hint: the body decides.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "verifier/ir/model.h"
#include "verifier/model/hyper.h"
#include "verifier/smt/arith.h"
#include "verifier/smt/query.h"

namespace fusecert::ir {

/// A reference update of verifier/model/optimizer.h: the element-wise body a
/// dialect table's `body:` names and a linalg.generic is proven equal to.
struct Reference {
  std::string kind;                 ///< the name a table's `body:` gives it
  std::vector<std::string> in;      ///< roles of the inputs, the gradient "g" included
  std::vector<std::string> out;     ///< roles of the outputs ("W1", then the updated state)
  std::vector<std::string> keys;    ///< every hyper-parameter it reads
  std::vector<std::vector<std::string>> reads;  ///< per output: the hyper-parameters that output reads
};

/// Every reference update fusecert has.
const std::vector<Reference>& references();
/// The reference named `kind`, or nullptr.
const Reference* find_reference(const std::string& kind);
/// Output `out` of `ref` over the reals, for inputs by role ("W", "g", ...);
/// the hyper-parameters are `a`'s constants.
z3::expr reference_output_reals(smt::RealArith& a, const Reference& ref, size_t out,
                                const std::map<std::string, z3::expr>& in);

/// Sets the hyper-parameter `meaning` (a Reference's key: "lr", "beta1",
/// ..., "step") of `h` (`step` separately, as read) to `v`; false for a key
/// that is not one.
bool set_hyper(model::Hyper& h, double& step, const std::string& meaning, double v);

struct Recognition {
  std::string kind;                ///< "adamw" | "sgd" | "momentum"; empty = unknown consumer
  std::string declared;            ///< the op's `optimizer` attribute, if any
  std::vector<std::string> roles;  ///< role of each input block argument ("W", "g", "m", "v", "B")
  std::vector<std::string> outputs;///< role of each yielded value ("W1", "m1", ...)
  std::string smt2;                ///< the equivalence (or refutation) query; empty if none was built
  std::string claim;
  smt::CheckResult result;         ///< the solver's answer on smt2
  std::vector<std::string> missing;///< hyper-parameter keys the reference needs but the op lacks
  std::string detail;              ///< why the body matches nothing, in one sentence
  /// When sampling rejected the body: the first sample point (inputs by
  /// role) where body and reference differ, with both values (name, value).
  std::vector<std::pair<std::string, std::string>> samples;
};

/// `attr` looks an attribute up on the consumer. `grad_arg` is the block
/// argument carrying the gradient; `num_inputs` the number of ins operands.
Recognition recognize(const Body& body, int grad_arg, int num_inputs,
                      const std::function<const Attr*(const std::string&)>& attr, unsigned timeout_ms);

/// The body's yielded values over the reals for the block-argument terms
/// `args` (one per block argument); nullopt if it uses an op fusecert cannot
/// model. √ adds side constraints to `ra` (assert ra.side()).
std::optional<std::vector<z3::expr>> eval_body_reals(smt::RealArith& ra, const Body& body,
                                                     const std::vector<z3::expr>& args);

}  // namespace fusecert::ir
