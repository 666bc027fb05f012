// P9 guard, state locality: the consumer's read locality must be no coarser
// than the producer's tile partition. It comes from what the IR shows: for
// linalg on tensors and the DAG form, the dependence of the consumer slice;
// for any other linalg.generic consumer, its own indexing maps; for a table
// optimizer or fused op, the element-wise body its table entry names (every
// reference update is element-wise: it reads its own coordinate). A declared
// `state_locality` is only cross-checked against that: one that disagrees is
// a warning (P9.declared_locality), never the verdict. A table op without a
// body never gets here (opaque: the single-use guard makes it
// inconclusive). The query is verifier/ir/locality.h's, the same code the
// prover's P9 uses.
#include <algorithm>

#include "verifier/guards/guards.h"
#include "verifier/ir/dependence.h"
#include "verifier/ir/dialect_table.h"
#include "verifier/ir/locality.h"
#include "verifier/smt/query.h"

namespace fusecert::guards {

namespace {

void cross_check_declared(GuardContext& g, const ir::Op& cons, ir::Locality shown, const std::string& from);

ir::LocalityProblem from_generic(const ir::Module& m, const ir::Op& op, int grad_operand) {
  ir::LocalityProblem p;
  for (auto& it : op.iterators) p.reduction.push_back(it == "reduction");
  p.dim_sizes.assign(p.reduction.size(), -1);
  for (size_t k = 0; k < op.maps.size() && k < op.operands.size(); ++k) {
    const auto& t = m.values[op.operands[k]].type;
    for (size_t r = 0; r < op.maps[k].results.size() && r < t.shape.size(); ++r) {
      const auto& e = op.maps[k].results[r];
      if (e.kind == ir::AffineExpr::Kind::Dim && t.shape[r] >= 0 && e.value < static_cast<int64_t>(p.dim_sizes.size()))
        p.dim_sizes[e.value] = t.shape[r];
    }
  }
  p.grad_map = op.maps.at(grad_operand);
  for (size_t k = op.num_inputs; k < op.maps.size(); ++k) p.out_maps.push_back(op.maps[k]);
  return p;
}

ir::AffineExpr shift(const ir::AffineExpr& e, int64_t base) {
  if (e.kind == ir::AffineExpr::Kind::Dim) return ir::AffineExpr::dim(e.value + base);
  if (!e.lhs) return e;
  return ir::AffineExpr::bin(e.kind, shift(*e.lhs, base), shift(*e.rhs, base));
}

/// What a reduction is, for messages.
std::string reduced_dims(const ir::Op& r) {
  const ir::Attr* dims = r.attr("dimensions");
  std::string over;
  if (dims && dims->kind == ir::Attr::Kind::Ints)
    for (auto d : dims->ints) over += (over.empty() ? "" : ", ") + std::to_string(d);
  return over.empty() ? "" : "over dimension(s) " + over;
}
std::string reduction_text(const ir::Module& m, int op) {
  const ir::Op& r = m.ops[op];
  const std::string over = reduced_dims(r);
  return r.name + " at " + r.loc.str() + (over.empty() ? "" : " (" + over + ")");
}

/// What a reduction combines, from its body's function (a contraction sums
/// products).
std::string reduction_kind(const ir::Reduction* red) {
  using F = ir::ScalarFn;
  if (red && red->exact) {
    const bool maxmin = red->fn == F::Max || red->fn == F::Min || red->fn == F::MaxNum || red->fn == F::MinNum ||
                        red->fn == F::Unknown;
    return std::string("an exact ") + (maxmin ? "max/min" : ir::to_string(red->fn) + std::string(" reduction"));
  }
  return red && red->fn == F::Mul ? "a rounded product" : "a rounded sum";
}

/// A read that reaches the output through a norm that scales the gradient:
/// the P2 guard's finding, not P9's.
bool through_norm(const ir::Dag& dag, const ir::GradRead& r) {
  bool clipped = false;
  for (int via : r.via)
    if (const ir::Reduction* red = dag.reduction(via); red && red->scales >= 0) clipped = true;
  return clipped;
}

/// What an output's reads are checked on: the output itself, or, for an
/// exact reduction the step returns (SM3's statistics), its input.
struct CheckedSide {
  const ir::ValueDep& dep;
  int value;
};
CheckedSide checked_side(const ir::Module& m, const ir::DagOutput& o) {
  if (o.exempt_reduce >= 0) return {o.exempt_input, m.ops[o.exempt_reduce].operands[0]};
  return {o.dep, o.value};
}

/// The one layout permutation pi through which every read of an output (of
/// rank `rank`) reads the gradient, when there is one and it is not the
/// identity; empty otherwise. Reads through a norm are P2's and skipped.
std::vector<int64_t> layout_permutation(const ir::Dag& dag, const ir::ValueDep& dep, size_t rank, size_t grad_rank) {
  std::vector<int64_t> perm;
  bool any = false;
  for (const auto& r : dep.reads) {
    if (through_norm(dag, r)) continue;
    std::vector<int64_t> p;
    bool pure = r.extra.empty() && rank == grad_rank && r.map.results.size() == rank;
    for (const auto& e : r.map.results) {
      if (!pure) break;
      if (e.kind != ir::AffineExpr::Kind::Dim || e.value < 0 || static_cast<size_t>(e.value) >= rank ||
          std::find(p.begin(), p.end(), e.value) != p.end())
        pure = false;
      else
        p.push_back(e.value);
    }
    if (!pure || (any && p != perm)) return {};
    perm = p;
    any = true;
  }
  for (size_t k = 0; k < perm.size(); ++k)
    if (perm[k] != static_cast<int64_t>(k)) return perm;
  return {};  // no read, or the identity
}

/// P9 on a DAG consumer: every output element reads, through every path,
/// only gradient elements of its own tile (one QF_LIA query over the maps
/// the dependence analysis derived). Values independent of the gradient (W,
/// old statistics, the step count, hyper-parameters) are broadcast freely.
/// A reduction across tiles is legal only as SM3's new statistics are: an
/// exact max / min the step returns and on which no other output depends
/// (its tiles' partial maxima combine exactly, in any order); the partials
/// themselves must be local. Reads through a norm the P2 guard reported are
/// its, not P9's.
void dag_locality(GuardContext& g, const std::string& id, const std::string& claim) {
  const ir::Dag& dag = *g.facts.dag;
  if (!dag.problem.empty()) return;  // the single-use guard made it inconclusive
  const auto& gshape = g.m.values[dag.grad].type.shape;
  ir::DagLocalityProblem prob;
  prob.grad_rank = gshape.size();
  std::vector<std::string> exempt;
  std::vector<int> crossed;  // reductions on the reads, for the message
  // A layout permutation per output: when every read of an output is one
  // and the same permutation pi of its coordinates (the gradient summed with
  // a second contraction or a split-K partial, then transposed into W's
  // layout: the transpose is not the gradient's one use, so it is not folded
  // into the producer), that output's tiles are the producer's tiles
  // permuted, and each of its points is placed in gradient coordinates by
  // pi. An output with mixed reads keeps the identity (a coarser answer,
  // never a finer one).
  std::vector<std::vector<int64_t>> perms;  // per output; empty: the identity
  for (const auto& o : dag.outputs) {
    const CheckedSide c = checked_side(g.m, o);
    perms.push_back(layout_permutation(dag, c.dep, g.m.values[c.value].type.shape.size(), prob.grad_rank));
  }
  std::string permuted;
  for (size_t i = 0; i < perms.size(); ++i) {
    if (perms[i].empty()) continue;
    std::string p;
    for (auto k : perms[i]) p += (p.empty() ? "" : ", ") + std::to_string(k);
    permuted += (permuted.empty() ? "" : ", ") + std::string("result ") + std::to_string(dag.outputs[i].result_no) +
                " through [" + p + "]";
  }
  int output = 0;
  for (const auto& o : dag.outputs) {
    const CheckedSide c = checked_side(g.m, o);
    const ir::ValueDep& dep = c.dep;
    const int v = c.value;
    if (o.exempt_reduce >= 0)
      exempt.push_back("result " + std::to_string(o.result_no) + " is the exact " + reduction_text(g.m, o.exempt_reduce) +
                       ", read by no other output (its input is checked)");
    const auto& oshape = g.m.values[v].type.shape;
    for (const auto& r : dep.reads) {
      if (through_norm(dag, r)) continue;
      for (int via : r.via)
        if (std::find(crossed.begin(), crossed.end(), via) == crossed.end()) crossed.push_back(via);
      const int64_t base = static_cast<int64_t>(prob.dim_sizes.size());
      for (auto d : oshape) prob.dim_sizes.push_back(d);
      for (auto d : r.extra) prob.dim_sizes.push_back(d);
      ir::DagRead dr;
      dr.output = output;
      for (const auto& e : r.map.results) dr.grad.results.push_back(shift(e, base));
      for (size_t k = 0; k < oshape.size(); ++k)
        dr.out.results.push_back(
            ir::AffineExpr::dim(base + (perms[output].empty() ? static_cast<int64_t>(k) : perms[output][k])));
      prob.reads.push_back(std::move(dr));
    }
    ++output;
  }
  for (auto& r : prob.reads) r.grad.num_dims = r.out.num_dims = static_cast<unsigned>(prob.dim_sizes.size());
  if (prob.reads.empty()) return;  // every read goes through a norm the P2 guard reported
  Obligation* o = nullptr;
  try {
    o = &g.smt(id, claim, ir::dag_locality_query(prob), "unsat", "QF_LIA");
  } catch (const std::exception& e) {
    g.structural(id, claim, "missing", std::string("cannot encode the DAG's reads: ") + e.what());
    g.error("P9", id, g.producer().loc, std::string("cannot encode the consumer DAG's gradient reads: ") + e.what());
    return;
  }
  std::string ev = std::to_string(prob.reads.size()) + " gradient read(s) by " + std::to_string(dag.outputs.size()) +
                   " result(s) of the step, derived from the DAG";
  for (const auto& e : exempt) ev += "; " + e;
  if (!permuted.empty())
    ev += "; read through a layout permutation (a transpose after a sum into the gradient): " + permuted +
          ", whose tiles are the producer's tiles, permuted";
  o->evidence = ev;
  const ir::Op* cons = g.consumer();
  if (o->answer == "unsat" && cons) cross_check_declared(g, *cons, ir::Locality::Coordinate, "the consumer slice's dependence");
  if (o->answer != "sat") return;
  std::vector<bool> spreads;
  for (unsigned r = 0; r < prob.grad_rank; ++r) {
    auto& s = g.smt("P9.spread.d" + std::to_string(r),
                    "two reads of one output element read the gradient at different indices along gradient "
                    "dimension " + std::to_string(r),
                    ir::dag_spread_query(prob, r), "sat", "QF_LIA", /*decides=*/false);
    spreads.push_back(s.answer == "sat");
  }
  const ir::Locality need = ir::classify(spreads);
  if (cons) cross_check_declared(g, *cons, need, "the consumer slice's dependence");
  // Where locality fails: the first reduction on the reads whose own result
  // already reads gradient elements outside its tile (the same query over
  // that result's reads alone; informational, it only places the error).
  // None (a read that is coarse by its layout, with no reduction): the update.
  int coarse = -1;
  for (int v : crossed) {
    const ir::Reduction* red = dag.reduction(v);
    if (!red || red->result_reads.empty() || g.m.ops[v].results.empty()) continue;
    const auto& rshape = g.m.values[g.m.ops[v].results[0]].type.shape;
    ir::DagLocalityProblem rp;
    rp.grad_rank = prob.grad_rank;
    for (const auto& r : red->result_reads) {
      const int64_t base = static_cast<int64_t>(rp.dim_sizes.size());
      for (auto d : rshape) rp.dim_sizes.push_back(d);
      for (auto d : r.extra) rp.dim_sizes.push_back(d);
      ir::DagRead dr;
      for (const auto& e : r.map.results) dr.grad.results.push_back(shift(e, base));
      for (size_t k = 0; k < rshape.size(); ++k) dr.out.results.push_back(ir::AffineExpr::dim(base + k));
      rp.reads.push_back(std::move(dr));
    }
    for (auto& r : rp.reads) r.grad.num_dims = r.out.num_dims = static_cast<unsigned>(rp.dim_sizes.size());
    try {
      if (smt::solve_smt2(*ir::dag_locality_query(rp), g.timeout_ms).answer == smt::Answer::Sat) {
        coarse = v;
        break;
      }
    } catch (const std::exception&) {
      // Not encodable: this reduction does not place the error.
    }
  }
  // The results reading it, and the other reductions on the reads.
  std::string readers, through;
  for (const auto& o : dag.outputs)
    for (const auto& r : checked_side(g.m, o).dep.reads)
      if (!through_norm(dag, r) && std::find(r.via.begin(), r.via.end(), coarse) != r.via.end()) {
        readers += (readers.empty() ? "" : ", ") + std::to_string(o.result_no);
        break;
      }
  for (int v : crossed)
    if (v != coarse) {
      const ir::Reduction* red = dag.reduction(v);
      through += (through.empty() ? "" : "; ") + reduction_text(g.m, v) + ", " + reduction_kind(red) +
                 (red && red->exact ? " read by this step's outputs" : "");
    }
  const ir::Op& at = g.m.ops[coarse >= 0 ? coarse : dag.update_op >= 0 ? dag.update_op : g.c.producer];
  std::string why = "the step's results read gradient elements outside their tile";
  if (coarse >= 0) {
    const std::string over = reduced_dims(at);
    why = at.name + " here (" + reduction_kind(dag.reduction(coarse)) + (over.empty() ? "" : " " + over) +
          ") combines gradient elements of several tiles, and result" +
          (readers.find(',') == std::string::npos ? " " : "s ") + readers + " of the step read" +
          (readers.find(',') == std::string::npos ? "s" : "") + " it";
  }
  if (!through.empty()) why += std::string(coarse >= 0 ? "; the results also read the gradient" : "") + " through " + through;
  auto& d = g.error("P9", id, at.loc,
                    "cannot fuse the update into the weight-gradient epilogue: its read locality is " +
                        ir::to_string(need) + ", coarser than the producer's tile partition: " + why);
  d.notes.push_back(g.producer_note("gradient tiles are computed here; legal if every result reads only its own "
                                    "coordinate, or compute the " + ir::to_string(need) +
                                    " statistics in a pass after the GEMM"));
  // The weight update, when it reads through that reduction too: a note.
  auto update_reads_it = [&] {
    for (const auto& o : dag.outputs)
      if (g.m.values[o.value].def_op == dag.update_op)
        for (const auto& r : checked_side(g.m, o).dep.reads)
          if (!through_norm(dag, r) && std::find(r.via.begin(), r.via.end(), coarse) != r.via.end()) return true;
    return false;
  };
  if (coarse >= 0 && dag.update_op >= 0 && dag.update_op != coarse && update_reads_it())
    d.notes.push_back({g.m.ops[dag.update_op].loc, "the weight update here reads that reduction"});
}

/// A declared `state_locality` is a fact the IR shows: it is only
/// cross-checked against the locality the guard derived (`shown`), and one
/// that disagrees (or is no lattice position) is a warning, never the
/// verdict. A warning, not an error: the verdict is right either way (the
/// IR decides), and an error on a legal or illegal candidate would read as
/// the reason for its verdict; but the wrong declaration stays visible to
/// anything downstream that trusts it (a scheduler tiling by it).
void cross_check_declared(GuardContext& g, const ir::Op& cons, ir::Locality shown, const std::string& from) {
  const std::string key = ir::key_of(cons, "state_locality");
  const ir::Attr* a = cons.attr(key);
  if (!a) return;
  const auto decl = a->kind == ir::Attr::Kind::String ? ir::parse_locality(a->text) : std::nullopt;
  if (!decl) {
    g.out.diags.push_back(diag::warning(cons.loc, "P9.declared_locality",
                                        key + " = " + a->text + " on " + cons.name +
                                            " is not one of coordinate, row, column, block, tensor, layer, global; it "
                                            "is not read: the read locality is " + ir::to_string(shown) +
                                            ", shown by " + from));
    return;
  }
  if (*decl == shown) return;
  auto d = diag::warning(cons.loc, "P9.declared_locality",
                         key + " = \"" + ir::to_string(*decl) + "\" on " + cons.name +
                             " contradicts the IR: its read locality is " + ir::to_string(shown) + ", shown by " +
                             from + "; the declaration does not decide the verdict (the IR does)");
  d.notes.push_back({cons.loc, "declare " + key + " = \"" + ir::to_string(shown) + "\", or drop the attribute"});
  g.out.diags.push_back(std::move(d));
}

}  // namespace

void guard_locality(GuardContext& g) {
  const ir::Op* cons = g.consumer();
  if (!cons) return;
  const std::string id = "P9.locality";
  const std::string claim = "for every tile size and every output point, the consumer reads only gradient elements "
                            "of the producer tile that computed that point (read locality ⊑ tile partition)";
  // Linalg on tensors: the same dependence rule over the consumer slice
  // (every op from the gradient to the step's results), when it could be
  // followed; the consumer's own maps otherwise.
  if (g.c.form == ir::Form::Dag ||
      (g.c.form == ir::Form::Linalg && g.facts.dag && g.facts.dag->problem.empty())) {
    dag_locality(g, id, claim);
    return;
  }
  ir::LocalityProblem prob;
  std::string source;
  if (cons->kind == ir::Op::Kind::Generic) {
    if (cons->maps.size() != cons->operands.size() || g.c.consumer_operand < 0) {
      g.structural(id, claim, "missing", "the consumer's indexing maps are not available");
      g.error("P9", id, cons->loc, "cannot read the indexing maps of this " + cons->name);
      return;
    }
    prob = from_generic(g.m, *cons, g.c.consumer_operand);
    source = "indexing maps of the " + cons->name + ": gradient " + prob.grad_map.text;
  } else {
    // The body the table entry names is element-wise (every reference
    // update, ir::references(), reads g at its own coordinate only), so the
    // op reads the coordinate; what it declares is cross-checked below.
    if (!g.facts.reference) {
      g.structural(id, claim, "missing", cons->name + " has no element-wise body in its dialect table");
      g.error("P9", id, cons->loc, "cannot read what " + cons->name + " computes: its dialect table gives it no body");
      return;
    }
    std::vector<int64_t> shape;
    if (g.c.grad >= 0) shape = g.m.values[g.c.grad].type.shape;
    else if (g.facts.weight_value >= 0) shape = g.m.values[g.facts.weight_value].type.shape;
    if (shape.size() != 2) shape = {-1, -1};
    prob = ir::problem_for(ir::Locality::Coordinate, shape);
    source = "the " + g.facts.reference->kind + " body of " + cons->name +
             " (its dialect table's reference update: element-wise, each output reads g at its own coordinate)";
  }
  Obligation* o = nullptr;
  try {
    o = &g.smt(id, claim, ir::locality_query_shared(prob), "unsat", "QF_LIA");
  } catch (const std::exception& e) {
    g.structural(id, claim, "missing", std::string("cannot encode the indexing maps: ") + e.what());
    g.error("P9", id, cons->loc, std::string("cannot encode the consumer's indexing maps: ") + e.what());
    return;
  }
  o->evidence = source;
  const std::string shown_by = cons->kind == ir::Op::Kind::Generic ? "its indexing maps" : "its element-wise body";
  if (o->answer == "unsat") cross_check_declared(g, *cons, ir::Locality::Coordinate, shown_by);
  if (o->answer != "sat") return;
  // Derive the coarsest position the consumer needs (informational queries).
  std::vector<bool> spreads;
  for (unsigned r = 0; r < prob.grad_map.results.size(); ++r) {
    auto& s = g.smt("P9.spread.d" + std::to_string(r),
                    "two iteration points writing one output element read the gradient at different indices along "
                    "gradient dimension " + std::to_string(r),
                    ir::spread_query(prob, r), "sat", "QF_LIA", /*decides=*/false);
    spreads.push_back(s.answer == "sat");
  }
  ir::Locality need = ir::classify(spreads);
  cross_check_declared(g, *cons, need, shown_by);
  auto& d = g.error("P9", id, cons->loc,
                    "cannot fuse " + cons->name + " into the weight-gradient epilogue: its read locality is " +
                        ir::to_string(need) +
                        ", coarser than the producer's tile partition (an output point reads gradient elements "
                        "outside the tile that computed it)");
  d.notes.push_back(g.producer_note("gradient tiles are computed here; legal if the consumer reads only its own "
                                    "coordinate, or compute the " + ir::to_string(need) +
                                    " statistics in a pass after the GEMM"));
}

}  // namespace fusecert::guards
