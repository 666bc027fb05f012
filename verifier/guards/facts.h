// Facts about one candidate, computed once before any guard runs and handed
// to every guard as a const input (issue #15): which table entries the
// producer and consumer have, which optimizer a table consumer declares and
// the element-wise body its entry gives it, which operand is the weight W
// and which are its state (by the table entry, or by dataflow for linalg).
// Before, the single-use guard wrote these into the shared report and every
// later guard read them back, so the guards' call order was a hidden
// contract. Recognising a linalg.generic body is not a fact: it is a remark
// made after the verdict (verifier/guards/recognition.h), and no guard sees it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "verifier/ir/candidates.h"
#include "verifier/ir/dependence.h"
#include "verifier/ir/dialect_table.h"
#include "verifier/ir/model.h"
#include "verifier/ir/recognize.h"  // ir::Reference, a table entry's body
#include "verifier/ir/routed_structure.h"

namespace fusecert::guards {

struct Facts {
  const ir::OpSpec* producer_spec = nullptr;  ///< the producer's table entry, if a table lists it
  const ir::OpSpec* consumer_spec = nullptr;  ///< the consumer's (or the fused op's) table entry
  /// A table consumer's optimizer, for messages and the report: its table
  /// entry's name after the dialect prefix (declared); empty otherwise.
  /// Guards decide on `reference`, never on this name.
  std::string optimizer;
  /// The element-wise body a table consumer computes: its table entry's
  /// `body` (a fused op's epilogue too); nullptr otherwise (a linalg
  /// consumer is read from its own body, never from a recognised name).
  const ir::Reference* reference = nullptr;
  /// The consumer is an optimizer (or fused) op its table lists without a
  /// body: fusecert knows its operands and keys, not what it computes, so
  /// legality through it is inconclusive, never assumed.
  bool opaque = false;
  /// The optimizer state includes a second moment (a table role "v": the
  /// routing guard's decay covers it too).
  bool second_moment = false;
  int weight_value = -1;                ///< W, the value the consumer updates (-1: not shown)
  std::vector<int> state_values;        ///< the optimizer state it reads (m, v / B)
  /// A DAG consumer (Form::Dag), or linalg on tensors: how each of the
  /// step's results depends on the gradient (verifier/ir/dependence.h),
  /// computed once here.
  std::optional<ir::Dag> dag;
  /// Linalg on tensors: the slice stops only because collectives (table role
  /// collective) reduce outputs of the consumer, a linalg.generic reading the
  /// gradient directly: reduce-into-state, which the P3 guard judges. The
  /// other guards read that generic by its own body and maps.
  bool reduced_outputs = false;
  /// What in the IR shows the weight gradient to be per expert (grouped, or
  /// the weight picked from a stack at a runtime index): routing is then
  /// conditional whatever is stated or assumed (verifier/ir/routed_structure.h).
  std::optional<ir::RoutedStructure> routed;
  /// The ops that may state a fact of the consumer (routing, unrouted,
  /// grad_clip_scope), in program order, the consumer first: the consumer and
  /// every later op computed from the gradient (a result, or a buffer a DPS
  /// op of the slice writes). A consumer chain states them on any of its ops,
  /// often the one writing W' (issue #16); GuardContext::fact reads them all.
  std::vector<int> stating_ops;
};

/// The facts of `c`. Never throws on hostile input.
Facts compute_facts(const ir::Module& m, const ir::Candidate& c);

}  // namespace fusecert::guards
