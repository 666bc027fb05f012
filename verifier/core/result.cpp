#include "verifier/core/result.h"

namespace fusecert::verifier {

std::string to_string(Verdict v) {
  switch (v) {
    case Verdict::Holds: return "holds";
    case Verdict::Refuted: return "refuted";
    case Verdict::Conditional: return "conditional";
    case Verdict::Inconclusive: return "inconclusive";
  }
  return "inconclusive";
}

std::optional<Verdict> parse_verdict(const std::string& s) {
  if (s == "holds") return Verdict::Holds;
  if (s == "refuted") return Verdict::Refuted;
  if (s == "conditional") return Verdict::Conditional;
  if (s == "inconclusive") return Verdict::Inconclusive;
  return std::nullopt;
}

bool PropositionResult::matches_expected() const {
  if (verdict != expected) return false;
  for (const auto& o : obligations)
    if (!o.as_expected()) return false;
  if (counterexample && !counterexample->replay_confirms) return false;
  if (witness)
    for (const auto& f : witness->figures)
      if (f.range_applies && !f.in_range()) return false;
  return true;
}

}  // namespace fusecert::verifier
