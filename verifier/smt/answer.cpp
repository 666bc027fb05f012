#include "verifier/smt/answer.h"

namespace fusecert::smt {

std::string_view to_string(Answer a) {
  switch (a) {
    case Answer::Sat: return "sat";
    case Answer::Unsat: return "unsat";
    case Answer::Unknown: return "unknown";
    case Answer::Timeout: return "timeout";
    case Answer::Error: return "error";
  }
  return "error";
}

std::optional<Answer> parse_answer(std::string_view s) {
  if (s == "sat") return Answer::Sat;
  if (s == "unsat") return Answer::Unsat;
  if (s == "unknown") return Answer::Unknown;
  if (s == "timeout") return Answer::Timeout;
  if (s == "error") return Answer::Error;
  return std::nullopt;
}

}  // namespace fusecert::smt
