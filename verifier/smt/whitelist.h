// The SMT-LIB2 fusecert will hand to a solver: declarations, definitions,
// assertions and one check-sat, nothing else. A query read from a
// certificate (or typed into the shell) is input; SMT-LIB2 has commands with
// effects outside the query — (set-option :regular-output-channel "/path")
// with (echo …) writes any file, (exit) / (reset) / (push) / (pop) / get-*
// change what the answer means — and none of them may reach a solver.
#pragma once
#include <optional>
#include <string>

namespace fusecert::smt {

/// How many check-sat commands a query must carry.
enum class CheckSats { exactly_one, at_most_one };

/// Why `text` is not a whitelisted query, or nullopt when it is. Allowed
/// top-level commands: declare-fun, declare-const, declare-sort,
/// declare-datatype(s), define-fun, define-fun-rec, define-funs-rec,
/// define-sort, assert, set-logic, set-info with a purely informational
/// keyword (:status :source :smt-lib-version :category :license :notes),
/// and check-sat — once (`exactly_one`) or at most once, as the last
/// command. Comments and whitespace may appear anywhere; anything else
/// (set-option, echo, exit, reset, push, pop, get-*, include, eval,
/// check-sat-using, …, or text outside a command) is refused.
std::optional<std::string> whitelist_problem(const std::string& text, CheckSats n = CheckSats::exactly_one);

}  // namespace fusecert::smt
