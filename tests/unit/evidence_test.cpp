// No evidence true by construction (issue #19). For every evidence obligation
// of every proposition that answers unsat:
//  - its premises alone (the query with its goal, the negated claim, dropped)
//    are not unsat: the proof does not rest on contradictory premises;
//  - the query with every arithmetic and floating-point operation made
//    uninterpreted (only equality, ite and the Boolean structure keep their
//    meaning) is not unsat: the proof uses the theory, not mere congruence or
//    the shape of its own terms (the old P1 tiling query, `(distinct s s)`,
//    a goal that is the literal false all stay unsat there).
// The sanity checks are the obligations the rules file says hold by
// construction: each must be labelled definitional in its scope.
#include <gtest/gtest.h>
#include <z3++.h>

#include <map>
#include <set>

#include "tests/unit/prover_test_util.h"
#include "verifier/smt/query.h"

using namespace fusecert;

namespace {

// Rebuilds `e` with every interpreted function other than the core ones
// (Boolean connectives, =, distinct, ite) and numerals replaced by an
// uninterpreted function of the same signature.
class Abstraction {
 public:
  explicit Abstraction(z3::context& c) : c_(c) {}
  z3::expr operator()(const z3::expr& e) {
    auto key = e.id();
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    z3::expr out = rebuild(e);
    memo_.emplace(key, out);
    return out;
  }

 private:
  z3::expr rebuild(const z3::expr& e) {
    if (!e.is_app()) return e;  // no quantifiers in fusecert's queries
    z3::func_decl d = e.decl();
    if (e.is_numeral()) return e;
    z3::expr_vector args(c_);
    for (unsigned i = 0; i < e.num_args(); ++i) args.push_back((*this)(e.arg(i)));
    switch (d.decl_kind()) {
      case Z3_OP_TRUE: case Z3_OP_FALSE: case Z3_OP_EQ: case Z3_OP_DISTINCT: case Z3_OP_ITE:
      case Z3_OP_AND: case Z3_OP_OR: case Z3_OP_IFF: case Z3_OP_XOR: case Z3_OP_NOT: case Z3_OP_IMPLIES:
      case Z3_OP_UNINTERPRETED:
        return d(args);
      default: break;
    }
    if (d.decl_kind() == Z3_OP_FPA_NUM) return e;
    z3::sort_vector dom(c_);
    for (unsigned i = 0; i < d.arity(); ++i) dom.push_back(d.domain(i));
    std::string name = "abstract_" + d.name().str() + "_" + std::to_string(d.id());
    z3::func_decl f = c_.function(name.c_str(), dom, d.range());
    return f(args);
  }
  z3::context& c_;
  std::map<unsigned, z3::expr> memo_;
};

smt::Answer solve_abstracted(const std::string& text) {
  z3::context c;
  z3::solver in(c);
  in.from_string(text.c_str());
  Abstraction abs(c);
  z3::solver s(c);
  z3::expr_vector all = in.assertions();
  for (unsigned i = 0; i < all.size(); ++i) s.add(abs(all[i]));
  z3::params p(c);
  p.set("timeout", 5000u);
  s.set(p);
  switch (s.check()) {
    case z3::sat: return smt::Answer::Sat;
    case z3::unsat: return smt::Answer::Unsat;
    default: return smt::Answer::Unknown;
  }
}

const std::vector<verifier::PropositionResult>& all_results() {
  static std::vector<verifier::PropositionResult> rs = [] {
    verifier::ProveOptions opt;
    opt.witnesses = false;
    return verifier::prove(test::registry(), {}, opt);
  }();
  return rs;
}

}  // namespace

TEST(Evidence, NoUnsatEvidenceRestsOnItsPremisesAlone) {
  size_t n = 0;
  for (const auto& r : all_results())
    for (const auto& o : r.obligations) {
      if (!o.scope.evidence() || o.smt_answer() != smt::Answer::Unsat) continue;
      auto p = smt::solve_smt2(smt::premises_smt2(o.query()), 20000);
      EXPECT_EQ(p.answer, smt::Answer::Sat) << o.id << ": the premises alone are " << smt::to_string(p.answer)
                                            << ", so the query is unsat whatever its goal";
      ++n;
    }
  EXPECT_GE(n, 15u);
}

TEST(Evidence, NoUnsatEvidenceHoldsByCongruence) {
  size_t n = 0;
  for (const auto& r : all_results())
    for (const auto& o : r.obligations) {
      if (!o.scope.evidence() || o.smt_answer() != smt::Answer::Unsat) continue;
      EXPECT_NE(solve_abstracted(o.query()), smt::Answer::Unsat)
          << o.id << ": unsat with every arithmetic and floating-point operation uninterpreted: it holds by "
             "construction of its terms, so it is a sanity check, not evidence";
      ++n;
    }
  EXPECT_GE(n, 15u);
}

// The test above can fail: the obligations found true by construction are
// unsat under the same abstraction (they are sanity checks now), except
// P2b.spike_step_eq_none (needs 1*g = g) and P8.tile_resident (0*x = 0),
// labelled by reading them.
TEST(Evidence, TheAbstractionCatchesTheKnownDefinitionalObligations) {
  std::set<std::string> want = {"P1.tiling.binary32", "P1.epilogue.binary32", "P1.korder.int",
                                "P2a.v_update_eq_none", "P5.dense.reals", "P7.value_semantics",
                                "P9.coordinate"};
  std::set<std::string> seen;
  for (const auto& r : all_results())
    for (const auto& o : r.obligations)
      if (want.count(o.id)) {
        seen.insert(o.id);
        EXPECT_EQ(solve_abstracted(o.query()), smt::Answer::Unsat) << o.id;
      }
  for (const auto& id : want) EXPECT_TRUE(seen.count(id) || id == "P1.korder.int") << id << " was not discharged";
}

TEST(Evidence, SanityChecksAreLabelledDefinitional) {
  for (const auto& r : all_results()) {
    const auto* spec = test::registry().find(r.id);
    ASSERT_NE(spec, nullptr);
    for (const auto& o : r.obligations) {
      EXPECT_EQ(!o.scope.evidence(), spec->rule.is_sanity(o.id)) << o.id;
      EXPECT_FALSE(o.scope.theory.empty()) << o.id;
      EXPECT_FALSE(o.scope.symbolic.empty()) << o.id;
      if (spec->rule.is_sanity(o.id)) EXPECT_FALSE(o.scope.definitional.empty()) << o.id;
    }
  }
}

namespace {
// `text` without its assertion number `drop` (0-based), as SMT-LIB2.
std::string without_assertion(const std::string& text, unsigned drop) {
  z3::context c;
  z3::solver in(c);
  in.from_string(text.c_str());
  z3::expr_vector all = in.assertions();
  z3::solver out(c);
  for (unsigned i = 0; i < all.size(); ++i)
    if (i != drop) out.add(all[i]);
  return out.to_smt2();
}
}  // namespace

// The generalized obligations of issue #19 (P5's induction, P6's derived
// bound) rest on one key premise each, asserted at index 1 by its encoder:
// the base's a^0 = 1, the step's induction hypothesis, the rates' p > 0, the
// state rounding's bound, the floor on the fused error. Each proof must
// break (sat) without it: a proof that survives the loss of its key premise
// does not use it.
TEST(Evidence, GeneralizedObligationsBreakWithoutTheirKeyPremise) {
  const std::set<std::string> want = {"P5.mean_correct.base.reals", "P5.mean_correct.step.reals",
                                      "P5.mean_folded.base.reals",  "P5.mean_folded.step.reals",
                                      "P5.mean_rates.reals",        "P6.errors_add.reals",
                                      "P6.gain_derived.reals"};
  std::set<std::string> seen;
  for (const auto& r : all_results())
    for (const auto& o : r.obligations) {
      if (!want.count(o.id)) continue;
      seen.insert(o.id);
      EXPECT_TRUE(o.scope.evidence()) << o.id;
      EXPECT_FALSE(o.scope.assumed.empty()) << o.id << ": a generalized obligation states what it assumes";
      ASSERT_EQ(o.smt_answer(), smt::Answer::Unsat) << o.id;
      EXPECT_EQ(o.premises, "sat") << o.id;
      auto dropped = smt::solve_smt2(without_assertion(o.query(), 1), 20000);
      EXPECT_EQ(dropped.answer, smt::Answer::Sat)
          << o.id << ": still " << smt::to_string(dropped.answer) << " without its key premise (assertion 1)";
    }
  EXPECT_EQ(seen, want);
}

// The induction step proves the recurrence of the IR's update, not any
// recurrence: with the step's expectation replaced by a wrong one (the folded
// mean decaying on unrouted steps, as the correct one does), the folded
// closed form no longer follows.
TEST(Evidence, P5FoldedStepRejectsTheCorrectRecurrence) {
  auto r = test::prove_one("P5", [] {
    verifier::ProveOptions o;
    o.witnesses = false;
    return o;
  }());
  for (const auto& o : r.obligations) {
    if (o.id != "P5.mean_folded.step.reals") continue;
    std::string q = o.query();
    // The folded step's unrouted branch is (* (- 1.0 p) M_k); the correct one's decays it.
    auto at = q.find("(* (- 1.0 p) M_k)");
    ASSERT_NE(at, std::string::npos) << q;
    q.replace(at, std::string("(* (- 1.0 p) M_k)").size(), "(* (- 1.0 p) (* beta1 M_k))");
    EXPECT_EQ(smt::solve_smt2(q, 20000).answer, smt::Answer::Sat);
    return;
  }
  FAIL() << "P5.mean_folded.step.reals was not discharged";
}

// P2's identities are proved for every c in (0,1] and beta in [0,1) (issue
// #19: symbolic, not at c = 0.5 and the default betas): c and beta are
// variables of the query, which the parameters' values do not change, and
// the proof needs its goal. Without it the premises (the ranges of c and
// beta) are sat, and so is the negated identity with its right-hand side
// mutated: the clip scale c^k squared, or beta squared.
TEST(Evidence, P2IdentitiesAreSymbolicAndNeedTheirGoal) {
  verifier::ProveOptions defaults;
  defaults.witnesses = false;
  verifier::ProveOptions other = defaults;
  for (auto [k, v] : std::initializer_list<std::pair<const char*, const char*>>{
           {"c", "0.25"}, {"beta1", "0"}, {"beta2", "0.5"}})
    other.overrides[k] = verifier::parse_param_assignment(std::string(k) + "=" + v).second;
  auto d = test::prove_one("P2", defaults), o = test::prove_one("P2", other);
  size_t seen = 0;
  for (const auto& ob : d.obligations) {
    if (ob.id.rfind("P2.identity.", 0) != 0) continue;
    ++seen;
    const std::string beta = ob.id.back() == 'm' ? "beta1" : "beta2";
    EXPECT_TRUE(ob.scope.evidence()) << ob.id;
    EXPECT_EQ(ob.scope.fixed, "") << ob.id << ": nothing is fixed";
    EXPECT_NE(ob.scope.symbolic.find("c in (0,1]"), std::string::npos) << ob.scope.symbolic;
    EXPECT_NE(ob.scope.symbolic.find(beta + " in [0,1)"), std::string::npos) << ob.scope.symbolic;
    ASSERT_EQ(ob.smt_answer(), smt::Answer::Unsat) << ob.id;
    EXPECT_EQ(ob.premises, "sat") << ob.id;
    for (const auto& x : o.obligations)
      if (x.id == ob.id) EXPECT_EQ(x.query(), ob.query()) << ob.id << ": the parameters' values entered the query";

    z3::context c;
    z3::solver in(c);
    in.from_string(ob.query().c_str());
    z3::expr_vector all = in.assertions();
    ASSERT_GE(all.size(), 2u) << ob.id;
    z3::expr goal = all[all.size() - 1];  // (not (= lhs rhs))
    ASSERT_TRUE(goal.is_not() && goal.arg(0).is_eq()) << goal;
    z3::expr lhs = goal.arg(0).arg(0), rhs = goal.arg(0).arg(1);
    z3::expr cc = c.real_const("c"), b = c.real_const(beta.c_str());
    auto answer_with = [&](const z3::expr& new_rhs) {
      z3::solver s(c);
      for (unsigned i = 0; i + 1 < all.size(); ++i) s.add(all[i]);
      s.add(!(lhs == new_rhs));
      return s.check();
    };
    z3::expr_vector from(c), to(c);
    from.push_back(cc);
    to.push_back(cc * cc);
    EXPECT_EQ(answer_with(rhs.substitute(from, to)), z3::sat) << ob.id << ": (1 - c^k) read as (1 - c^2k)";
    from = z3::expr_vector(c);
    to = z3::expr_vector(c);
    from.push_back(b);
    to.push_back(b * b);
    EXPECT_EQ(answer_with(rhs.substitute(from, to)), z3::sat) << ob.id << ": " << beta << " read as its square";
    z3::solver premises(c);
    for (unsigned i = 0; i + 1 < all.size(); ++i) premises.add(all[i]);
    EXPECT_EQ(premises.check(), z3::sat) << ob.id << ": the goal dropped";
  }
  EXPECT_EQ(seen, 2u);
}
