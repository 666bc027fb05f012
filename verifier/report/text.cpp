#include <cstdio>
#include <sstream>

#include "verifier/report/report.h"

namespace fusecert::verifier::report {

namespace {
std::string clip(const std::string& s, size_t n) { return s.size() <= n ? s : s.substr(0, n - 3) + "..."; }
std::string num(double x) {
  char b[64];
  std::snprintf(b, sizeof b, "%.4g", x);
  return b;
}
}  // namespace

std::string render_text(const std::vector<PropositionResult>& rs, bool verbose) {
  std::ostringstream o;
  char line[512];
  std::snprintf(line, sizeof line, "%-4s  %-58s  %-12s  %-12s  %9s\n", "id", "statement", "verdict", "expected", "time");
  o << line << std::string(103, '-') << "\n";
  double total = 0;
  for (const auto& r : rs) {
    std::string mark = r.matches_expected() ? "" : "  <-- differs";
    std::snprintf(line, sizeof line, "%-4s  %-58s  %-12s  %-12s  %7.0fms%s\n", r.id.c_str(),
                  clip(r.title, 58).c_str(), to_string(r.verdict).c_str(), to_string(r.expected).c_str(), r.time_ms,
                  mark.c_str());
    o << line;
    total += r.time_ms;
  }
  std::snprintf(line, sizeof line, "%-95s %7.0fms\n", "total", total);
  o << line;

  for (const auto& r : rs) {
    o << "\n" << r.id << " — " << r.statement << "\n";
    o << "  verdict: " << to_string(r.verdict) << " (assessment: \"" << r.assessment_wording << "\")\n";
    if (r.params_overridden) {
      o << "  parameters overridden:";
      for (const auto& [k, v] : r.params) o << " " << k << "=" << v;
      o << "\n";
    }
    for (const auto& ob : r.obligations) {
      o << (ob.scope.evidence() ? "  obligation " : "  sanity check ") << ob.id << ": " << smt::to_string(ob.smt_answer())
        << " (expected "
        << smt::to_string(ob.smt_expected()) << ", " << num(ob.time_ms) << " ms" << (ob.cached ? ", cached" : "") << ")"
        << (ob.answer != ob.expected ? "  <-- unexpected" : "") << "\n";
      o << "      " << ob.claim << "\n";
      // The approximation disclosure (issue #19): what the answer covers.
      o << "      scope: " << ob.scope.theory << "; symbolic: " << ob.scope.symbolic
        << "; fixed: " << (ob.scope.fixed.empty() ? "nothing" : ob.scope.fixed) << "\n";
      for (const auto& a : ob.scope.assumed) o << "      assumed: " << a << "\n";
      if (!ob.scope.evidence()) o << "      not evidence (holds by construction): " << ob.scope.definitional << "\n";
      if (!ob.reason.empty()) o << "      solver: " << ob.reason << "\n";
      if (ob.smt_premises())
        o << "      premises alone: " << smt::to_string(*ob.smt_premises())
          << (*ob.smt_premises() == smt::Answer::Sat ? " (non-vacuous)" : "  <-- not proved") << "\n";
      if (!ob.premises_reason.empty()) o << "      premises: " << ob.premises_reason << "\n";
      if (verbose) o << ob.query() << "\n";
    }
    if (r.counterexample) {
      const auto& c = *r.counterexample;
      o << "  counterexample (" << c.obligation << "): " << c.summary << "\n";
      for (const auto& v : c.values) {
        if (v.name.rfind("sqrt_", 0) == 0 && !verbose) continue;
        o << "      " << v.name << " = " << v.value;
        if (!v.bits.empty()) o << " [" << v.bits << "]";
        o << "\n";
      }
      for (const auto& [k, v] : c.replay) o << "      replay " << k << " = " << v << "\n";
      o << "      replay in C++ " << (c.replay_confirms ? "confirms" : "DOES NOT confirm") << " the counterexample\n";
    }
    if (r.witness) {
      o << "  witness: " << r.witness->protocol << "\n";
      for (const auto& f : r.witness->figures) {
        o << "      " << f.name << " = " << num(f.value);
        if (f.quoted) o << " (assessment: " << num(*f.quoted) << ")";
        if (f.lo || f.hi)
          o << " range [" << (f.lo ? num(*f.lo) : "-") << ", " << (f.hi ? num(*f.hi) : "-") << "]"
            << (!f.range_applies ? " n/a: parameters overridden" : f.in_range() ? " ok" : " OUT OF RANGE");
        o << "\n";
      }
    }
    for (const auto& n : r.notes) o << "  note: " << n << "\n";
  }
  return o.str();
}

}  // namespace fusecert::verifier::report
