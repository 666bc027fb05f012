// fusecert certify FILE... [--split-input-file] [--out DIR] [--format text|json|sarif]
// Finds every weight-gradient producer → consumer candidate, runs the guards
// and writes one deterministic certificate per candidate into --out.
// Exit (support/diag/exit_code.h): 0 all legal, 1 any illegal, 2 an input or
// write error, 3 any inconclusive candidate (and none illegal).
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>

#include "support/diag/file_diagnostics.h"
#include "support/confined_files.h"
#include "support/diag/render.h"
#include "support/files.h"
#include "tools/fusecert/certify_tree.h"
#include "tools/fusecert/commands.h"
#include "tools/fusecert/progress.h"
#include "verifier/cert/certify.h"
#include "verifier/cert/expected.h"
#include "verifier/ir/split.h"

#ifndef FUSECERT_VERSION
#define FUSECERT_VERSION "0"
#endif

namespace fusecert::cli {

namespace {

/// --verify-diagnostics: each module (or split) against its own
/// expected-* comments.
int verify_diagnostics(const std::vector<std::string>& files, bool split, unsigned timeout_ms) {
  size_t checked = 0;
  std::vector<diag::Diagnostic> problems;
  for (const auto& f : files) {
    std::string text;
    try {
      text = support::read_file(f);
    } catch (const std::exception& e) {
      problems.push_back(diag::unreadable(f, e.what()));
      continue;
    }
    std::vector<ir::Split> parts = split ? ir::split_input(text) : std::vector<ir::Split>{{0, 1, text}};
    std::vector<cert::InputReport> reports = cert::certify_path(f, timeout_ms, split);
    for (size_t k = 0; k < reports.size(); ++k) {
      const ir::Split& part = k < parts.size() ? parts[k] : parts.back();
      auto p = cert::verify_diagnostics(cert::parse_expectations(part.text, part.first_line), reports[k]);
      problems.insert(problems.end(), p.begin(), p.end());
      ++checked;
    }
  }
  const diag::TextRenderer engine({}, "fusecert certify");
  std::cout << engine.render(problems);
  std::cout << engine.render(diag::remark(
      {}, "summary",
      (problems.empty() ? "diagnostics as expected" : std::to_string(problems.size()) + " mismatch(es)") + " in " +
          std::to_string(checked) + " module(s)"));
  return problems.empty() ? 0 : 1;
}

}  // namespace

void add_certify_command(CLI::App& app, int& exit_code) {
  struct Opts {
    std::vector<std::string> files, dialects, assumes;
    std::string out, format = "text";
    unsigned timeout_ms = 20000;
    bool split = false, verify = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = app.add_subcommand(
      "certify", "Check every wgrad producer -> optimizer fusion candidate of .mlir files and write legality "
                 "certificates (no FILE: the embedded two-layer MLP training step)");
  cmd->add_option("files", o->files, ".mlir inputs (MLIR 19: func/arith/math/tensor/memref/linalg, generic-form tessera.*)");
  cmd->add_option("--out", o->out, "folder for the certificates (one JSON file per candidate; plain FILE inputs write no index.json, tree runs add DIR/index.json)");
  cmd->add_option("--format", o->format, "diagnostics format")->check(CLI::IsMember({"text", "json", "sarif"}));
  cmd->add_option("--timeout-ms", o->timeout_ms, "per SMT query; 0 = no limit (default 20000)");
  cmd->add_flag("--split-input-file", o->split,
                "cut each FILE on '// -----' lines (as mlir-opt does) and check every split as its own module");
  cmd->add_flag("--verify-diagnostics", o->verify,
                "check the diagnostics against the files' `// expected-error {{...}}` comments (as mlir-opt "
                "-verify-diagnostics does): exit 0 when every one is produced and every error expected, else 1");
  add_dialect_option(cmd, o->dialects);
  add_assume_option(cmd, o->assumes);
  auto tree = add_certify_tree_options(cmd);  // folders, globs, --shard, --merge: certify_tree.cpp
  cmd->callback([o, tree, &exit_code]() {
    if (int rc = load_assumptions("fusecert certify", o->assumes, o->files.empty() ? "" : o->files.front())) {
      exit_code = rc;
      return;
    }
    if (int rc = load_dialects("fusecert certify", o->dialects)) {
      exit_code = rc;
      return;
    }
    if (tree->active(o->files)) {
      if (o->split || o->verify) {
        // The tree index keys its entries by file; splits are not in it yet.
        exit_code = fail("fusecert certify", "--split-input-file and --verify-diagnostics take FILE inputs, not a "
                                             "tree run (folders, globs, -r, --shard, --merge, --timestamp)");
        return;
      }
      exit_code = run_certify_tree(o->files, o->out, o->format, o->timeout_ms, *tree);
      return;
    }
    // Inputs in byte order, once each, whatever order they were given in: the
    // report and the exit code are the same bytes for `a b` and `b a`
    // (issue #7, determinism; tree runs sort the same way).
    std::sort(o->files.begin(), o->files.end());
    o->files.erase(std::unique(o->files.begin(), o->files.end()), o->files.end());
    if (o->verify) {
      if (o->files.empty()) {
        exit_code = fail("fusecert certify", "--verify-diagnostics needs FILE inputs");
        return;
      }
      exit_code = verify_diagnostics(o->files, o->split, o->timeout_ms);
      return;
    }
    std::vector<cert::InputReport> reports;
    if (o->files.empty())
      reports.push_back(cert::certify_text(cert::embedded_training_step(), cert::kEmbeddedName, o->timeout_ms));
    {
      Progress progress("fusecert certify");
      for (size_t i = 0; i < o->files.size(); ++i) {
        progress.step(o->files[i], i + 1, o->files.size());
        for (auto& r : cert::certify_path(o->files[i], o->timeout_ms, o->split)) reports.push_back(std::move(r));
      }
    }
    int rc = cert::exit_code(reports);
    if (!o->out.empty()) {
      std::set<std::string> written, stems;
      for (auto& r : reports) {
        stems.insert(cert::certificate_stem(r.file));
        for (size_t i = 0; i < r.candidates.size(); ++i) {
          const std::string name = cert::certificate_name(r, i);
          written.insert(name);
          try {
            support::write_file_confined(o->out, name, cert::dump(cert::certificate(r, i, FUSECERT_VERSION)));
          } catch (const std::exception& e) {
            rc = fail_unwritable("fusecert certify", (std::filesystem::path(o->out) / name).string(), e);
          }
        }
      }
      // Re-certifying into the same folder: a certificate of an input
      // certified now whose candidate no longer exists (moved, gone, or the
      // module no longer parses) is removed, and said so — never left to
      // pass for the module as it is now.
      std::error_code ec;
      std::vector<std::string> stale;
      for (std::filesystem::directory_iterator it(o->out, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (written.count(name) || !it->is_regular_file(ec) || it->is_symlink(ec)) continue;
        for (auto& stem : stems)
          if (cert::is_certificate_name_of(stem, name)) {
            stale.push_back(name);
            break;
          }
      }
      std::sort(stale.begin(), stale.end());
      for (auto& name : stale) {
        try {
          support::remove_file_confined(o->out, name);
          report("fusecert certify",
                 diag::remark({}, "cert.stale_removed",
                              "removed the stale certificate " + (std::filesystem::path(o->out) / name).string() +
                                  " (its candidate is not in the input as certified now)"));
        } catch (const std::exception& e) {
          rc = fail_unwritable("fusecert certify", (std::filesystem::path(o->out) / name).string(), e);
        }
      }
    }
    if (o->format == "json") std::cout << cert::render_json(reports, FUSECERT_VERSION).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    else if (o->format == "sarif") std::cout << cert::render_sarif(reports, FUSECERT_VERSION).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    else std::cout << cert::render_text(reports);
    exit_code = rc;
  });
}

}  // namespace fusecert::cli
