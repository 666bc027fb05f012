// The fusion guards of ../shared/spec/ir-and-certificates.md, one file each,
// each tied to its proposition. A guard reads the model (verifier/ir) for one
// candidate and appends obligations (structural or SMT) and diagnostics to
// the candidate's report. Missing semantic keys are diagnostics and make the
// obligation `missing` (fail closed), never a default.
//
//   guard            file               proposition
//   single use       single_use.cpp     P1   (recognition.cpp: a remark after the verdict)
//   K whole          k_whole.cpp        P1
//   clip scope       clip_scope.cpp     P2
//   reduce into state reduce_into_state.cpp P3
//   routing          routing.cpp        P5
//   state locality   locality.cpp       P9
//   accumulator      accumulator.cpp    P6
//   in-place order   inplace_order.cpp  P7
//   residency        residency.cpp      P8
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "verifier/core/obligation.h"
#include "verifier/guards/facts.h"
#include "verifier/ir/candidates.h"
#include "verifier/ir/model.h"
#include "support/diag/diagnostic.h"
#include "verifier/smt/query.h"

namespace fusecert::guards {

/// The guards report through fusecert's one diagnostic type
/// (support/diag): the rule id is the obligation id ("P2.clip_scope"), so
/// the text form is `file:line:col: error: message [P2.clip_scope]`.
using Note = diag::Note;
using Diagnostic = diag::Diagnostic;

/// The obligation and counterexample types are the ones the proposition
/// layer uses too (verifier/core/obligation.h): a candidate's obligation is
/// structural or smt, its expected answer is holds (structural) or the
/// solver's, and guards::decide maps the answers to legal / illegal /
/// inconclusive.
using Obligation = verifier::Obligation;
using Counterexample = verifier::Counterexample;

/// Everything certify knows about one candidate.
struct CandidateReport {
  ir::Candidate cand;
  std::string function;
  std::string producer_op, consumer_op;
  ir::Loc producer_loc, consumer_loc;
  // Copied from the candidate's Facts (recognized, roles, outputs: from the
  // recognition remark, after the verdict) for the report and the
  // certificate; guards read the Facts, never these.
  std::string recognized;              ///< optimizer the consumer was proven (remark) or declared (table op) to be
  std::string residency;               ///< "tile" | "layer" | "" (not decided)
  int weight_value = -1;               ///< the weight W the consumer updates (value id)
  std::vector<int> state_values;       ///< the optimizer state it reads (m, v / B), value ids
  std::vector<std::string> roles;      ///< linalg.generic consumer proven: role of each input ("W", "g", "m", ...)
  std::vector<std::string> outputs;    ///< ... and of each yielded value ("W1", "m1", ...)
  std::vector<int> collectives;        ///< collectives on the consumer's outputs the P3 guard checked (op ids)
  std::string verdict;                 ///< "legal" | "illegal" | "inconclusive"
  std::vector<Obligation> obligations;
  std::vector<Diagnostic> diags;
  std::optional<Counterexample> counterexample;
  /// The assumptions (--assume) a guard used for a
  /// fact the IR did not state: key, value.
  std::vector<std::pair<std::string, std::string>> assumed;
};

/// What a guard sees: the module, the candidate and its facts (computed
/// once, before any guard, and read-only), and the report it appends its
/// obligations and diagnostics to. No guard reads what another wrote.
struct GuardContext {
  const ir::Module& m;
  const ir::Candidate& c;
  unsigned timeout_ms;
  const Facts& facts;
  CandidateReport& out;

  const ir::Op& producer() const { return m.ops[c.producer]; }
  /// The consumer op, or the fused op; nullptr when the gradient has no optimizer use.
  const ir::Op* consumer() const;
  /// Adds a structural obligation; returns it for further edits.
  Obligation& structural(const std::string& id, const std::string& claim, const std::string& answer,
                         const std::string& evidence, bool decides = true);
  /// Adds and solves an SMT obligation.
  Obligation& smt(const std::string& id, const std::string& claim, std::shared_ptr<const std::string> smt2,
                  const std::string& expected, const std::string& logic, bool decides = true);
  Obligation& smt(const std::string& id, const std::string& claim, const std::string& smt2,
                  const std::string& expected, const std::string& logic, bool decides = true) {
    return smt(id, claim, std::make_shared<const std::string>(smt2), expected, logic, decides);
  }
  /// Adds an SMT obligation already solved (the facts' recognition query).
  Obligation& smt_answered(const std::string& id, const std::string& claim, const std::string& smt2,
                           const std::string& expected, const std::string& logic, const smt::CheckResult& r);
  /// Fills `o` from the solver's answer and appends it.
  Obligation& record(Obligation& o, const smt::CheckResult& r);
  /// A diagnostic of proposition `prop` under the rule `rule` (an obligation
  /// id of that proposition: the proposition is its prefix).
  Diagnostic& error(const std::string& prop, const std::string& rule, const ir::Loc& loc, const std::string& msg);
  Diagnostic& warning(const std::string& prop, const std::string& rule, const ir::Loc& loc, const std::string& msg);
  Diagnostic& remark(const std::string& prop, const std::string& rule, const ir::Loc& loc, const std::string& msg);
  /// A required semantic key on `op`: returns it, or records a `missing`
  /// obligation and an error naming the key and what its values mean.
  const ir::Attr* require(const ir::Op& op, const std::string& key, const std::string& prop,
                          const std::string& obligation_id, const std::string& meaning);
  /// A fact the IR may state on any op of the consumer slice
  /// (Facts::stating_ops: as the attribute spelling `meaning` in that op's
  /// dialect) or the user may assume (--assume meaning=VALUE): the attribute
  /// when stated (it takes precedence), else the assumption (recorded in the
  /// report), else a `missing` obligation and a warning naming the --assume
  /// to add. `meaning` is also the assumption key. Two ops stating different
  /// values: a `missing` obligation and an error (inconclusive). A key the
  /// attribute boundary refused (stated with the wrong kind, or not a key of
  /// the op's table entry) is stated, not absent: no assumption replaces it,
  /// and the boundary's input.attr.* error is its diagnostic. `at`, when
  /// given, is set to the op that states it (the consumer otherwise).
  const ir::Attr* fact(const std::string& meaning, const std::string& prop, const std::string& obligation_id,
                       const std::string& values, const ir::Op** at = nullptr);
  /// The first statement of `meaning` on the consumer slice, without
  /// diagnostics (and the op stating it in `at`); nullptr when none.
  const ir::Attr* stated(const std::string& meaning, const ir::Op** at = nullptr) const;
  /// The assumption for `key` (--assume or ir.assume:), recorded in the
  /// report and remarked at `loc` with its source and `why` the IR does not
  /// show it; nullptr when none is in force.
  const ir::Attr* use_assumption(const std::string& key, const std::string& prop, const std::string& obligation_id,
                                 const ir::Loc& loc, const std::string& why);
  /// Note at the producer.
  Note producer_note(const std::string& msg) const { return {producer().loc, msg}; }
};

/// P7: a function read from buffers as a tensor program rests on distinct
/// buffer arguments (ir::BufferArgs): shown, assumed, or `missing` with a
/// warning; false when missing (no other guard runs).
bool guard_buffer_args(GuardContext& g);
void guard_single_use(GuardContext& g);     // P1
void guard_k_whole(GuardContext& g);        // P1
void guard_clip_scope(GuardContext& g);     // P2
void guard_reduce_into_state(GuardContext& g);  // P3
void guard_routing(GuardContext& g);        // P5
void guard_locality(GuardContext& g);       // P9
void guard_accumulator(GuardContext& g);    // P6
void guard_inplace_order(GuardContext& g);  // P7
void guard_residency(GuardContext& g);      // P8

/// Runs every guard on one candidate and decides the verdict:
/// illegal if a deciding obligation definitely failed; inconclusive if one is
/// missing / unknown / timed out / errored; legal otherwise.
CandidateReport check_candidate(const ir::Module& m, const ir::Candidate& c, unsigned timeout_ms);

/// Query texts depend only on a few parameters; build each once per process
/// (10,000 candidates share a handful of distinct queries, whose answers the
/// solver cache in verifier/smt then reuses).
std::shared_ptr<const std::string> memo_query(const std::string& key, const std::function<std::string()>& build);

/// Which block arguments each yield of `body` reads, directly or not
/// (single_use.cpp; the P3 guard reads one yield's).
std::vector<std::vector<bool>> yield_reads(const ir::Body& body);

/// The verdict rule, shared with check-cert.
std::string decide(const std::vector<Obligation>& obs);

}  // namespace fusecert::guards
