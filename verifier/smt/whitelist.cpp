#include "verifier/smt/whitelist.h"

#include <set>

namespace fusecert::smt {

namespace {

bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool delimiter(char c) { return space(c) || c == '(' || c == ')' || c == ';' || c == '"' || c == '|'; }

}  // namespace

std::optional<std::string> whitelist_problem(const std::string& t, CheckSats n) {
  static const std::set<std::string> kAllowed = {
      "declare-fun", "declare-const",  "declare-sort",    "declare-datatype", "declare-datatypes", "define-fun",
      "define-fun-rec", "define-funs-rec", "define-sort", "assert", "set-logic", "set-info", "check-sat"};
  static const std::set<std::string> kInfo = {":status", ":source", ":smt-lib-version", ":category", ":license",
                                              ":notes"};
  size_t i = 0, commands = 0, check_sats = 0;
  auto at = [&](size_t p) { return " (at byte " + std::to_string(p) + ")"; };
  auto skip_blank = [&] {
    while (i < t.size()) {
      if (space(t[i])) ++i;
      else if (t[i] == ';') {
        while (i < t.size() && t[i] != '\n') ++i;
      } else break;
    }
  };
  auto token = [&] {
    size_t s = i;
    while (i < t.size() && !delimiter(t[i])) ++i;
    return t.substr(s, i - s);
  };
  for (;;) {
    skip_blank();
    if (i >= t.size()) break;
    if (t[i] != '(') return "text outside a command" + at(i) + ": only (command …) forms are allowed";
    const size_t start = i++;
    skip_blank();
    const std::string cmd = token();
    if (cmd.empty()) return "a command without a name" + at(start);
    if (!kAllowed.count(cmd))
      return "(" + cmd + " …) is not allowed" + at(start) +
             ": a query holds only declarations, definitions, assertions and one check-sat";
    if (check_sats > 0) return "(" + cmd + " …) after (check-sat)" + at(start) + ": check-sat must be the last command";
    ++commands;
    if (cmd == "check-sat") ++check_sats;
    if (cmd == "set-info") {
      skip_blank();
      const std::string key = token();
      if (!kInfo.count(key)) return "(set-info " + key + " …) is not allowed" + at(start) + ": only informational keys";
    }
    // The rest of the command, to its closing parenthesis (strings and
    // |quoted symbols| may hold parentheses; "" is an escaped quote).
    int depth = 1;
    while (depth > 0) {
      if (i >= t.size()) return "unterminated (" + cmd + " …" + at(start);
      const char c = t[i];
      if (c == ';') {
        while (i < t.size() && t[i] != '\n') ++i;
        continue;
      }
      if (c == '"') {
        for (++i;; ++i) {
          if (i >= t.size()) return "unterminated string" + at(start);
          if (t[i] == '"') {
            if (i + 1 < t.size() && t[i + 1] == '"') ++i;
            else break;
          }
        }
        ++i;
        continue;
      }
      if (c == '|') {
        const size_t e = t.find('|', i + 1);
        if (e == std::string::npos) return "unterminated |symbol|" + at(start);
        i = e + 1;
        continue;
      }
      if (c == '(') ++depth;
      else if (c == ')') --depth;
      ++i;
    }
    if (cmd == "check-sat") {
      // (check-sat) takes no arguments.
      size_t j = start + 1;
      while (j < t.size() && space(t[j])) ++j;
      j += 9;  // "check-sat"
      while (j < t.size() && space(t[j])) ++j;
      if (j + 1 != i) return "(check-sat …) with arguments" + at(start);
    }
  }
  if (n == CheckSats::exactly_one && check_sats != 1)
    return std::string(check_sats == 0 ? "no (check-sat)" : "more than one (check-sat)") +
           ": a query has exactly one, as its last command";
  (void)commands;
  return std::nullopt;
}

}  // namespace fusecert::smt
