#include "verifier/cert/certify.h"

#include "verifier/model/hyper.h"

#include <z3.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <thread>
#include <variant>

#include "support/diag/file_diagnostics.h"
#include "support/diag/exit_code.h"
#include "support/diag/render.h"
#include "support/diag/report_format.h"
#include "support/diag/sarif.h"
#include "support/files.h"
#include "support/sha256.h"
#include "verifier/ir/attributes.h"
#include "verifier/ir/opaque_attrs.h"
#include "verifier/ir/candidates.h"
#include "verifier/ir/dot_types.h"
#include "verifier/ir/dialect_table.h"
#include "verifier/ir/split.h"

namespace fusecert::cert {

using nlohmann::json;

bool InputReport::has_errors() const {
  if (diag::any_error(diags)) return true;
  for (auto& c : candidates)
    if (diag::any_error(c.diags)) return true;
  return false;
}

bool is_input_rule(const std::string& rule) { return rule.rfind("input.", 0) == 0; }

std::string proposition_of(const std::string& rule) {
  const auto dot = rule.find('.');
  if (dot == std::string::npos || is_input_rule(rule)) return "";
  return rule.substr(0, dot);
}

namespace {

/// An op MLIR knows no place of (`loc(unknown)`, a fused or name location
/// without a file) is still in `file`: its diagnostics, notes and verdict
/// line are reported at the file, as `FILE: error: …`, never as a
/// diagnostic about no file (issue #13; SARIF then names the file too).
void name_unknown_locations(InputReport& r, const std::string& file) {
  const auto fill = [&](ir::Loc& l) {
    if (l.file.empty()) l.file = file;
  };
  const auto fill_diag = [&](diag::Diagnostic& d) {
    fill(d.loc);
    for (auto& n : d.notes) fill(n.loc);
  };
  for (auto& d : r.diags) fill_diag(d);
  for (auto& c : r.candidates) {
    fill(c.producer_loc);
    fill(c.consumer_loc);
    for (auto& d : c.diags) fill_diag(d);
  }
}

/// One module's text (a whole file, or a split starting at `first_line`).
InputReport certify_module(const std::string& text, const std::string& file, unsigned first_line,
                           unsigned timeout_ms) {
  InputReport r;
  r.file = file;
  r.sha256 = support::sha256_hex(text);
  ir::LoadResult lr = ir::parse_mlir(text, file);
  ir::shift_lines(lr, file, first_line);
  for (auto& d : lr.diags) {
    r.diags.push_back(d);
    if (r.diags.back().loc.file.empty()) r.diags.back().loc.file = file;
  }
  if (!lr.module) return r;
  r.parsed = true;
  const ir::DialectTables& tables = ir::dialects();
  ir::canonicalize_dtypes(*lr.module, tables);
  ir::mark_refused(*lr.module, tables);  // a refused attribute never feeds a guard (F6)
  const ir::Module& m = *lr.module;
  // NaN, ±inf (an overflowed literal) as a hyper-parameter: rejected here, at
  // the boundary, whether or not a guard reads it (an input error makes every
  // verdict of the module fail closed, below).
  for (const ir::Op& op : m.ops)
    for (const auto& [key, a] : op.attrs) {
      if (a.kind != ir::Attr::Kind::Float && a.kind != ir::Attr::Kind::Int) continue;
      // A hyper-parameter under its dialect's spelling (ir::key_of).
      const char* meaning = nullptr;
      for (const char* k : model::kHyperKeys)
        if (key == ir::key_of(op, k)) meaning = k;
      if (!meaning) continue;
      if (auto why = model::hyper_value_problem(key, a.num))
        r.diags.push_back(diag::error(op.loc, "input.hyper",
                                      op.name + ": the hyper-parameter " + *why + " (" + a.text + "); give a finite value"));
    }
  std::vector<ir::Candidate> no_optimizer;
  auto cands = ir::find_candidates(m, &no_optimizer);
  // An unknown op's error (on some candidate's slice) makes inconclusive the
  // candidates whose slice holds it, as an attribute error does: an op that
  // neither feeds nor reads a candidate cannot change its legality (another
  // layer's optimizer in the same step says nothing about this one's).
  std::vector<std::pair<size_t, int>> unknown_errors;  // (index in r.diags, op id)
  for (auto& [op_id, d] : ir::unknown_op_diags(m, cands, no_optimizer)) {
    if (!cands.empty() && d.is_error()) unknown_errors.emplace_back(r.diags.size(), op_id);
    r.diags.push_back(std::move(d));
  }
  for (auto& c : no_optimizer) {
    // A gradient that reaches an op no table lists has not been shown to
    // reach no optimizer: that op may be one (tessera.nesterov before the
    // table listed it). The remark names it; its input.unknown_op error
    // says why nothing is certified.
    const std::vector<int> reached = ir::unknown_ops_reached(m, c.grad);
    if (reached.empty()) {
      r.diags.push_back(diag::remark(m.ops[c.producer].loc, "input.no_candidate",
                                     "weight-gradient producer " + m.ops[c.producer].name +
                                         ": its gradient reaches no optimizer, so there is nothing to fuse into its "
                                         "epilogue"));
      continue;
    }
    std::string names;
    for (int id : reached) {
      const ir::Op& u = m.ops[id];
      const ir::Attr* callee = u.opaque_call ? u.attr("callee") : nullptr;
      names += (names.empty() ? "" : ", ") + ("'" + u.name + "'" + (callee ? " of " + callee->text : std::string()) +
                                              " at " + u.loc.str());
    }
    r.diags.push_back(diag::remark(m.ops[c.producer].loc, "input.no_candidate",
                                   "weight-gradient producer " + m.ops[c.producer].name + ": its gradient reaches " +
                                       names + ", which no dialect table lists (fusecert has no semantics for " +
                                       (reached.size() == 1 ? "it" : "them") +
                                       "): it may be the gradient's optimizer, so whether there is anything to fuse "
                                       "into the epilogue is not known"));
  }
  // The attribute boundary: an op a dialect table lists is read only through
  // its entry. A value of the wrong kind for a key the entry names is an
  // input error on every listed op (issue #15: a wrong kind is an input
  // error at the boundary; the input is malformed wherever it is). A key
  // the entry does not name is an error on an op of a candidate's slice
  // (ir::candidate_slice: it may change what the guards read) and a remark
  // off every slice (a discardable attribute there changes no verdict).
  // Each error makes inconclusive the candidates whose slice holds the op,
  // not the whole module: a bad key on one candidate's optimizer says
  // nothing about another's.
  // Collectives' keys are checked by collective_key_problems (P3).
  // Where no candidate was found, an op matters where a candidate may hide
  // (as for unknown ops): on the slice of a weight gradient that reaches no
  // optimizer, or computing the operands of an optimizer a table knows (a
  // producer whose bad attribute hid it: `transposeA = "true"`).
  std::vector<std::vector<bool>> slices;
  for (const auto& c : cands) slices.push_back(ir::candidate_slice(m, {c}));
  std::vector<bool> matters(m.ops.size(), false);
  std::vector<bool> unreadable_dot(m.ops.size(), false);
  {
    std::vector<ir::Candidate> hidden = no_optimizer;
    for (const ir::Op& op : m.ops)
      if (const ir::OpSpec* s = tables.find(op.name);
          s && (s->role == ir::OpRole::Optimizer || s->role == ir::OpRole::Fused)) {
        ir::Candidate h;
        h.consumer = op.id;
        hidden.push_back(h);
      }
    matters = ir::candidate_slice(m, hidden);
    for (const auto& sl : slices)
      for (size_t i = 0; i < sl.size(); ++i) matters[i] = matters[i] || sl[i];
    // A contraction whose dimension numbers fusecert cannot read (they
    // decide whether it is a weight-gradient producer) may be a producer it
    // cannot see: its attribute errors count wherever it is.
    for (const ir::Op& op : m.ops) {
      const ir::OpSpec* s = tables.find(op.name);
      if (!s || s->role != ir::OpRole::Contraction) continue;
      for (const auto& [key, spec] : s->attrs) {
        if (std::find(spec.kinds.begin(), spec.kinds.end(), ir::AttrKind::DotDims) == spec.kinds.end()) continue;
        std::string why;
        const ir::Attr* a = op.attr(key);
        if (!a || !ir::parse_dot_dimensions(*a, why)) matters[op.id] = unreadable_dot[op.id] = true;
      }
    }
  }
  std::vector<std::pair<size_t, int>> attr_errors = unknown_errors;  // (index in r.diags, op id)
  for (const ir::Op& op : m.ops) {
    const ir::OpSpec* spec = tables.find(op.name);
    if (!spec || spec->role == ir::OpRole::Collective) continue;
    std::vector<diag::Diagnostic> found = ir::check_attributes(op, *spec, *tables.table_of(op.name));
    for (auto& d : found) {
      const bool on = matters[op.id] || d.rule == "input.attr.kind";
      // A contraction whose dimension numbers cannot be read is malformed
      // input wherever it is, as one whose dimension numbers contradict its
      // types (ir::dot_type_diags): a module error, every candidate fails
      // closed, not only those whose slice holds it.
      if (on && !unreadable_dot[op.id]) attr_errors.emplace_back(r.diags.size(), op.id);
      if (!on) {
        d.severity = diag::Severity::Remark;
        d.message = d.message.substr(0, d.message.find("; an unknown key")) +
                    "; the op is off every candidate's slice, so it changes no verdict";
      }
      r.diags.push_back(d);
    }
  }
  // A dot_general whose dimension numbers contradict its types (out of
  // range, repeated, unpaired, extents or result that differ): malformed
  // input wherever it is, forward dot or weight gradient (ir::dot_type_diags).
  // A module error: every candidate of the module fails closed.
  for (auto& d : ir::dot_type_diags(m)) r.diags.push_back(d);
  // An unlisted op that looks like a fused step is a candidate (below).
  const bool unlisted_fused =
      std::any_of(m.ops.begin(), m.ops.end(), [&](const ir::Op& op) { return ir::is_unlisted_fused(m, op); });
  if (cands.empty() && !unlisted_fused)
    r.diags.push_back(diag::warning(ir::Loc{file, first_line > 1 ? first_line : 0, 0}, "input.no_candidate",
                                    "no weight-gradient producer → optimizer candidate found (looked for "
                                    "linalg.matmul_transpose_a, linalg.batch_matmul_transpose_a, linalg.matmul fed by "
                                    "linalg.transpose, K-major "
                                    "contraction linalg.generic, tessera.matmul {transposeA = true}, "
                                    "tessera.training.wgrad_* and stablehlo.dot_general contracting the token axis "
                                    "of both operands)"));
  // Candidates are independent: check them on up to 4 threads (results keep
  // program order; every shared table below verifier/smt is locked).
  r.candidates.resize(cands.size());
  // An exception out of a guard (a solver error, say) is that candidate's
  // failure, reported as an input error, never std::terminate from a worker.
  std::vector<std::string> failed(cands.size());
  auto check_one = [&](size_t i) {
    try {
      r.candidates[i] = guards::check_candidate(m, cands[i], timeout_ms);
    } catch (const std::exception& e) {
      failed[i] = e.what();
    } catch (...) {
      failed[i] = "unknown exception";
    }
  };
  const size_t nthreads = std::min<size_t>({cands.size(), 4, std::max(1u, std::thread::hardware_concurrency())});
  if (nthreads <= 1) {
    for (size_t i = 0; i < cands.size(); ++i) check_one(i);
  } else {
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (size_t t = 0; t < nthreads; ++t)
      pool.emplace_back([&] {
        for (size_t i = next++; i < cands.size(); i = next++) check_one(i);
      });
    for (auto& th : pool) th.join();
  }
  for (size_t i = 0; i < cands.size(); ++i) {
    if (failed[i].empty()) continue;
    const ir::Op& p = m.ops[cands[i].producer];
    guards::CandidateReport& c = r.candidates[i];
    c = guards::CandidateReport{};
    c.cand = cands[i];
    c.producer_op = p.name;
    c.producer_loc = p.loc;
    c.function = p.func >= 0 && p.func < static_cast<int>(m.funcs.size()) ? m.funcs[p.func].name : "";
    c.verdict = "inconclusive";
    r.diags.push_back(diag::error(p.loc, "input.internal",
                                  "internal error while checking the candidate " + p.name + " at " +
                                      std::to_string(p.loc.line) + ":" + std::to_string(p.loc.col) + ": " + failed[i] +
                                      " (no verdict; please report it)"));
  }
  // An op of a table dialect the table has no entry for, whose types show a
  // fused weight-gradient step (ir::is_unlisted_fused: X [K, M], dY [K, N],
  // W [M, N] in, W's type out): a candidate fusecert cannot see into.
  // Inconclusive, never "no candidate" (F3 of the #15 acceptance run: an
  // unknown tessera.training.wgrad_lion gave exit 0). A warning, not an
  // error: the input is well formed, its semantics are not given (exit 3).
  for (const ir::Op& op : m.ops) {
    if (!ir::is_unlisted_fused(m, op)) continue;
    r.diags.erase(std::remove_if(r.diags.begin(), r.diags.end(),
                                 [&](const diag::Diagnostic& d) {
                                   return d.rule == "input.unknown_op" && d.loc.line == op.loc.line &&
                                          d.loc.col == op.loc.col && !d.is_error();
                                 }),
                  r.diags.end());
    const ir::DialectTable* table = ir::table_of(op);
    guards::CandidateReport c;
    c.cand.form = ir::Form::Fused;
    c.cand.func = op.func;
    c.cand.producer = c.cand.consumer = op.id;
    c.producer_op = c.consumer_op = op.name;
    c.producer_loc = c.consumer_loc = op.loc;
    c.function = op.func >= 0 && op.func < static_cast<int>(m.funcs.size()) ? m.funcs[op.func].name : "";
    guards::Obligation o;
    o.id = "P1.single_use";
    o.proposition = "P1";
    o.how = "structural";
    o.claim = "the weight gradient has exactly one use, and it is an optimizer";
    o.expected = "holds";
    o.answer = "missing";
    o.evidence = op.name + " has no entry in " + table->source +
                 "; its operand and result types are those of a fused weight-gradient step (X [K, M], dY [K, N], "
                 "W [M, N] -> W's type), so it may compute and consume a weight gradient fusecert cannot see";
    c.obligations.push_back(o);
    c.verdict = guards::decide(c.obligations);
    diag::Diagnostic d = diag::warning(op.loc, "P1.single_use",
                                       "cannot decide whether " + op.name + " fuses an optimizer into a weight-gradient "
                                       "epilogue legally: " + table->source + " has no entry for it, and its types "
                                       "are those of a fused weight-gradient step (X, dY and W in, an updated W "
                                       "out); inconclusive, never \"no candidate\"");
    d.notes.push_back({op.loc, "checkable with an entry for " + op.name + " in " + table->source +
                                   " (role fused, operands naming X, dY, W and its state, and a `body:` a reference "
                                   "update fusecert has)" +
                                   (table->lowering.empty() ? "" : ", or on the IR lowered with " + table->lowering)});
    c.diags.push_back(d);
    r.candidates.push_back(std::move(c));
  }
  // Collectives with keys fusecert cannot model, outside the ones the P3
  // guard reported on a candidate: fail closed like an unknown op.
  {
    std::vector<int> reported;
    for (auto& c : r.candidates) reported.insert(reported.end(), c.collectives.begin(), c.collectives.end());
    // With no candidate in the module there is no state to reduce and no
    // verdict to poison: the collective is off every slice, a remark.
    for (auto& d : ir::collective_key_diags(m, reported)) {
      if (cands.empty()) {
        d.severity = diag::Severity::Remark;
        d.message = d.message.substr(0, d.message.find("; fusecert has no semantics")) +
                    "; the module has no candidate, so the collective changes no verdict";
      }
      r.diags.push_back(d);
    }
  }
  // Unknown ops (and collectives fusecert cannot model) make every verdict in
  // the module unsafe to trust: fail closed. The certificate carries it as an
  // obligation (P1.module_semantics, missing), so a legal candidate becomes
  // inconclusive by the verdict rule itself and check-cert re-derives the
  // same verdict; an illegal one stays illegal.
  std::vector<bool> attr_error(r.diags.size(), false);
  for (const auto& [i, op] : attr_errors) attr_error[i] = true;
  std::vector<const guards::Diagnostic*> module_errors;
  for (size_t i = 0; i < r.diags.size(); ++i)
    if (is_input_rule(r.diags[i].rule) && r.diags[i].is_error() && (i >= attr_error.size() || !attr_error[i]))
      module_errors.push_back(&r.diags[i]);
  for (size_t ci = 0; ci < r.candidates.size(); ++ci) {
    auto& c = r.candidates[ci];
    std::vector<const guards::Diagnostic*> input_errors = module_errors;
    for (const auto& [i, op] : attr_errors)
      if (ci < slices.size() && slices[ci][op]) input_errors.push_back(&r.diags[i]);
    if (input_errors.empty()) continue;
    {
      guards::Obligation o;
      o.id = "P1.module_semantics";
      o.proposition = "P1";
      o.how = "structural";
      o.claim = "every op in the module has semantics fusecert models (an op without them may read or write "
                "any buffer, so single use and in-place order cannot be established)";
      o.expected = "holds";
      o.answer = "missing";
      const guards::Diagnostic& first = *input_errors.front();
      o.evidence = std::to_string(input_errors.size()) + " input error(s) in the module; the first, at " +
                   std::to_string(first.loc.line) + ":" + std::to_string(first.loc.col) + ": " + first.message;
      c.obligations.push_back(o);
      const bool was_legal = c.verdict == "legal";
      c.verdict = guards::decide(c.obligations);
      if (was_legal && c.verdict != "legal") c.residency.clear();
    }
  }
  name_unknown_locations(r, file);
  return r;
}

/// The bytes of `path`, or the report that says why they cannot be read.
std::variant<std::string, InputReport> read_input(const std::string& path) {
  std::error_code ec;
  auto st = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(st)) {
    // A symlink loop or a permission error is not "no such file": say why.
    InputReport r;
    r.file = path;
    std::string why = ec && ec != std::errc::no_such_file_or_directory ? ec.message() : "no such file";
    r.diags.push_back(diag::unreadable(path, why));
    return r;
  }
  if (!std::filesystem::is_regular_file(st)) {
    // A FIFO, socket or device would block or never end (fixtures/bad: fifo.mlir).
    InputReport r;
    r.file = path;
    r.diags.push_back(diag::unreadable(path, "not a regular file"));
    return r;
  }
  auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > ir::kMaxInputBytes) {
    InputReport r;
    r.file = path;
    r.diags.push_back(diag::error(ir::Loc{path, 0, 0}, "input.bounds",
                                  "input is " + std::to_string(size >> 20) + " MiB; fusecert accepts at most " +
                                      std::to_string(ir::kMaxInputBytes >> 20) + " MiB per module (split the module)"));
    return r;
  }
  std::string text;
  try {
    text = support::read_file(path);
  } catch (const std::exception& e) {
    InputReport r;
    r.file = path;
    r.diags.push_back(diag::unreadable(path, e.what()));
    return r;
  }
  return text;
}

}  // namespace

InputReport certify_text(const std::string& text, const std::string& file, unsigned timeout_ms) {
  return certify_module(text, file, 1, timeout_ms);
}

InputReport certify_file(const std::string& path, unsigned timeout_ms) {
  auto in = read_input(path);
  if (auto* r = std::get_if<InputReport>(&in)) return std::move(*r);
  return certify_text(std::get<std::string>(in), path, timeout_ms);
}

std::vector<InputReport> certify_splits(const std::string& text, const std::string& file, unsigned timeout_ms) {
  const std::string sha = support::sha256_hex(text);
  std::vector<ir::Split> splits = ir::split_input(text);
  std::vector<InputReport> out;
  if (splits.size() > ir::kMaxSplits) {
    InputReport r;
    r.file = file;
    r.sha256 = sha;
    r.diags.push_back(diag::error(ir::Loc{file, 0, 0}, "input.bounds",
                                  std::to_string(splits.size()) + " splits ('" + ir::kSplitMarker +
                                      "' lines); fusecert accepts at most " + std::to_string(ir::kMaxSplits) +
                                      " per file (split the file)"));
    out.push_back(std::move(r));
    return out;
  }
  for (const ir::Split& s : splits) {
    InputReport r;
    if (s.text.find_first_not_of(" \t\r\n") == std::string::npos) {
      // mlir-opt parses a blank split as an empty module: nothing to check.
      r.file = file;
      r.parsed = true;
      r.diags.push_back(diag::remark(ir::Loc{file, s.first_line, 1}, "input.no_candidate",
                                     "split " + std::to_string(s.index + 1) + " is blank: an empty module, no candidate"));
    } else {
      r = certify_module(s.text, file, s.first_line, timeout_ms);
    }
    r.sha256 = sha;
    r.split = SplitInfo{s.index, s.first_line, splits.size()};
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<InputReport> certify_path(const std::string& path, unsigned timeout_ms, bool split) {
  auto in = read_input(path);
  if (auto* r = std::get_if<InputReport>(&in)) {
    std::vector<InputReport> out;
    out.push_back(std::move(*r));
    return out;
  }
  if (split) return certify_splits(std::get<std::string>(in), path, timeout_ms);
  std::vector<InputReport> out;
  out.push_back(certify_text(std::get<std::string>(in), path, timeout_ms));
  return out;
}

diag::Exit exit_status(const guards::CandidateReport& c) {
  return c.verdict == "legal" ? diag::Exit::Clean : c.verdict == "illegal" ? diag::Exit::Findings : diag::Exit::Inconclusive;
}

int exit_code(const std::vector<InputReport>& in) {
  diag::Exit e = diag::Exit::Clean;
  for (auto& r : in) {
    if (r.has_errors() && r.candidates.empty()) e = diag::worse(e, diag::Exit::InputError);
    if (diag::any_error(r.diags)) e = diag::worse(e, diag::Exit::InputError);
    for (auto& c : r.candidates) {
      // An inconclusive candidate with an error diagnostic has an input error
      // (a missing key, a body the solver could not decide): 2; one with no
      // error diagnostic (an SMT obligation not decided: a timeout, or an
      // unsat answer over unsat premises, vacuous) is inconclusive: 3. An
      // illegal one's errors are its findings: 1.
      if (c.verdict == "inconclusive" && diag::any_error(c.diags)) e = diag::worse(e, diag::Exit::InputError);
      else e = diag::worse(e, exit_status(c));
    }
  }
  return diag::code(e);
}

std::string z3_version() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  Z3_get_version(&a, &b, &c, &d);
  return std::to_string(a) + "." + std::to_string(b) + "." + std::to_string(c);
}

namespace {

/// The certificate's and the report's "input": the file, its hash and, for a
/// --split-input-file split, which split (check-cert re-splits the file).
json input_json(const InputReport& in) {
  json j = {{"file", in.file}, {"sha256", in.sha256}};
  if (in.split) j["split"] = {{"index", in.split->index}, {"line", in.split->line}};
  return j;
}

json loc_json(const ir::Loc& l) { return diag::to_json(l); }

// The engine's JSON form plus the proposition (the rule's prefix), which
// schema fusecert-certificate/3 carries.
json diag_json(const guards::Diagnostic& d) {
  json j = diag::to_json(d);
  j["proposition"] = proposition_of(d.rule);
  return j;
}

json model_json(const std::vector<smt::ModelValue>& vs) {
  json a = json::array();
  for (auto& v : vs) {
    json e = {{"name", v.name}, {"sort", v.sort}, {"value", v.value}};
    if (!v.bits.empty()) e["bits"] = v.bits;
    a.push_back(e);
  }
  return a;
}

json obligation_json(const guards::Obligation& o, bool with_time) {
  json j = {{"id", o.id},           {"proposition", o.proposition}, {"how", o.how},
            {"claim", o.claim},     {"decides", o.decides},         {"expected", o.expected},
            {"answer", o.answer},   {"evidence", o.evidence}};
  if (o.how == "smt") {
    j["smt2"] = *o.smt2;
    j["logic"] = o.logic;
    j["fp_exp"] = o.fp_exp;
    j["smt2_sha256"] = support::sha256_hex(*o.smt2);
    // Non-vacuity: the answer to the premises alone, recorded for every unsat answer.
    j["premises"] = o.premises.empty() ? json(nullptr) : json(o.premises);
    if (!o.reason.empty()) j["reason"] = o.reason;
  }
  if (with_time) j["time_ms"] = o.time_ms;
  return j;
}

}  // namespace

std::string dump(const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n"; }

std::string digest(json j) {
  j.erase("digest");
  return support::sha256_hex(j.dump(-1, ' ', false, json::error_handler_t::replace));
}

namespace {
/// The --dialect tables in force: each one's dialect, path as given and the
/// SHA-256 of its text (check-cert --ir needs the same tables).
json dialect_tables_json() {
  json a = json::array();
  for (const ir::DialectTable* t : ir::dialects().user_tables())
    a.push_back({{"dialect", t->dialect}, {"file", t->source}, {"sha256", t->sha256}});
  return a;
}
}  // namespace

json certificate(const InputReport& in, size_t i, const std::string& tool_version) {
  const guards::CandidateReport& c = in.candidates.at(i);
  // The dialect whose table gives the producer its semantics (tessera, a
  // --dialect table's, stablehlo), or null for an upstream op (linalg).
  const ir::DialectTable* table = ir::dialects().table_of(c.producer_op);
  json cand = {{"index", i},
               {"function", c.function},
               {"form", ir::to_string(c.cand.form)},
               {"dialect", table ? json(table->dialect) : json(nullptr)},
               {"producer",
                {{"op", c.producer_op}, {"location", loc_json(c.producer_loc)}, {"result", c.cand.result_no}}}};
  if (!c.consumer_op.empty())
    cand["consumer"] = {{"op", c.consumer_op},
                        {"location", loc_json(c.consumer_loc)},
                        {"operand", c.cand.consumer_operand},
                        {"recognized_as", c.recognized}};
  else
    cand["consumer"] = nullptr;
  json obs = json::array();
  for (auto& o : c.obligations) obs.push_back(obligation_json(o, false));
  json diags = json::array();
  for (auto& d : c.diags) diags.push_back(diag_json(d));
  json assumed = json::array();
  for (auto& [k, v] : c.assumed) assumed.push_back({{"key", k}, {"value", v}});
  json j = {{"schema", kSchema},
            {"tool", {{"name", "fusecert"}, {"version", tool_version}}},
            {"solver", {{"name", "z3"}, {"version", z3_version()}}},
            {"input", input_json(in)},
            {"dialects", dialect_tables_json()},
            {"candidate", cand},
            {"verdict", c.verdict},
            {"assumptions", assumed},
            {"residency", c.residency.empty() ? json(nullptr) : json(c.residency)},
            {"obligations", obs},
            {"diagnostics", diags}};
  if (c.counterexample) {
    j["counterexample"] = {{"obligation", c.counterexample->obligation},
                           {"summary", c.counterexample->summary},
                           {"values", model_json(c.counterexample->values)}};
  } else {
    j["counterexample"] = nullptr;
  }
  j["digest"] = digest(j);
  return j;
}

std::string certificate_stem(const std::string& file) {
  std::string stem = std::filesystem::path(file).filename().string();
  if (stem.size() > 5 && stem.substr(stem.size() - 5) == ".mlir") stem.resize(stem.size() - 5);
  for (auto& ch : stem)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_' && ch != '.') ch = '_';
  return stem;
}

std::string certificate_name(const InputReport& in, size_t i) {
  const auto& c = in.candidates.at(i);
  return certificate_stem(in.file) + "." + std::to_string(c.producer_loc.line) + "_" +
         std::to_string(c.producer_loc.col) + ".r" + std::to_string(c.cand.result_no) + ".cert.json";
}

bool is_certificate_name_of(const std::string& stem, const std::string& name) {
  // stem "." line "_" col ".r" result ".cert.json", each number all digits.
  if (name.size() <= stem.size() + 1 || name.compare(0, stem.size(), stem) != 0 || name[stem.size()] != '.') return false;
  const std::string rest = name.substr(stem.size() + 1);
  const std::string tail = ".cert.json";
  if (rest.size() <= tail.size() || rest.compare(rest.size() - tail.size(), tail.size(), tail) != 0) return false;
  const std::string mid = rest.substr(0, rest.size() - tail.size());  // line_col.rN
  size_t i = 0;
  auto digits = [&] {
    size_t s = i;
    while (i < mid.size() && std::isdigit(static_cast<unsigned char>(mid[i]))) ++i;
    return i > s;
  };
  if (!digits() || i >= mid.size() || mid[i++] != '_' || !digits()) return false;
  if (mid.compare(i, 2, ".r") != 0) return false;
  i += 2;
  return digits() && i == mid.size();
}

namespace {
std::string consumer_desc(const guards::CandidateReport& c) {
  if (c.consumer_op.empty()) return "(no optimizer use)";
  return c.consumer_op + (c.recognized.empty() ? "" : " (" + c.recognized + ")");
}
}  // namespace

diag::Diagnostic verdict_line(const guards::CandidateReport& c) {
  size_t smt = 0;
  for (auto& o : c.obligations) smt += o.how == "smt";
  return diag::remark(c.producer_loc, "verdict",
                      c.verdict + ": " + c.producer_op + " -> " + consumer_desc(c) + ": " + ir::to_string(c.cand.form) +
                          ", " + std::to_string(c.obligations.size()) + " obligations (" + std::to_string(smt) +
                          " by SMT)" + (c.residency.empty() ? "" : ", residency " + c.residency));
}

namespace {
/// An inconclusive candidate's undecided SMT obligations (a timeout, unknown,
/// an error, or unsat whose premises were not shown satisfiable): one
/// warning each at the consumer, rule the obligation's id, with a note
/// suggesting a larger --timeout-ms when the solver ran out of time or gave
/// up (docs/diagnostics.md). Text only, before the candidate's verdict line.
std::vector<diag::Diagnostic> undecided_warnings(const guards::CandidateReport& c) {
  std::vector<diag::Diagnostic> out;
  if (c.verdict != "inconclusive") return out;
  const ir::Loc& at = c.consumer_loc.file.empty() ? c.producer_loc : c.consumer_loc;
  for (const auto& o : c.obligations) {
    if (o.how != "smt" || !o.decides || o.decided()) continue;
    const bool premises = o.answer == "unsat";  // unsat, but its premises were not shown satisfiable
    const std::string& a = premises ? o.premises : o.answer;
    const std::string& why = premises ? o.premises_reason : o.reason;
    diag::Diagnostic d = diag::warning(
        at, o.id,
        "obligation " + o.id + " is undecided: " +
            (premises ? "the solver answered unsat, but its premises alone answered " + (a.empty() ? "nothing" : a)
                      : "the solver answered " + (a.empty() ? "nothing" : a)) +
            (why.empty() ? "" : " (" + why + ")") + "; the candidate is inconclusive");
    if (a == "timeout" || a == "unknown" || a.empty())
      d.note(at, "a larger --timeout-ms (per SMT query; default 20000, 0 = no limit) may decide it");
    out.push_back(std::move(d));
  }
  return out;
}
}  // namespace

std::string render_text(const std::vector<InputReport>& in) {
  const diag::TextRenderer engine;
  std::string out;
  for (auto& r : in) {
    out += engine.render(r.diags);
    for (auto& c : r.candidates)
      out += engine.render(c.diags) + engine.render(undecided_warnings(c)) + engine.render(verdict_line(c));
  }
  return out;
}

json render_json(const std::vector<InputReport>& in, const std::string& tool_version) {
  json files = json::array();
  for (auto& r : in) {
    json cands = json::array();
    for (size_t i = 0; i < r.candidates.size(); ++i) {
      json c = certificate(r, i, tool_version);
      c.erase("digest");
      c["obligations"] = json::array();
      for (auto& o : r.candidates[i].obligations) c["obligations"].push_back(obligation_json(o, true));
      cands.push_back(c);
    }
    json diags = json::array();
    for (auto& d : r.diags) diags.push_back(diag_json(d));
    json f = {{"file", r.file}, {"sha256", r.sha256}, {"parsed", r.parsed}, {"diagnostics", diags},
              {"candidates", cands}};
    if (r.split) f["split"] = {{"index", r.split->index}, {"line", r.split->line}, {"count", r.split->count}};
    files.push_back(std::move(f));
  }
  return {{"schema", diag::kCertifyReportFormat},
          {"tool", {{"name", "fusecert"}, {"version", tool_version}}},
          {"inputs", files},
          {"exit_code", exit_code(in)}};
}

json render_sarif(const std::vector<InputReport>& in, const std::string& tool_version) {
  // Through the one emitter (support/diag/sarif.h): stable rule ids with the
  // candidate and the output as the instance, the catalog's rule metadata,
  // UTF-16 columns, %SRCROOT%-relative URIs (inputs as named, relative to
  // the working folder), Z3 and MLIR as the components that decided.
  diag::sarif::Run run;
  run.tool_version = tool_version;
  run.components = {{"Z3", z3_version()}, {"MLIR", FUSECERT_MLIR_VERSION}};
  for (const auto& r : in) {
    for (const auto& d : r.diags) {
      run.diagnostics.push_back(d);
      run.about.push_back({"", {{"file_sha256", r.sha256}}});
    }
    for (const auto& c : r.candidates)
      for (const auto& d : c.diags) {
        run.diagnostics.push_back(d);
        // A candidate is named by where it is in the program, not by its line:
        // the function and the consumer op (the fingerprint survives edits above it).
        run.about.push_back({c.function + "/" + c.consumer_op,
                             {{"proposition", proposition_of(d.rule)},
                              {"verdict", c.verdict},
                              {"producer", c.producer_op},
                              {"consumer", c.consumer_op}}});
      }
  }
  return json(diag::sarif::render(run));
}

}  // namespace fusecert::cert
