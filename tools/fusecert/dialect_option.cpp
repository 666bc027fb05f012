// --dialect FILE.yaml (certify, check-cert, validate): a team's own dialect table
// (format: docs/ir-checking.md, "Dialect tables"), in force beside the
// built-in ones for the whole run. The table is hostile input: parsed
// strictly (verifier/ir/dialect_table.cpp), and a table that does not parse,
// says something fusecert does not know, or gives a dialect a table already
// gives is an input error (exit 2) before any module is read — never a run
// without its semantics.
#include <exception>

#include "support/diag/file_diagnostics.h"
#include "support/files.h"
#include "tools/fusecert/commands.h"
#include "verifier/ir/dialect_table.h"
#include "verifier/ir/dialects.h"

namespace fusecert::cli {

namespace {
/// A table is a few kilobytes; anything near this is not one.
constexpr std::uintmax_t kMaxTableBytes = 1u << 20;
}  // namespace

void add_dialect_option(CLI::App* cmd, std::vector<std::string>& files) {
  cmd->add_option("--dialect", files,
                  "a dialect table (YAML, docs/ir-checking.md \"Dialect tables\") in force beside the built-in "
                  "ones; repeatable. A table that does not parse or is not one is an input error (exit 2)")
      ->type_name("FILE.yaml")
      ->allow_extra_args(false);  // one table per --dialect: `--dialect a.yaml x.mlir` takes x.mlir as an input
}

int load_dialects(const std::string& tool, const std::vector<std::string>& files) {
  for (const auto& f : files) {
    std::string text;
    try {
      text = support::read_file(f, kMaxTableBytes);
    } catch (const std::exception& e) {
      return fail_unreadable(tool, f, e);
    }
    try {
      // An upstream dialect's ops mean what MLIR's typed ops say (the IR
      // layer reads them with isa<>); a table claiming, say, that
      // linalg.generic is SGD would override the proof of its body.
      const std::string d = ir::parse_dialect_table(text, f).dialect;
      if (ir::is_registered_dialect(d))
        return fail_located(tool, {f}, "input.config", "dialect '" + d + "' is one MLIR registers; its ops' semantics come from MLIR, "
                                                      "not from a table (--dialect)");
      ir::add_dialect_table(text, f);
    } catch (const std::exception& e) {
      std::string what = e.what();
      // A table error may end in notes ("\nnote: use `computes:`"): each
      // becomes a note line of the diagnostic.
      std::vector<std::string> notes;
      for (size_t at; (at = what.rfind("\nnote: ")) != std::string::npos; what.erase(at))
        notes.insert(notes.begin(), what.substr(at + 7));
      // parse_dialect_table names the file itself (FILE:LINE:COL: …).
      diag::Diagnostic d = diag::located_text(f, "input.config", what + " (--dialect)");
      for (auto& n : notes) d.note(d.loc, n);
      report(tool, d);
      return diag::code(diag::Exit::InputError);
    }
  }
  return 0;
}

}  // namespace fusecert::cli
