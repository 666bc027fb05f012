// Translation validation of an epilogue-fusion rewrite (issue #6): for every
// function of the BEFORE module (the unfused producer → consumer pair) and
// its counterpart in AFTER (the fused op), prove per output element, in Z3's
// floating-point theory, that every result is bitwise the same (all NaNs
// identified), for a symbolic element (i, j) and K unrolled to a stated bound.
//
// Verdicts: "equivalent" (every result's disequality is unsat), "not
// equivalent" (one is sat: the model is the counterexample), "inconclusive"
// (a timeout or unknown, never equivalent), "error" (an input the translators
// cannot model: fail closed, with a `file:line:col: error: ... [TV.unsupported]`
// diagnostic).
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "support/diag/render.h"
#include "verifier/ir/model.h"
#include "verifier/smt/query.h"
#include "verifier/tv/side.h"

namespace fusecert::tv {

struct ValidateOptions {
  int k_bound = 4;              ///< K is unrolled to at most this many terms
  unsigned timeout_ms = 10000;  ///< per result obligation; 0 = no limit
  int search_trials = 2000;     ///< concrete candidates tried before the general query
};

/// One obligation: result r of the before function equals result r of the
/// after function, bitwise, for every operand value (NaN, ±∞, ±0 included).
struct ResultCheck {
  std::string id;               ///< "TV.result0"
  std::string name;             ///< "result 0 (tessera.adamw #0)"
  Fmt fmt = Fmt::F32;
  int before_node = -1, after_node = -1;
  std::string smt2;
  std::string method;           ///< how the answer was obtained
  smt::CheckResult res;
  std::string verdict;          ///< "equivalent" | "not equivalent" | "inconclusive"
  // Counterexample (verdict "not equivalent"):
  std::vector<smt::ModelValue> inputs;  ///< the element's operand values the model assigns
  smt::ModelValue before, after;        ///< both results
};

/// One matched function pair.
struct PairResult {
  std::string before_func, after_func;
  ir::Loc before_loc, after_loc;
  Side before, after;
  std::vector<std::string> abstractions;
  std::vector<ResultCheck> results;
  std::string verdict;
};

struct Validation {
  std::string before_file, after_file;      ///< equal in one-file mode
  std::string before_sha256, after_sha256;
  std::shared_ptr<ir::Module> before_module, after_module;
  ValidateOptions options;
  std::shared_ptr<Program> program;         ///< the nodes of every side (shared operands)
  std::vector<PairResult> pairs;
  /// Front-end diagnostics (input.*) and the validation's own errors
  /// (TV.unsupported: an input the translators cannot model; TV.correspondence:
  /// the two sides do not match up), in the order found.
  std::vector<diag::Diagnostic> diags;
  std::string verdict;                      ///< overall: error > not equivalent > inconclusive > equivalent
};

/// Validates module texts. `after_text` absent: one file holding both
/// functions, @before/@after or @src/@tgt. Two files: functions are matched
/// by name; functions named by an `epilogue = @fn` attribute are helpers.
Validation validate_texts(const std::string& before_text, const std::string& before_name,
                          const std::optional<std::string>& after_text, const std::string& after_name,
                          const ValidateOptions& opt);
/// Reads the files, then validate_texts. `after_path` empty: one-file mode.
Validation validate_files(const std::string& before_path, const std::string& after_path, const ValidateOptions& opt);

/// support/diag/exit_code.h: 0 equivalent, 1 not equivalent, 2 an input or
/// usage error, 3 inconclusive.
int exit_code(const Validation& v);

/// The Alive2-style report: pair, bound, abstractions, one line per result,
/// the counterexample, each pair's verdict. Its diagnostics print through
/// `engine` (`fusecert validate` names itself on one about no file). The
/// overall verdict is verdict_remark(v), which `fusecert validate` prints
/// last (docs/validation.md).
std::string render_text(const Validation& v, const diag::TextRenderer& engine = diag::TextRenderer());

/// The one verdict line a validation ends with, a remark at the AFTER file:
/// `AFTER: remark: VERDICT: N function pair(s), K = k [verdict]` with
/// VERDICT equivalent, not equivalent or inconclusive; `AFTER: remark:
/// error: no verdict; the errors above say why [verdict]` when
/// it failed closed.
diag::Diagnostic verdict_remark(const Validation& v);

/// One certificate per pair, in the `fusecert certify` format
/// (schema fusecert-certificate/3, re-checkable by `fusecert check-cert`):
/// verdict legal = equivalent, illegal = not equivalent; obligations
/// TV.result<r> (SMT, QF_FP, expected unsat) and a "validation" section with
/// the bound, the abstractions and both inputs.
nlohmann::json certificate(const Validation& v, size_t pair, const std::string& tool_version);

}  // namespace fusecert::tv
