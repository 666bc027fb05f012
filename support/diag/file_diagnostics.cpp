#include "support/diag/file_diagnostics.h"

#include <strings.h>

#include <cerrno>
#include <cstring>

namespace fusecert::diag {

namespace {
/// `cause` without a leading "FILE: " and a leading verb the message already
/// says ("cannot open: ", "cannot read: ").
std::string bare_cause(const std::string& file, std::string cause) {
  if (!file.empty() && cause.rfind(file + ": ", 0) == 0) cause.erase(0, file.size() + 2);
  for (const char* verb : {"cannot open: ", "cannot read: ", "cannot open for writing: "})
    if (cause.rfind(verb, 0) == 0) cause.erase(0, std::string(verb).size());
  return cause;
}
}  // namespace

namespace {
/// One wording for a missing file, whoever met it: the system's
/// (strerror(ENOENT)), not "no such file" here and "no such file or folder"
/// there (docs/diagnostics.md, issue #13).
std::string one_wording(std::string cause) {
  for (const char* said : {"no such file", "no such file or folder", "no such file or directory"})
    if (strcasecmp(cause.c_str(), said) == 0) return std::strerror(ENOENT);
  return cause;
}
}  // namespace

Diagnostic unreadable(const std::string& file, std::string cause) {
  return make(Severity::Error, {file}, "input.unreadable",
              "cannot read: " + one_wording(bare_cause(file, std::move(cause))));
}

Diagnostic unwritable(const std::string& file, std::string cause) {
  return make(Severity::Error, {file}, "output.unwritable", "cannot write: " + bare_cause(file, std::move(cause)));
}

Diagnostic unwritable_cause(const std::string& what, const std::string& fallback) {
  const auto sep = what.find(": ");
  if (sep == std::string::npos || sep == 0) return unwritable(fallback, what);
  return unwritable(what.substr(0, sep), what.substr(sep + 2));
}

Diagnostic located(Location at, std::string rule, std::string message) {
  std::vector<std::string> lines;
  std::string::size_type start = 0, nl;
  while ((nl = message.find('\n', start)) != std::string::npos) {
    lines.push_back(message.substr(start, nl - start));
    start = nl + 1;
  }
  lines.push_back(message.substr(start));
  Diagnostic d = make(Severity::Error, at, std::move(rule), lines.front());
  for (size_t i = 1; i < lines.size(); ++i)
    if (!lines[i].empty()) d.note(at, lines[i]);
  return d;
}

namespace {
/// Reads a decimal number at `s[i]`, advancing i; 0 when there is none.
unsigned number_at(const std::string& s, size_t& i) {
  unsigned v = 0;
  size_t j = i;
  while (j < s.size() && j - i < 9 && s[j] >= '0' && s[j] <= '9') v = v * 10 + static_cast<unsigned>(s[j++] - '0');
  if (j == i || j >= s.size() || s[j] != ':') return 0;
  i = j + 1;
  return v;
}
}  // namespace

Diagnostic located_text(const std::string& file, std::string rule, const std::string& text) {
  Location at{file};
  std::string msg = text;
  if (!file.empty() && text.rfind(file + ":", 0) == 0) {
    size_t i = file.size() + 1;
    if (unsigned line = number_at(text, i)) {
      at.line = line;
      at.col = number_at(text, i);
    }
    msg = text.substr(i);
    if (!msg.empty() && msg[0] == ' ') msg.erase(0, 1);
    if (msg.rfind("error: ", 0) == 0) msg.erase(0, 7);
  }
  return located(std::move(at), std::move(rule), std::move(msg));
}

}  // namespace fusecert::diag
