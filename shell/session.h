// The proof shell's command layer: one Session holds the proposition
// registry, the settings (timeout, witnesses), the last proof of each
// proposition and the loaded .mlir inputs, and executes one command line at a
// time. `fusecert shell` (interactive, libedit) and `fusecert query`
// (one command, text or JSON) are thin front ends over Session::execute, so
// both answer exactly the same questions the same way.
//
// Commands (see `help`): list, show, prove, cx, obligations, smt, solve,
// load, candidates, why, set, help, quit.
#pragma once
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "verifier/cert/certify.h"
#include "verifier/core/result.h"
#include "support/diag/exit_code.h"
#include "verifier/core/spec.h"
#include "verifier/prover.h"

namespace fusecert::shell {

/// Status of one answered command, as `fusecert query` exits with it
/// (the exit-code table of support/diag/exit_code.h).
enum Status : int {
  kAnswered = diag::code(diag::Exit::Clean),            ///< the question was answered (whatever the verdict)
  kError = diag::code(diag::Exit::InputError),          ///< bad command / argument / input
  kInconclusive = diag::code(diag::Exit::Inconclusive), ///< the solver could not decide (timeout, unknown)
};
/// The status of a session: the worse of two (support/diag: an error
/// outranks inconclusive).
int worse_status(int a, int b);

/// The answer to one command line: the text a person reads and the same
/// content as JSON for scripts. `status` != kAnswered means `text` is the
/// diagnostic in the one form, named for the front end about no file
/// ("fusecert query: error: ... [usage]"), and json holds {"error": ...}.
struct Reply {
  int status = kAnswered;
  std::string text;                 ///< ends with a newline unless empty
  nlohmann::ordered_json json;      ///< {"command":..., "status":..., ...}
  bool quit = false;                ///< `quit` / `exit`
  diag::Diagnostic diagnostic;      ///< status kError: what `text` renders
};

/// One entry of the command table (used by help and completion).
struct CommandInfo {
  std::string name, synopsis, summary;
  /// What each positional word completes to: "prop", "param", "obligation",
  /// "file", "candidate", "command", "setting", "setting_value" or ""
  /// (nothing). One kind per position, so the command's arity bounds
  /// completion; only "param" (name=value...) repeats for every later word.
  std::vector<std::string> completes;
  /// A command line that runs as shown (`help COMMAND` prints it; the unit
  /// tests run every example in a fresh session and require an answer).
  std::string example;
};

/// The command table, in the order `help` lists it.
const std::vector<CommandInfo>& commands();

/// Splits a command line into words: whitespace separated, "double quotes"
/// group, backslash escapes the next character. Throws std::invalid_argument
/// on an unterminated quote.
std::vector<std::string> split_words(std::string_view line);

/// True when `line` is a `solve` command whose parentheses are not yet
/// balanced (the REPL then reads a continuation line).
bool needs_continuation(std::string_view line);

class Session {
 public:
  /// Takes the registry (load_registry()); witnesses are off by default so
  /// answers arrive fast (`set witnesses on`).
  /// `tool` names the front end on a diagnostic about no file, as a
  /// compiler names itself ("fusecert shell: error: ... [usage]").
  explicit Session(verifier::Registry reg, std::string tool = "fusecert shell");

  /// Executes one command line. Never throws for bad input: errors come back
  /// as Reply with status kError and a "TOOL: error: ... [RULE]" text.
  Reply execute(std::string_view line);

  /// Completion candidates for the word ending at the end of `before_cursor`
  /// (whole words, not suffixes), sorted.
  std::vector<std::string> complete(std::string_view before_cursor) const;

  unsigned timeout_ms() const { return opt_.timeout_ms; }
  void set_timeout_ms(unsigned t) { opt_.timeout_ms = t; }
  const verifier::Registry& registry() const { return reg_; }

 private:
  using Args = std::vector<std::string>;
  // commands_prove.cpp
  Reply cmd_list(const Args& a);
  Reply cmd_show(const Args& a);
  Reply cmd_prove(const Args& a);
  Reply cmd_cx(const Args& a);
  Reply cmd_obligations(const Args& a);
  Reply cmd_smt(const Args& a);
  // commands_solve.cpp
  Reply cmd_solve(std::string_view text);
  // commands_ir.cpp
  Reply cmd_load(const Args& a);
  Reply cmd_candidates(const Args& a);
  Reply cmd_why(const Args& a);
  // session.cpp
  Reply run_command(std::string_view line);
  /// `TOOL: note: message` (the notes of a proof), through the diagnostic engine.
  std::string note_line(const std::string& message) const;
  Reply cmd_set(const Args& a);
  Reply cmd_help(const Args& a);

  /// The spec of `id` (case-insensitive), or throws std::invalid_argument
  /// naming the known ids.
  const verifier::PropositionSpec& spec(const std::string& id) const;
  /// The proof of `id` at its default parameters (current settings),
  /// proving it if needed.
  const verifier::PropositionResult& proof(const std::string& id);
  /// The most recent proof of `id`, with the parameters it was proved with
  /// (re-proved at the current settings after `set`); the defaults if `id`
  /// was never proved.
  const verifier::PropositionResult& latest(const std::string& id);
  /// `cx` of candidate N (1-based): the counterexample `why N` printed.
  Reply candidate_cx(size_t n);
  /// Proves one proposition with `overrides`; throws std::invalid_argument
  /// for unknown parameters.
  verifier::PropositionResult run_prove(const std::string& id, const std::map<std::string, verifier::Param>& overrides);

  verifier::Registry reg_;
  std::string tool_;
  verifier::ProveOptions opt_;
  std::map<std::string, verifier::PropositionResult> last_;   ///< at the default parameters, by id
  std::map<std::string, verifier::PropositionResult> latest_; ///< most recent proof of each id, any parameters
  std::map<std::string, std::map<std::string, verifier::Param>> latest_overrides_;  ///< its parameters
  std::string last_id_;                                      ///< most recent prove
  /// What `cx` with no argument shows: the last proof, or the candidate of
  /// the last `why` (whichever came last); 0 = the last proof.
  size_t last_why_ = 0;
  std::vector<cert::InputReport> inputs_;                     ///< `load`ed files
  struct CandRef { size_t input, index; };
  std::vector<CandRef> cands_;                                ///< numbered 1..n for `why`
};

/// Builds an error reply: the diagnostic `message [rule]` (+ a note `hint`),
/// rendered by Session::execute.
Reply error_reply(const std::string& command, const std::string& message, const std::string& hint = "",
                  const std::string& rule = "usage");

}  // namespace fusecert::shell
