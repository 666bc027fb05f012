// A single SMT obligation: assertions built with the Z3 C++ API, rendered to
// SMT-LIB2 text, and decided by solving *that text* in a fresh Z3 context, so
// the stored query is exactly what decided the verdict (and any SMT-LIB2
// solver can re-check it). Nothing outside verifier/smt/ calls the solver.
#pragma once
#include <z3++.h>

#include <optional>
#include <string>
#include <vector>

#include "verifier/smt/answer.h"

namespace fusecert::smt {

/// One variable of a satisfying model, ready for printing.
///  - name:  the SMT constant's name.
///  - sort:  its SMT-LIB2 sort, e.g. "Real", "(_ FloatingPoint 8 24)".
///  - value: decimal rendering (reals to 12 digits, FP as C++ %.9g of the
///           exact value, "NaN"/"+oo"/"-oo" for specials).
///  - bits:  for floating-point constants, the IEEE-754 bit pattern as hex
///           ("0x3f800000"); empty otherwise.
struct ModelValue {
  std::string name, sort, value, bits;
};

/// The outcome of solving one query text.
struct CheckResult {
  Answer answer = Answer::Error;
  double time_ms = 0;               ///< wall time of the solver call, ms
  std::string reason;               ///< reason_unknown, or the error text
  std::vector<ModelValue> model;    ///< filled for Sat, sorted by name
  bool cached = false;              ///< answered from the query cache
  /// Non-vacuity of an Unsat answer: the answer to premises_smt2(text), the
  /// query's premises alone. Set only when `answer` is Unsat (a Sat answer's
  /// model already satisfies them). An Unsat answer proves its claim only
  /// when this is Sat; Unsat here means the proof is vacuous.
  std::optional<Answer> premises;
  std::string premises_reason;      ///< why the premise check did not answer sat/unsat
};

/// The premises of an obligation's query: every assertion but the last one,
/// which is the negated claim (the convention every query follows: premises
/// first, the negated claim last). Rendered as SMT-LIB2 by Z3 from `text`;
/// throws z3::exception when `text` does not parse.
std::string premises_smt2(const std::string& text);

/// True when the answer decides its obligation: Sat, or Unsat with premises
/// that are themselves satisfiable (a non-vacuous proof).
bool decided(const CheckResult& r);

/// Solves SMT-LIB2 `text` (declarations + assertions; any check-sat in it is
/// ignored) with Z3 in a fresh context. `timeout_ms` = 0 means no limit;
/// otherwise it is a deadline (ms of wall time) on the whole solve, context
/// creation and parsing included: an interrupted check, or an answer that
/// arrives after the deadline, yields Answer::Timeout (never sat/unsat).
/// Parse errors yield Answer::Error with the message, and so does text that
/// is not a whitelisted query (whitelist.h: at most one check-sat, no
/// command but declarations, definitions and assertions) — refused before
/// Z3 parses any of it. An Unsat answer also solves premises_smt2(text)
/// under the same limit (that text passes the same whitelist first) and
/// records its answer in `premises` (non-vacuity, checked here once for
/// every caller). Results are cached by SHA-256 of (text, timeout) within
/// the process (see cache.h), except Timeout/Error/Unknown and an Unsat
/// whose premise check did not answer.
CheckResult solve_smt2(const std::string& text, unsigned timeout_ms);

/// Asks the solve now running, and every solve that starts before
/// clear_interrupt(), to stop: an unfinished check answers Answer::Timeout
/// with reason "interrupted" (inconclusive, never cached; an answer that was
/// already found stands). Async-signal-safe: the shell calls it from its
/// SIGINT handler (Ctrl-C during a proof).
void request_interrupt();
/// Ends the interrupt request (the next command solves normally).
void clear_interrupt();
/// True between request_interrupt() and clear_interrupt().
bool interrupt_requested();

/// Builder for one obligation's query.
class Query {
 public:
  explicit Query(z3::context& ctx) : ctx_(ctx), asserts_(ctx) {}
  /// Adds an assertion (a Boolean term).
  void add(const z3::expr& e) { asserts_.push_back(e); }
  /// The full SMT-LIB2 benchmark: logic-free declarations, assertions and
  /// (check-sat). Deterministic for the same assertions.
  std::string smt2() const;
  /// smt2() solved by solve_smt2().
  CheckResult check(unsigned timeout_ms) const { return solve_smt2(smt2(), timeout_ms); }

 private:
  z3::context& ctx_;
  z3::expr_vector asserts_;
};

}  // namespace fusecert::smt
