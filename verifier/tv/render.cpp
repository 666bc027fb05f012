// The Alive2-style text report of a validation.
#include <algorithm>
#include <cstdio>

#include "support/diag/render.h"
#include "verifier/tv/validate.h"

namespace fusecert::tv {

namespace {
std::string ms(double t) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f ms", t);
  return b;
}
std::string value(const smt::ModelValue& m) { return m.bits.empty() ? m.value : m.bits + " (" + m.value + ")"; }
}  // namespace

std::string render_text(const Validation& v, const diag::TextRenderer& engine) {
  std::string o;
  o += engine.render(v.diags);
  for (auto& p : v.pairs) {
    o += "validate: @" + p.before_func + " (" + p.before_loc.str() + ") -> @" + p.after_func + " (" + p.after_loc.str() + ")\n";
    o += "  bound: K = " + std::to_string(p.before.k_used);
    if (p.before.k_module > 0) o += " (the module's K = " + std::to_string(p.before.k_module) + ")";
    o += ", unrolled\n";
    o += "  before: ";
    for (size_t i = 0; i < p.before.summary.size(); ++i) o += (i ? ", " : "") + p.before.summary[i];
    o += "\n  after:  ";
    for (size_t i = 0; i < p.after.summary.size(); ++i) o += (i ? ", " : "") + p.after.summary[i];
    o += "\n  abstractions:\n";
    for (auto& a : p.abstractions) o += "    - " + a + "\n";
    for (auto& r : p.results) {
      o += "  " + r.id + " " + r.name + " [" + to_string(r.fmt) + "]: " + r.verdict + " (" +
           std::string(smt::to_string(r.res.answer)) + ", " + ms(r.res.time_ms) +
           (r.res.reason.empty() ? "" : ", " + r.res.reason) + "; " + r.method + ")\n";
      if (r.verdict != "not equivalent") continue;
      o += "    counterexample: element (i, j), any element whose operands take these values:\n";
      for (auto& in : r.inputs) o += "      " + in.name + " = " + value(in) + "\n";
      o += "      (operands not listed: any value; replayed as +0)\n";
      o += "    before: " + value(r.before) + "\n";
      o += "    after:  " + value(r.after) + "\n";
    }
    o += "  verdict: " + p.verdict + "\n";
  }
  return o;
}

diag::Diagnostic verdict_remark(const Validation& v) {
  const std::string file = v.after_file.empty() ? v.before_file : v.after_file;
  if (v.verdict == "error" || v.pairs.empty())
    return diag::remark({file}, "verdict", "error: no verdict; the errors above say why");
  int k = 0;
  for (auto& p : v.pairs) k = std::max(k, p.before.k_used);
  const size_t n = v.pairs.size();
  return diag::remark({file}, "verdict",
                      v.verdict + ": " + std::to_string(n) + (n == 1 ? " function pair" : " function pairs") +
                          ", K = " + std::to_string(k));
}

}  // namespace fusecert::tv
