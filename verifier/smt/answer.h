// Solver answers and their SMT-LIB2 spelling.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace fusecert::smt {

/// What a solver said about one query. `Unknown` and `Timeout` are
/// inconclusive: no verdict may be derived from them.
enum class Answer { Sat, Unsat, Unknown, Timeout, Error };

/// "sat", "unsat", "unknown", "timeout", "error".
std::string_view to_string(Answer a);

/// Parses the spelling above; nullopt for anything else.
std::optional<Answer> parse_answer(std::string_view s);

/// True only for Sat and Unsat.
inline bool is_definite(Answer a) { return a == Answer::Sat || a == Answer::Unsat; }

}  // namespace fusecert::smt
