// certify: parse an .mlir input, find every weight-gradient candidate, run
// the guards, and turn each candidate into a deterministic legality
// certificate; render the findings as text, JSON or SARIF 2.1.0.
// check-cert: re-verify a certificate on its own (schema, digest, verdict
// rule, every SMT query re-run by Z3 or an SMT-LIB2 solver binary, and with
// the IR: its hash and a re-derivation of every obligation).
// Schema and procedure: docs/certificates.md.
#pragma once
#include <stdexcept>
#include <nlohmann/json.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "support/diag/exit_code.h"
#include "verifier/guards/guards.h"

namespace fusecert::cert {

/// Version 3 records the --dialect tables (`dialects`) and names a table
/// dialect's candidate form `table` with its `candidate.dialect` (version 2
/// called it `tessera`, whatever the dialect); docs/certificates.md.
inline constexpr const char* kSchema = "fusecert-certificate/3";

/// Largest certificate check-cert reads (bytes); a larger file is refused
/// before it is read (a 1 GB claim took 5.2 GB of memory to parse). The
/// largest certificate fusecert writes for the fixtures is well under 1 MiB.
inline constexpr std::uintmax_t kMaxCertificateBytes = 16u << 20;
/// Deepest JSON nesting check-cert parses; fusecert writes at most 8 levels.
/// Deeper text is refused before parsing (nlohmann's dump, used for the
/// digest, recurses once per level: a 100,000-deep array overflowed it).
inline constexpr int kMaxCertificateDepth = 64;

/// Which split of its file a report is (`--split-input-file`).
struct SplitInfo {
  size_t index = 0;    ///< 0-based, in file order
  unsigned line = 1;   ///< first line of the split in the file
  size_t count = 1;    ///< splits in the file
};

/// One input file (or one split of it) and everything certify found in it.
struct InputReport {
  std::string file;     ///< as named on the command line (locations use it)
  std::string sha256;   ///< of the bytes read (the whole file, also for a split); empty if unreadable
  std::optional<SplitInfo> split;  ///< set for each split of a --split-input-file run
  bool parsed = false;
  std::vector<guards::Diagnostic> diags;   ///< input-level: parse errors, unknown ops
  std::vector<guards::CandidateReport> candidates;
  bool has_errors() const;  ///< any error diagnostic (input- or candidate-level)
};

/// Certifies module text named `file`. Never throws for bad input.
InputReport certify_text(const std::string& text, const std::string& file, unsigned timeout_ms);
/// Reads then certifies; an unreadable file is an input diagnostic.
InputReport certify_file(const std::string& path, unsigned timeout_ms);

/// `--split-input-file`: cuts `text` on `// -----` lines (verifier/ir/split.h)
/// and certifies each split as its own module, one report per split in file
/// order, locations in `file`'s lines. A split that does not parse is an
/// input error of that split only; a blank split is an empty module (no
/// candidate); more than ir::kMaxSplits splits is one input error.
std::vector<InputReport> certify_splits(const std::string& text, const std::string& file, unsigned timeout_ms);
/// Reads `path`, then certify_splits (split) or certify_text (one report).
std::vector<InputReport> certify_path(const std::string& path, unsigned timeout_ms, bool split);

/// The embedded default input: a two-layer MLP's backward pass with AdamW.
const std::string& embedded_training_step();
inline constexpr const char* kEmbeddedName = "<embedded>/mlp_train_step.mlir";

/// Exit status of certify (support/diag/exit_code.h): 2 on any input error
/// (an inconclusive candidate with an error diagnostic: a missing key, an
/// undecided body), else 1 on any illegal candidate, else 3 on any
/// inconclusive one, else 0.
int exit_code(const std::vector<InputReport>& in);
/// A candidate's verdict as an exit status: legal 0, illegal 1, inconclusive 3.
diag::Exit exit_status(const guards::CandidateReport& c);

/// Whether a diagnostic rule is an input error (`input.*`: parse, unknown
/// op, unreadable file, ...), as opposed to a guard's obligation id.
bool is_input_rule(const std::string& rule);
/// The proposition of a rule id ("P2" for "P2.clip_scope"; "" for input.*).
std::string proposition_of(const std::string& rule);

/// The verdict line of a candidate, a remark at the producer (rule
/// `verdict`):  `FILE:L:C: remark: VERDICT: PRODUCER -> CONSUMER (OPTIMIZER):
/// FORM, N obligations (M by SMT)[, residency R] [verdict]`.
diag::Diagnostic verdict_line(const guards::CandidateReport& c);

/// The certificate of candidate `i` of `in` (deterministic: sorted keys, no
/// times, a SHA-256 digest over the rest). `tool_version` is fusecert's.
nlohmann::json certificate(const InputReport& in, size_t i, const std::string& tool_version);
/// Serialised certificate (2-space indent, trailing newline).
std::string dump(const nlohmann::json& j);
/// File name for candidate `i`: <stem>.<line>_<col>.r<result>.cert.json
std::string certificate_name(const InputReport& in, size_t i);
/// The <stem> of an input's certificate names (the file name without .mlir,
/// characters outside [A-Za-z0-9._-] replaced by '_').
std::string certificate_stem(const std::string& file);
/// Whether `name` is a certificate name certify writes for the stem `stem`
/// (<stem>.<line>_<col>.r<result>.cert.json).
bool is_certificate_name_of(const std::string& stem, const std::string& name);
/// The digest of a certificate (SHA-256 of its canonical dump without "digest").
std::string digest(nlohmann::json j);

std::string render_text(const std::vector<InputReport>& in);
nlohmann::json render_json(const std::vector<InputReport>& in, const std::string& tool_version);
nlohmann::json render_sarif(const std::vector<InputReport>& in, const std::string& tool_version);

/// The Z3 version the library was linked with, e.g. "4.8.12".
std::string z3_version();

/// An SMT-LIB2 solver for re-checking.
struct Solver {
  std::string name;   ///< "z3" (the library) or a binary path ("cvc5", "/usr/bin/z3")
  bool is_library() const { return name == "z3"; }
};

/// Solves `smt2` with `s`; returns "sat", "unsat", "unknown", "timeout" or
/// "error: ..." . For cvc5 binaries the text gets (set-logic ALL) and, when
/// `fp_exp`, the --fp-exp option.
std::string run_solver(const Solver& s, const std::string& smt2, bool fp_exp, unsigned timeout_ms);

struct CheckOutcome {
  bool valid = true;
  std::vector<std::string> problems;  ///< why it is invalid (evidence of an edit or a wrong answer)
  std::vector<std::string> checked;   ///< what was re-verified
  /// Queries the chosen solver could not decide (timeout, unknown, a crash)
  /// where the certificate records an answer: the certificate is
  /// *unverified* with this solver — never valid, but not evidence of
  /// tampering either.
  std::vector<std::string> undecided;
  /// Structural obligations not re-derived (no --ir): they were checked
  /// against the obligation table only.
  size_t structural_unchecked = 0;
  /// Every obligation was re-derived (from the IR, or by re-running the
  /// prover) and matched: only then is a certificate "valid" (verified).
  bool rederived = false;
  /// Why the certificate cannot be re-derived by this fusecert: another tool
  /// version or rules file wrote it (non-empty: status "stale").
  std::string stale;
  /// Why --ir was not enough to re-derive it (MissingInput): its queries
  /// were re-run as without --ir.
  std::string missing_input;
  /// Why the --dialect tables of this run are not the ones the certificate
  /// records (a recorded table missing, or one given that it does not
  /// record): it was not re-derived (also in missing_input). A recorded
  /// dialect given with another SHA-256 is a problem instead (invalid).
  std::string dialects;
  /// Why this fusecert cannot read the certificate at all: it is of another
  /// format version (non-empty: status "unreadable", an input error, exit 2).
  /// Nothing in it was checked.
  std::string unreadable;
  /// unreadable (another format version) > invalid (evidence of an edit or a wrong answer) > unverified (a solver
  /// could not decide) > stale (another version or rules file) >
  /// consistent (no problem found, but not re-derived: no --ir) > valid.
  std::string status() const {
    return !unreadable.empty()   ? "unreadable"
           : !valid              ? "invalid"
           : !undecided.empty()  ? "unverified"
           : !stale.empty()      ? "stale"
           : !rederived          ? "consistent"
                                 : "valid";
  }
  /// The status as an exit code (support/diag/exit_code.h): valid 0,
  /// invalid 1, unreadable 2, unverified 3, stale or consistent 4 (not verified: nothing
  /// contradicts it, but this fusecert did not re-derive it).
  diag::Exit exit() const {
    if (!unreadable.empty()) return diag::Exit::InputError;
    return !valid ? diag::Exit::Findings : !undecided.empty() ? diag::Exit::Inconclusive
                                         : !rederived || !stale.empty() ? diag::Exit::NotVerified
                                                                        : diag::Exit::Clean;
  }
};

/// Records `ans` (a solver's answer to obligation `id`) against the
/// certificate's `rec`: a different definite answer is a problem, an
/// undecided one (timeout, unknown, error) leaves it unverified.
void compare_answer(const std::string& id, const std::string& ans, const std::string& rec, const Solver& solver,
                    unsigned timeout_ms, CheckOutcome& out);

/// Why `j` (a parsed certificate) is of another version of a certificate
/// format than the one this fusecert writes (fusecert-certificate/N,
/// fusecert-proposition-certificate/N), naming both versions and how to
/// write it again; nullopt when it is of this version or of no known format.
std::optional<std::string> other_format_version(const nlohmann::json& j);

/// One re-derived obligation whose answer decides nothing: the answer is
/// not definite (sat or unsat; holds or violated for a structural one), or
/// an unsat answer's premise check is not sat (unsat: vacuous; otherwise
/// undecided).
struct OpenAnswer {
  std::string id;
  std::string field;  ///< "answer" or "premises"
  std::string value;  ///< what the re-derivation answered ("nothing" when absent)
  /// Decided, but the premises are contradictory: the unsat answer proves nothing.
  bool vacuous() const { return field == "premises" && value == "unsat"; }
};

/// The open answers of a certificate's re-derived `obligations` (its JSON
/// array), at most one per obligation, the answer before its premises:
/// the one scan check-cert makes of both certificate formats before it
/// calls a re-derivation verified. Structural obligations only when
/// `structural` is set.
std::vector<OpenAnswer> open_answers(const nlohmann::json& obligations, bool structural);

/// Records each open answer of the re-derived SMT obligations (structural
/// ones are decided by the input itself) in `out.undecided`: a re-derivation
/// that matches the certificate but decided nothing itself verified nothing,
/// and an undecided solver must never make a certificate valid.
void record_open_answers(const nlohmann::json& rederived, CheckOutcome& out);

/// Re-solves an smt obligation `o` (a certificate's JSON form: id, smt2,
/// fp_exp, answer, premises) with `solver` and compares the answer with
/// `answer`; for an unsat answer also its premises alone against `premises`
/// (non-vacuity). Returns 1: the checked lists count one re-run per
/// obligation, its premise check included.
size_t recheck_smt(const nlohmann::json& o, const Solver& solver, unsigned timeout_ms, CheckOutcome& out);

/// Whether `s` can be run: nullopt when it can, else why not (a missing or
/// non-executable binary is a tool error, not an invalid certificate).
std::optional<std::string> solver_unavailable(const Solver& s);

/// Why `text` nests JSON arrays / objects deeper than `max_depth` (outside
/// strings), or nullopt. A linear scan run before any JSON parser sees it.
std::optional<std::string> json_too_deep(const std::string& text, int max_depth);

/// Thrown by a Regenerate that lacks an input the certificate needs (a
/// two-file validation given only its AFTER module): the certificate is not
/// re-derived, so at most consistent, never invalid.
struct MissingInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Regenerates a translation-validation certificate from its input text
/// (`fusecert validate`'s path, which lives above this library); nullopt
/// with `why` set when it cannot.
using Regenerate =
    std::function<std::optional<nlohmann::json>(const nlohmann::json& cert, const std::string& input, std::string& why)>;

/// Re-verifies one certificate's text: schema, digest, the obligation table,
/// the verdict rule, the query whitelist and hashes. With `ir` (text, name as
/// certified): the input's hash and a re-derivation of every obligation,
/// compared before any solver runs; only regenerated queries are solved
/// (status valid). Without: the certificate's whitelisted queries re-run,
/// status at most "consistent".
CheckOutcome check_certificate(const std::string& cert_text,
                               const std::optional<std::pair<std::string, std::string>>& ir, const Solver& solver,
                               unsigned timeout_ms, const Regenerate& regenerate = {});

}  // namespace fusecert::cert
