// The one obligation type, shared by fusecert's two layers (issue #13):
//  - propositions (fusecert prove, verifier/props): SMT queries whose
//    answers a proposition's verdict rule reads (holds / refuted /
//    conditional / inconclusive, verifier/core/verdict_rule.h);
//  - candidates (certify, check-cert, validate; verifier/guards): structural
//    checks on the IR or SMT queries, whose answers decide legal / illegal /
//    inconclusive (guards::decide).
// Both layers read one obligation the same way (decided, as expected); each
// maps that to its own verdict vocabulary explicitly, in its verdict rule.
// The answer is spelled as certificates spell it: an SMT obligation's is a
// solver's answer (smt::to_string: sat, unsat, unknown, timeout, error), a
// structural one's is holds, violated or missing.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "verifier/smt/answer.h"
#include "verifier/smt/query.h"

namespace fusecert::verifier {

/// What an obligation's answer covers (issue #19), stated with every result
/// in the manner of Alive2's approximation disclosure: the theory it is
/// decided in, what ranges over every value, what is fixed to one value, and
/// whether it holds by construction of the encoding.
struct Scope {
  std::string theory;    ///< "reals", "binary32", "bf16", "integers", ...
  std::string symbolic;  ///< what the answer covers for every value (e.g. "tile sizes T, S")
  std::string fixed;     ///< what is fixed to one value ("K unrolled to 4; beta1 = 0.9"); "" = nothing
  /// Empty for evidence. Otherwise why the answer follows from the encoding
  /// itself (congruence, a goal that is false, a definition restated): a
  /// sanity check of the encoding, never evidence for the verdict.
  std::string definitional;
  /// The assumptions the answer rests on and does not prove (an error model,
  /// an expectation over routing, a floor on an error): stated, so that a
  /// reader knows what a proof of the claim would still need. Empty = none
  /// beyond the encoding of the IR's semantics.
  std::vector<std::string> assumed;
  bool evidence() const { return definitional.empty(); }
};

/// One discharged obligation: what was claimed, how it was checked, the
/// answer that supports the claim and the answer that was found.
struct Obligation {
  std::string id;           ///< "P1.tiling.binary32", "P9.locality"; the prefix is the proposition
  std::string proposition;  ///< candidates: the id's prefix ("P9")
  std::string how = "smt";  ///< "structural" | "smt"
  std::string claim;        ///< what the expected answer establishes
  bool decides = true;      ///< candidates: false = informational (never changes the verdict)
  Scope scope;              ///< propositions: what the answer covers, and whether it is evidence
  std::string evidence;     ///< structural: what was counted / found
  std::shared_ptr<const std::string> smt2;  ///< smt: the exact SMT-LIB2 text solved (shared by identical obligations)
  std::string logic;        ///< smt, candidates: QF_LIA, QF_NRA, QF_FP
  bool fp_exp = false;      ///< smt, candidates: non-standard FP sorts (bf16): cvc5 needs --fp-exp
  std::string expected;     ///< structural: holds; smt: sat | unsat
  std::string answer;       ///< structural: holds | violated | missing; smt: the solver's answer
  /// smt, when `answer` is unsat: the answer to the premises alone
  /// (non-vacuity, verifier/smt); unsat proves the claim only when it is
  /// sat. "" when no premise check was run.
  std::string premises;
  std::string premises_reason;  ///< why the premise check was not sat
  double time_ms = 0;       ///< reported, never written into certificates
  std::string reason;       ///< the solver's reason for unknown / error
  std::vector<smt::ModelValue> model;  ///< satisfying assignment (sat only)
  bool cached = false;      ///< the answer came from the solver cache

  /// The SMT-LIB2 text ("" for a structural obligation).
  const std::string& query() const {
    static const std::string none;
    return smt2 ? *smt2 : none;
  }
  /// smt: sat, or unsat with satisfiable premises; structural: holds or violated.
  bool decided() const {
    if (how == "smt") return answer == "sat" || (answer == "unsat" && premises == "sat");
    return answer == "holds" || answer == "violated";
  }
  /// The answer is the expected one (decided or not).
  bool holds() const { return answer == expected; }
  /// Decided, and the answer is the expected one.
  bool as_expected() const { return decided() && holds(); }
  /// An SMT obligation's answers as the solver's type (error for a text
  /// that is no solver answer: never a silent sat or unsat).
  smt::Answer smt_answer() const { return smt::parse_answer(answer).value_or(smt::Answer::Error); }
  smt::Answer smt_expected() const { return smt::parse_answer(expected).value_or(smt::Answer::Error); }
  std::optional<smt::Answer> smt_premises() const {
    return premises.empty() ? std::nullopt : smt::parse_answer(premises);
  }
};

/// A concrete counterexample: the values that break a failed obligation's
/// claim (an SMT model, or a structural check's witnesses, name -> value)
/// and, for a proposition, what evaluating the model back in C++ showed.
struct Counterexample {
  std::string obligation;   ///< id of the obligation it came from
  std::string summary;      ///< one line: what the values break
  std::vector<smt::ModelValue> values;
  std::vector<std::pair<std::string, std::string>> replay;  ///< propositions: C++ evaluation
  bool replay_confirms = false;  ///< propositions: the C++ evaluation violates the claim too
};

}  // namespace fusecert::verifier
