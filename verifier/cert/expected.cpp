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

std::vector<diag::Diagnostic> verify_diagnostics(const std::vector<Expectation>& expected, const InputReport& r) {
  std::vector<Produced> got;
  auto add = [&](const guards::Diagnostic& d) {
    got.push_back({diag::to_string(d.severity), d.message, d.loc});
    for (const auto& n : d.notes) got.push_back({"note", n.message, n.loc});
  };
  for (const auto& d : r.diags) add(d);
  for (const auto& c : r.candidates)
    for (const auto& d : c.diags) add(d);
  std::vector<diag::Diagnostic> problems;
  auto mismatch = [&](diag::Location at, std::string message) {
    problems.push_back(diag::error(std::move(at), "verify.mismatch", std::move(message)));
  };
  for (const auto& e : expected) {
    if (e.severity == "malformed") {
      mismatch({r.file, e.written_at, 0}, "expected-" + e.kind + " comment without its {{text}}");
      continue;
    }
    bool found = false;
    for (auto& p : got)
      if (!p.used && p.severity == e.severity && p.loc.line == e.line && p.message.find(e.text) != std::string::npos) {
        p.used = found = true;
        break;
      }
    if (!found) mismatch({r.file, e.line, 0}, "expected " + e.severity + " \"" + e.text + "\" was not produced");
  }
  for (const auto& p : got)
    if (!p.used && p.severity == "error") mismatch(p.loc, "unexpected error: " + p.message);
  return problems;
}

}  // namespace fusecert::cert
