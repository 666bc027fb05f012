#include "support/diag/file_diagnostics.h"

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

Diagnostic unreadable(const std::string& file, std::string cause) {
  return make(Severity::Error, {file}, "input.unreadable", "cannot read: " + bare_cause(file, std::move(cause)));
}

Diagnostic unwritable(const std::string& file, std::string cause) {
  return make(Severity::Error, {file}, "output.unwritable", "cannot write: " + bare_cause(file, std::move(cause)));
}

}  // namespace fusecert::diag
