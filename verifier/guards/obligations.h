// The fixed obligation table: for every obligation id, how it is discharged,
// the answer that means "holds", whether it decides the verdict, and in which
// candidate forms a legal certificate must carry it. The one copy of this
// data: the guards (GuardContext::structural / smt refuse an obligation that
// disagrees with it), check-cert (a certificate is checked against it without
// the IR) and docs/certificates.md ("The obligations", compared with this
// table by a unit test in tests/ir) all read it.
#pragma once
#include <optional>
#include <string>

#include "verifier/ir/candidates.h"

namespace fusecert::guards {

/// Candidate forms, as bits (ir::Form order).
inline constexpr unsigned kLinalg = 1u << static_cast<unsigned>(ir::Form::Linalg),
                          kTable = 1u << static_cast<unsigned>(ir::Form::Table),
                          kBufferized = 1u << static_cast<unsigned>(ir::Form::Bufferized),
                          kFused = 1u << static_cast<unsigned>(ir::Form::Fused),
                          kDag = 1u << static_cast<unsigned>(ir::Form::Dag);
inline constexpr unsigned kAllForms = kLinalg | kTable | kBufferized | kFused | kDag;
/// A `fusecert validate` certificate (form fused, consumer recognised as
/// "translation-validation"): it carries the per-result equivalence queries
/// instead of the guards' obligations.
inline constexpr unsigned kTv = 1u << 8;  // above every ir::Form bit

struct ObligationSpec {
  const char* id;        ///< exact id, or a prefix when `prefix` (P9.spread.d<r>)
  bool prefix;
  const char* how;       ///< "structural" | "smt"
  const char* expected;  ///< "holds" (structural) or the solver answer that means the claim holds
  bool decides;          ///< false: informational, never changes the verdict
  unsigned required;     ///< forms whose legal certificates must carry it
};

/// Guard order (the order certify writes them in).
inline constexpr ObligationSpec kObligations[] = {
    // Recognition is a remark (issue #16): the proof that a linalg.generic
    // body equals a reference update names the optimizer; it never decides.
    {"P1.consumer_is_optimizer", false, "smt", "unsat", false, 0},
    // Written only for a function read from buffers as a tensor program
    // whose buffer arguments must be distinct (ir::BufferArgs).
    {"P7.buffer_args", false, "structural", "holds", true, 0},
    {"P1.single_use", false, "structural", "holds", true, kAllForms},
    {"P1.single_producer", false, "structural", "holds", true, kDag},
    {"P1.k_whole", false, "structural", "holds", true, kAllForms},
    {"P1.k_order", false, "smt", "unsat", true, kAllForms},
    {"P2.clip_scope", false, "structural", "holds", true, kAllForms},
    {"P2.recoverable", false, "smt", "unsat", true, 0},
    {"P3.reduce_into_state.out", true, "smt", "unsat", true, 0},
    {"P5.routing", false, "structural", "holds", true, kAllForms},
    {"P5.decay_pass", false, "smt", "unsat", true, 0},
    {"P9.locality", false, "smt", "unsat", true, kAllForms},
    {"P9.spread.d", true, "smt", "sat", false, 0},
    {"P6.accumulator", false, "structural", "holds", true, kAllForms},
    {"P6.state_dtype", false, "structural", "holds", true, 0},
    {"P6.gain_bound", false, "smt", "unsat", false, 0},
    {"P7.inplace_order", false, "structural", "holds", true, kAllForms},
    {"P8.residency", false, "structural", "holds", true, kFused},
    {"P1.module_semantics", false, "structural", "holds", true, 0},
    {"TV.result", true, "smt", "unsat", true, kTv},
};

/// The table entry of `id`, or nullptr for an id fusecert never writes.
inline const ObligationSpec* find_obligation(const std::string& id) {
  for (const auto& s : kObligations) {
    if (s.prefix ? (id.rfind(s.id, 0) == 0 && id.size() > std::string(s.id).size()) : id == s.id) return &s;
  }
  return nullptr;
}

/// The id a legal certificate must carry for `spec` (a prefix entry: its
/// first instance, e.g. TV.result0).
inline std::string required_id(const ObligationSpec& spec) { return spec.prefix ? std::string(spec.id) + "0" : spec.id; }

/// The form bit of a certificate's `candidate.form` string (0 if unknown):
/// the names are ir::to_string(Form)'s, and the bits follow ir::Form.
inline unsigned form_bit(const std::string& form) {
  const std::optional<ir::Form> f = ir::form_from_string(form);
  return f ? 1u << static_cast<unsigned>(*f) : 0;
}

}  // namespace fusecert::guards
