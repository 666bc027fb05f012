// `solve`: a raw SMT-LIB2 query, solved by the same path as every obligation
// (smt::solve_smt2: fresh Z3 context, process-wide cache by SHA-256).
#include <cstdio>
#include <set>
#include <sstream>

#include <re2/re2.h>

#include "shell/session.h"
#include "verifier/smt/query.h"

namespace fusecert::shell {

using nlohmann::ordered_json;

namespace {
/// Z3's messages end with a newline; a reason is one trimmed string.
std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

/// Functions of one or more arguments declared in `q` (declare-fun NAME (SORT...) ...).
/// The printed model lists constants only (smt::solve_smt2 renders constants),
/// so `solve` names these instead of leaving them out silently.
std::vector<std::string> declared_functions(const std::string& q) {
  // RE2: linear time on the user's query (std::regex recursed on long input).
  static const RE2 re(R"(\(\s*declare-fun\s+(\|[^|]*\||[^\s()]+)\s*\(\s*[^)\s])");
  std::set<std::string> names;
  re2::StringPiece in(q);
  std::string name;
  while (RE2::FindAndConsume(&in, re, &name)) names.insert(name);
  return {names.begin(), names.end()};
}
}  // namespace

Reply Session::cmd_solve(std::string_view text) {
  std::string q(text);
  if (q.find_first_not_of(" \t\r\n") == std::string::npos)
    return error_reply("solve", "usage: solve SMT-LIB2 (e.g. solve (declare-const x Int) (assert (> x 2)))");
  smt::CheckResult r = smt::solve_smt2(q, opt_.timeout_ms);
  r.reason = trimmed(r.reason);
  if (r.answer == smt::Answer::Error)
    return error_reply("solve", "SMT-LIB2 query rejected: " + r.reason,
                       "write declarations and assertions, e.g. (declare-const x Real) (assert (< x 0.0))");
  std::ostringstream o;
  char t[64];
  std::snprintf(t, sizeof t, "%.1f ms%s", r.time_ms, r.cached ? ", cached" : "");
  o << smt::to_string(r.answer) << "   (" << t << ")\n";
  if (!r.reason.empty()) o << "  solver: " << r.reason << "\n";
  ordered_json model = ordered_json::array();
  for (const auto& v : r.model) {
    o << "  " << v.name << " = " << v.value << "   " << v.sort << (v.bits.empty() ? "" : "  bits " + v.bits) << "\n";
    ordered_json m{{"name", v.name}, {"sort", v.sort}, {"value", v.value}};
    if (!v.bits.empty()) m["bits"] = v.bits;
    model.push_back(m);
  }
  std::vector<std::string> funcs = r.answer == smt::Answer::Sat ? declared_functions(q) : std::vector<std::string>{};
  if (!funcs.empty()) {
    o << "  note: the model lists constants only; not shown:";
    for (const auto& f : funcs) o << " " << f;
    o << " (functions)\n";
  }
  bool definite = smt::is_definite(r.answer);
  ordered_json j{{"command", "solve"},
                 {"status", definite ? "ok" : "inconclusive"},
                 {"answer", std::string(smt::to_string(r.answer))},
                 {"model", model},
                 {"time_ms", r.time_ms},
                 {"cached", r.cached}};
  if (!r.reason.empty()) j["reason"] = r.reason;
  if (!funcs.empty()) j["functions_not_shown"] = funcs;
  return Reply{definite ? kAnswered : kInconclusive, o.str(), j};
}

}  // namespace fusecert::shell
