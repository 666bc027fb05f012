#include "verifier/tv/validate.h"

#include <cmath>
#include <set>

#include "support/diag/file_diagnostics.h"
#include "support/diag/exit_code.h"
#include "support/files.h"
#include "support/sha256.h"
#include "verifier/ir/attributes.h"
#include "verifier/ir/dialect_table.h"
#include "verifier/ir/table_reads.h"
#include "verifier/smt/arith.h"
#include "verifier/smt/values.h"
#include "verifier/tv/encode_fp.h"
#include "verifier/tv/eval.h"
#include "verifier/witness/numeric.h"

namespace fusecert::tv {

namespace {

/// The functions the fused ops of `m` name as their epilogue (their table
/// entries' epilogue key, read by meaning): helpers, not functions to match.
std::set<std::string> epilogue_helpers(const ir::Module& m) {
  std::set<std::string> h;
  for (auto& op : m.ops)
    if (const ir::OpSpec* spec = ir::spec_of(op); spec && spec->role == ir::OpRole::Fused)
      if (const ir::Epilogue e = ir::epilogue(op, *spec); e.state == ir::Epilogue::State::Named) h.insert(e.callee);
  return h;
}

int find_func(const ir::Module& m, const std::string& name) {
  for (size_t i = 0; i < m.funcs.size(); ++i)
    if (m.funcs[i].name == name && !m.funcs[i].ops.empty()) return static_cast<int>(i);
  return -1;
}

std::shared_ptr<ir::Module> load(const std::string& text, const std::string& name, Validation& v) {
  ir::LoadResult lr = ir::parse_mlir(text, name);
  for (auto& d : lr.diags) {
    v.diags.push_back(d);
    if (v.diags.back().loc.file.empty()) v.diags.back().loc.file = name;
  }
  if (!lr.module) return nullptr;
  // The attribute boundary, as certify runs it (verifier/ir/attributes.h):
  // an op a dialect table lists is read only through its entry. A key the
  // entry does not name or a value of another kind is an error at the op
  // (input.attr.key / input.attr.kind), on every listed op: every op of a
  // validated function is translated, and a bad attribute is never read.
  const ir::DialectTables& tables = ir::dialects();
  ir::canonicalize_dtypes(*lr.module, tables);
  ir::mark_refused(*lr.module, tables);
  bool refused = false;
  for (const ir::Op& op : lr.module->ops)
    if (const ir::OpSpec* spec = tables.find(op.name))
      for (auto& d : ir::check_attributes(op, *spec, *tables.table_of(op.name))) {
        v.diags.push_back(d);
        refused = true;
      }
  if (refused) return nullptr;
  return std::make_shared<ir::Module>(std::move(*lr.module));
}

/// Bitwise equality as SMT-LIB `=` decides it: all NaNs equal.
bool same(double a, double b, Fmt f) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return bits_in(a, f) == bits_in(b, f);
}

/// Deterministic concrete search for a counterexample: operand values from a
/// mix of zeros, ±1, and normals scaled by 2^[-12, 12] (v-like operands also
/// non-negative), evaluated in C++. Returns the assignment, if one differs.
std::optional<std::map<std::string, double>> search(const Program& p, int before, int after, Fmt f, int trials) {
  witness::Normal rng(0x7f4a7c15u);
  std::vector<int> vars = p.vars();
  for (int t = 0; t < trials; ++t) {
    std::map<std::string, double> in;
    for (int id : vars) {
      const Node& n = p.at(id);
      double u = rng.uniform(), x;
      if (u < 0.2) x = 0.0;
      else if (u < 0.3) x = 1.0;
      else x = rng() * std::ldexp(1.0, static_cast<int>(rng.uniform() * 25) - 12);
      if (t % 2 == 1) x = std::fabs(x);
      in[n.name] = round_to(x, n.fmt);
    }
    std::vector<double> v = evaluate(p, in);
    if (!same(v.at(static_cast<size_t>(before)), v.at(static_cast<size_t>(after)), f)) return in;
  }
  return std::nullopt;
}

/// The obligation's query: the two results differ. With `fixed`, the
/// operands are pinned to those values and the results are named
/// before_result / after_result so the model reports them; without, the
/// disequality is asserted on the terms themselves, so two sides that
/// translate to the same term are refuted by Z3's simplifier.
std::string query(const Program& p, const ResultCheck& rc, const std::map<std::string, double>* fixed) {
  z3::context ctx;
  std::vector<z3::expr> e = encode_fp(ctx, p);
  smt::Query q(ctx);
  z3::expr tb = e.at(static_cast<size_t>(rc.before_node)), ta = e.at(static_cast<size_t>(rc.after_node));
  if (!fixed) {
    q.add(!(tb == ta));  // SMT `=` on FP: same value and sign of zero; all NaNs equal
    return q.smt2();
  }
  z3::sort s = ctx.fpa_sort(ebits(rc.fmt), sbits(rc.fmt));
  z3::expr before = ctx.constant("before_result", s), after = ctx.constant("after_result", s);
  q.add(before == tb);
  q.add(after == ta);
  q.add(!(before == after));
  smt::FpArith f32(ctx, 8, 24, {}), bf16(ctx, 8, 8, {});
  for (int id : p.vars()) {
    const Node& n = p.at(id);
    auto it = fixed->find(n.name);
    q.add(e.at(static_cast<size_t>(id)) == (n.fmt == Fmt::F32 ? f32 : bf16).num(it == fixed->end() ? 0.0 : it->second));
  }
  return q.smt2();
}

void take_model(ResultCheck& rc, const smt::CheckResult& r) {
  rc.inputs.clear();
  for (auto& mv : r.model) {
    if (mv.name == "before_result") rc.before = mv;
    else if (mv.name == "after_result") rc.after = mv;
    else rc.inputs.push_back(mv);
  }
}

/// Solves one result obligation. A counterexample found by concrete search is
/// confirmed by Z3 on the query with the operands fixed to it (a `sat` there
/// is a `sat` of the general query); otherwise the general query decides, and
/// a model of it is re-solved with the operands fixed to report both results.
ResultCheck check_result(const Program& p, const Side& b, const Side& a, size_t r, const ValidateOptions& opt) {
  ResultCheck rc;
  rc.id = "TV.result" + std::to_string(r);
  rc.name = b.output_names[r] + " vs " + a.output_names[r];
  rc.fmt = b.output_fmts[r];
  rc.before_node = b.outputs[r];
  rc.after_node = a.outputs[r];
  auto hit = rc.before_node == rc.after_node ? std::nullopt : search(p, rc.before_node, rc.after_node, rc.fmt, opt.search_trials);
  if (hit) {
    rc.smt2 = query(p, rc, &*hit);
    rc.res = smt::solve_smt2(rc.smt2, opt.timeout_ms);
    rc.method = "counterexample from concrete search, confirmed by Z3 with the operands fixed";
    if (rc.res.answer == smt::Answer::Sat) {
      rc.verdict = "not equivalent";
      take_model(rc, rc.res);
      return rc;
    }
  }
  rc.smt2 = query(p, rc, nullptr);
  rc.res = smt::solve_smt2(rc.smt2, opt.timeout_ms);
  rc.method = "Z3 over all operand values";
  switch (rc.res.answer) {
    // Equivalent only when the premises (operand constraints) are satisfiable:
    // otherwise the unsat answer is vacuous.
    case smt::Answer::Unsat: rc.verdict = smt::decided(rc.res) ? "equivalent" : "inconclusive"; break;
    case smt::Answer::Sat: {
      rc.verdict = "not equivalent";
      std::map<std::string, double> in;
      for (auto& mv : rc.res.model)
        if (!mv.bits.empty()) in[mv.name] = smt::decode_fp(std::stoull(mv.bits, nullptr, 16), 8, mv.sort.find(" 8 8)") != std::string::npos ? 8 : 24);
      smt::CheckResult fixed = smt::solve_smt2(query(p, rc, &in), opt.timeout_ms);
      take_model(rc, fixed.answer == smt::Answer::Sat ? fixed : rc.res);
      break;
    }
    default: rc.verdict = "inconclusive"; break;
  }
  return rc;
}

void validate_pair(Validation& v, const ir::Module& bm, int bf, const ir::Module& am, int af) {
  PairResult pr;
  pr.before_func = bm.funcs[static_cast<size_t>(bf)].name;
  pr.after_func = am.funcs[static_cast<size_t>(af)].name;
  pr.before_loc = bm.funcs[static_cast<size_t>(bf)].loc;
  pr.after_loc = am.funcs[static_cast<size_t>(af)].loc;
  SideOptions so;
  so.k_bound = v.options.k_bound;
  try {
    pr.before = SideTranslator(bm, bf, *v.program, so).run();
    pr.after = SideTranslator(am, af, *v.program, so).run();
  } catch (const diag::Fatal& e) {
    v.diags.push_back(e.diagnostic);
    return;
  }
  if (pr.before.outputs.size() != pr.after.outputs.size()) {
    v.diags.push_back(diag::error(pr.after_loc, "TV.correspondence", "@" + pr.after_func + " returns " + std::to_string(pr.after.outputs.size()) +
                                          " results, @" + pr.before_func + " returns " +
                                          std::to_string(pr.before.outputs.size()) + ": no result correspondence"));
    return;
  }
  if (pr.before.k_used != pr.after.k_used || pr.before.k_module != pr.after.k_module) {
    v.diags.push_back(diag::error(pr.after_loc, "TV.correspondence", "the contractions have different K (before " + std::to_string(pr.before.k_module) +
                                          ", after " + std::to_string(pr.after.k_module) + ")"));
    return;
  }
  std::set<std::string> abs = pr.before.abstractions;
  abs.insert(pr.after.abstractions.begin(), pr.after.abstractions.end());
  abs.insert("symbolic element: output element (i, j) of every result is one query; its operands (W[i,j], X[k,i], "
             "dY[k,j], ...) are unconstrained values of their type, NaN, ±∞, ±0 and subnormals included");
  abs.insert("bitwise equality up to NaN payloads (SMT-LIB `=`: -0 ≠ +0, all NaNs equal)");
  pr.abstractions.assign(abs.begin(), abs.end());
  bool sat = false, inc = false;
  for (size_t r = 0; r < pr.before.outputs.size(); ++r) {
    if (pr.before.output_fmts[r] != pr.after.output_fmts[r]) {
      v.diags.push_back(diag::error(pr.after_loc, "TV.correspondence", "result " + std::to_string(r) + " is " + to_string(pr.after.output_fmts[r]) +
                                            " after and " + to_string(pr.before.output_fmts[r]) + " before"));
      return;
    }
    pr.results.push_back(check_result(*v.program, pr.before, pr.after, r, v.options));
    sat = sat || pr.results.back().verdict == "not equivalent";
    inc = inc || pr.results.back().verdict == "inconclusive";
  }
  pr.verdict = sat ? "not equivalent" : inc ? "inconclusive" : "equivalent";
  v.pairs.push_back(std::move(pr));
}

}  // namespace

Validation validate_texts(const std::string& before_text, const std::string& before_name,
                          const std::optional<std::string>& after_text, const std::string& after_name,
                          const ValidateOptions& opt) {
  Validation v;
  v.options = opt;
  v.program = std::make_shared<Program>();
  v.before_file = before_name;
  v.after_file = after_text ? after_name : before_name;
  v.before_sha256 = support::sha256_hex(before_text);
  v.after_sha256 = after_text ? support::sha256_hex(*after_text) : v.before_sha256;
  if (opt.k_bound < 1 || opt.k_bound > 4096) {
    v.diags.push_back(diag::error(ir::Loc{}, "usage", "--k must be between 1 and 4096"));
    v.verdict = "error";
    return v;
  }
  v.before_module = load(before_text, before_name, v);
  v.after_module = after_text ? load(*after_text, after_name, v) : v.before_module;
  if (!v.before_module || !v.after_module) {
    v.verdict = "error";
    return v;
  }
  const ir::Module& bm = *v.before_module;
  const ir::Module& am = *v.after_module;
  if (!after_text) {
    int b = find_func(bm, "before"), a = find_func(bm, "after");
    if (b < 0 || a < 0) b = find_func(bm, "src"), a = find_func(bm, "tgt");
    if (b < 0 || a < 0)
      v.diags.push_back(diag::error(ir::Loc{before_name, 1, 1}, "TV.correspondence", "one-file validation needs func.func @before and @after (or @src and @tgt)"));
    else
      validate_pair(v, bm, b, am, a);
  } else {
    auto hb = epilogue_helpers(bm), ha = epilogue_helpers(am);
    for (size_t i = 0; i < bm.funcs.size(); ++i) {
      const ir::Func& f = bm.funcs[i];
      if (f.ops.empty() || hb.count(f.name)) continue;
      int a = find_func(am, f.name);
      if (a < 0) {
        v.diags.push_back(diag::error(f.loc, "TV.correspondence", "@" + f.name + " has no counterpart in " + after_name + " (functions are matched by name)"));
        continue;
      }
      validate_pair(v, bm, static_cast<int>(i), am, a);
    }
    for (auto& f : am.funcs)
      if (!f.ops.empty() && !ha.count(f.name) && find_func(bm, f.name) < 0)
        v.diags.push_back(diag::error(f.loc, "TV.correspondence", "@" + f.name + " has no counterpart in " + before_name + " (functions are matched by name)"));
    if (v.pairs.empty() && !diag::any_error(v.diags))
      v.diags.push_back(diag::error(ir::Loc{before_name, 0, 0}, "TV.correspondence", "no function to validate"));
  }
  bool sat = false, inc = false;
  for (auto& p : v.pairs) {
    sat = sat || p.verdict == "not equivalent";
    inc = inc || p.verdict == "inconclusive";
  }
  v.verdict = diag::any_error(v.diags) ? "error" : sat ? "not equivalent" : inc ? "inconclusive" : "equivalent";
  return v;
}

Validation validate_files(const std::string& before_path, const std::string& after_path, const ValidateOptions& opt) {
  auto read = [](const std::string& p, Validation& v) -> std::optional<std::string> {
    try {
      return support::read_file(p);
    } catch (const std::exception& e) {
      v.diags.push_back(diag::unreadable(p, e.what()));
      return std::nullopt;
    }
  };
  Validation err;
  auto b = read(before_path, err);
  std::optional<std::string> a;
  if (!after_path.empty()) a = read(after_path, err);
  if (!b || (!after_path.empty() && !a)) {
    err.verdict = "error";
    err.before_file = before_path;
    err.after_file = after_path;
    return err;
  }
  return validate_texts(*b, before_path, a, after_path, opt);
}

int exit_code(const Validation& v) {
  if (v.verdict == "equivalent") return diag::code(diag::Exit::Clean);
  if (v.verdict == "not equivalent") return diag::code(diag::Exit::Findings);
  if (v.verdict == "inconclusive") return diag::code(diag::Exit::Inconclusive);
  return diag::code(diag::Exit::InputError);
}

}  // namespace fusecert::tv
