#include "verifier/core/verdict_rule.h"

#include <set>

namespace fusecert::verifier {

namespace {
std::string answers_text(const PropositionResult& out) {
  std::string s;
  for (const auto& o : out.obligations) s += (s.empty() ? "" : ", ") + o.id + " " + std::string(smt::to_string(o.smt_answer()));
  return s;
}
}  // namespace

void apply_verdict_rule(const PropositionSpec& spec, PropositionResult& out) {
  const VerdictRule& rule = spec.rule;
  // The encoder's obligations are exactly the rule's, with the same expected answers.
  std::set<std::string> seen;
  for (const auto& o : out.obligations) {
    const smt::Answer* want = rule.expected_answer(o.id);
    if (!want)
      throw SpecError(spec.id + ": obligation " + o.id + " is outside its verdict rule (rules/propositions.yaml, '" +
                      spec.id + "' obligations)");
    if (*want != o.smt_expected())
      throw SpecError(spec.id + ": obligation " + o.id + " expects " + std::string(smt::to_string(o.smt_expected())) +
                      " in the encoder but " + std::string(smt::to_string(*want)) + " in the rules file");
    if (!seen.insert(o.id).second) throw SpecError(spec.id + ": the encoder discharged " + o.id + " twice");
  }
  for (const auto& [id, _] : rule.obligations)
    if (!seen.count(id)) throw SpecError(spec.id + ": the encoder did not discharge " + id + ", which its verdict rule names");
  for (const auto& [id, _] : rule.sanity)
    if (!seen.count(id)) throw SpecError(spec.id + ": the encoder did not discharge sanity check " + id);

  out.verdict = Verdict::Inconclusive;
  bool open = false;
  for (const auto& o : out.obligations) {
    if (o.decided()) continue;
    open = true;
    if (!smt::is_definite(o.smt_answer()))
      out.notes.push_back("inconclusive: " + o.id + " answered " + std::string(smt::to_string(o.smt_answer())) +
                          (o.reason.empty() ? "" : " (" + o.reason + ")"));
    else if (o.smt_premises() == smt::Answer::Unsat)
      out.notes.push_back("inconclusive (vacuous): " + o.id + " is unsat, but so are its premises alone: it proves nothing");
    else
      out.notes.push_back("inconclusive: " + o.id + " is unsat, but the check that its premises are satisfiable " +
                          (o.smt_premises() ? "answered " + std::string(smt::to_string(*o.smt_premises())) : std::string("was not run")) +
                          (o.premises_reason.empty() ? "" : " (" + o.premises_reason + ")"));
  }
  // A sanity check is not evidence: no case names it. But one that answers
  // otherwise than its construction implies means the encoding is broken, and
  // no verdict is read from a broken encoding.
  for (const auto& o : out.obligations)
    if (rule.is_sanity(o.id) && o.decided() && o.answer != o.expected) {
      open = true;
      out.notes.push_back("inconclusive: sanity check " + o.id + " answered " + std::string(smt::to_string(o.smt_answer())) +
                          ", not " + std::string(smt::to_string(o.smt_expected())) + ": the encoding does not say what it should");
    }
  if (out.counterexample && !out.counterexample->replay_confirms) {
    open = true;
    out.notes.push_back("inconclusive: the C++ replay of " + out.counterexample->obligation +
                        "'s counterexample does not confirm it");
  }
  if (open) return;
  const VerdictCase* match = nullptr;
  for (const auto& c : rule.cases) {
    bool all = true;
    for (const auto& o : out.obligations)
      if (!rule.is_sanity(o.id)) all &= c.answers.at(o.id) == o.smt_answer();
    if (all) match = &c;
  }
  if (!match) {
    out.notes.push_back("inconclusive: the answers (" + answers_text(out) + ") match no case of " + spec.id +
                        "'s verdict rule (rules/propositions.yaml)");
    return;
  }
  if (!match->counterexample.empty() &&
      (!out.counterexample || out.counterexample->obligation != match->counterexample)) {
    out.notes.push_back("inconclusive: the verdict rests on " + match->counterexample +
                        "'s counterexample, which was not replayed in C++");
    return;
  }
  out.verdict = match->verdict;
  if (!match->note.empty()) out.notes.push_back(match->note);
}

}  // namespace fusecert::verifier
