#include "verifier/cert/expected.h"

#include <regex>

namespace fusecert::cert {

std::vector<Expectation> parse_expectations(const std::string& text, unsigned first_line) {
  // As mlir-opt's verifier reads them: blanks are allowed around `@N`.
  static const std::regex re(R"(expected-(error|warning|remark|note) *(@(above|below|[+-][0-9]+))? *(\{\{(.*)\}\})?)");
  std::vector<Expectation> out;
  unsigned line = first_line;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string l = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    size_t c = l.find("//");
    std::smatch m;
    if (c != std::string::npos) {
      std::string comment = l.substr(c);
      if (std::regex_search(comment, m, re)) {
        Expectation e;
        e.severity = m[4].matched ? m[1].str() : "malformed";
        e.kind = m[1].str();
        e.written_at = line;
        e.line = line;
        if (m[3].matched) {
          const std::string at = m[3].str();
          if (at == "above") e.line = line - 1;
          else if (at == "below") e.line = line + 1;
          else e.line = static_cast<unsigned>(static_cast<long>(line) + std::stol(at));
        }
        e.text = m[5].str();
        out.push_back(e);
      }
    }
    if (nl == std::string::npos) break;
    pos = nl + 1;
    ++line;
  }
  return out;
}

namespace {

struct Produced {
  std::string severity, message;
  ir::Loc loc;
  bool used = false;
};

}  // namespace

std::vector<std::string> verify_diagnostics(const std::vector<Expectation>& expected, const InputReport& r) {
  std::vector<Produced> got;
  auto add = [&](const guards::Diagnostic& d) {
    got.push_back({diag::to_string(d.severity), d.message, d.loc});
    for (const auto& n : d.notes) got.push_back({"note", n.message, n.loc});
  };
  for (const auto& d : r.diags) add(d);
  for (const auto& c : r.candidates)
    for (const auto& d : c.diags) add(d);
  std::vector<std::string> problems;
  for (const auto& e : expected) {
    if (e.severity == "malformed") {
      problems.push_back(r.file + ":" + std::to_string(e.written_at) + ": expected-" + e.kind +
                         " comment without its {{text}}");
      continue;
    }
    bool found = false;
    for (auto& p : got)
      if (!p.used && p.severity == e.severity && p.loc.line == e.line && p.message.find(e.text) != std::string::npos) {
        p.used = found = true;
        break;
      }
    if (!found)
      problems.push_back(r.file + ":" + std::to_string(e.line) + ": expected " + e.severity + " \"" + e.text +
                         "\" was not produced");
  }
  for (const auto& p : got)
    if (!p.used && p.severity == "error")
      problems.push_back(p.loc.str() + ": unexpected error: " + p.message);
  return problems;
}

}  // namespace fusecert::cert
