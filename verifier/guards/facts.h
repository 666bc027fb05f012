// Facts about one candidate, computed once before any guard runs and handed
// to every guard as a const input (issue #15): which table entries the
// producer and consumer have, which optimizer the consumer is (declared by
// its table entry, or proven by recognising a linalg.generic body), which
// operand is the weight W and which are its state, and the role of each
// input and yielded value of a proven body. Before, the single-use guard
// wrote these into the shared report and every later guard read them back,
// so the guards' call order was a hidden contract.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "verifier/ir/candidates.h"
#include "verifier/ir/dependence.h"
#include "verifier/ir/dialect_table.h"
#include "verifier/ir/model.h"
#include "verifier/ir/recognize.h"
#include "verifier/ir/routed_structure.h"

namespace fusecert::guards {

struct Facts {
  const ir::OpSpec* producer_spec = nullptr;  ///< the producer's table entry, if a table lists it
  const ir::OpSpec* consumer_spec = nullptr;  ///< the consumer's (or the fused op's) table entry
  /// The consumer's optimizer, for messages and the report: its table
  /// entry's name after the dialect prefix (declared), or the reference its
  /// body was proven to compute; empty when neither. Guards decide on
  /// `reference`, never on this name.
  std::string optimizer;
  /// The element-wise body the consumer computes: its table entry's `body`
  /// (a fused op's epilogue too), or the reference its linalg.generic body
  /// was proven equal to; nullptr when neither.
  const ir::Reference* reference = nullptr;
  /// The consumer is an optimizer (or fused) op its table lists without a
  /// body: fusecert knows its operands and keys, not what it computes, so
  /// legality through it is inconclusive, never assumed.
  bool opaque = false;
  /// The optimizer state includes a second moment (a role "v": the routing
  /// guard's decay covers it too).
  bool second_moment = false;
  int weight_value = -1;                ///< W, the value the consumer updates
  std::vector<int> state_values;        ///< the optimizer state it reads (m, v / B)
  std::vector<std::string> roles;       ///< proven body: the role of each input ("W", "g", "m", ...)
  std::vector<std::string> outputs;     ///< ... and of each yielded value ("W1", "m1", ...)
  /// A linalg.generic consumer: the recognition attempt (query, roles,
  /// missing keys) and its answer, solved once here.
  std::optional<ir::Recognition> recognition;
  smt::CheckResult recognition_answer;
  /// A DAG consumer (Form::Dag): how each of the step's results depends on
  /// the gradient (verifier/ir/dependence.h), computed once here.
  std::optional<ir::Dag> dag;
  /// What in the IR shows the weight gradient to be per expert (grouped, or
  /// the weight picked from a stack at a runtime index): routing is then
  /// conditional whatever is stated or assumed (verifier/ir/routed_structure.h).
  std::optional<ir::RoutedStructure> routed;
};

/// The facts of `c`. Never throws on hostile input (solver failures come
/// back in recognition_answer).
Facts compute_facts(const ir::Module& m, const ir::Candidate& c, unsigned timeout_ms);

}  // namespace fusecert::guards
