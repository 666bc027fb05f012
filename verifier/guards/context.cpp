// GuardContext helpers, the verdict rule, and the per-candidate driver.
#include <algorithm>
#include <chrono>
#include <mutex>
#include <unordered_map>

#include <stdexcept>

#include "verifier/guards/guards.h"
#include "verifier/ir/attributes.h"
#include "verifier/guards/assumptions.h"
#include "verifier/guards/obligations.h"
#include "verifier/guards/recognition.h"

namespace fusecert::guards {

const ir::Op* GuardContext::consumer() const {
  return c.consumer >= 0 ? &m.ops[c.consumer] : nullptr;
}

Obligation& GuardContext::structural(const std::string& id, const std::string& claim, const std::string& answer,
                                     const std::string& evidence, bool decides) {
  // The table is the contract check-cert enforces: a guard that disagrees
  // with it is a bug, not a certificate to write. A structural `missing`
  // placeholder may stand for any obligation (a key the query needs is absent).
  const ObligationSpec* spec = find_obligation(id);
  if (!spec || spec->decides != decides || (std::string(spec->how) != "structural" && answer != "missing"))
    throw std::logic_error("obligation " + id + " (structural) disagrees with verifier/guards/obligations.h");
  Obligation o;
  o.id = id;
  o.proposition = id.substr(0, id.find('.'));
  o.how = "structural";
  o.claim = claim;
  o.decides = decides;
  o.expected = "holds";
  o.answer = answer;
  o.evidence = evidence;
  out.obligations.push_back(std::move(o));
  return out.obligations.back();
}

Obligation& GuardContext::smt(const std::string& id, const std::string& claim, std::shared_ptr<const std::string> text,
                              const std::string& expected, const std::string& logic, bool decides) {
  const ObligationSpec* spec = find_obligation(id);
  if (!spec || spec->decides != decides || std::string(spec->how) != "smt" || expected != spec->expected)
    throw std::logic_error("obligation " + id + " (smt) disagrees with verifier/guards/obligations.h");
  Obligation o;
  o.id = id;
  o.proposition = id.substr(0, id.find('.'));
  o.how = "smt";
  o.claim = claim;
  o.decides = decides;
  o.expected = expected;
  o.smt2 = text;
  o.logic = logic;
  o.fp_exp = text->find("(_ FloatingPoint 8 8)") != std::string::npos ||
             text->find("(_ FloatingPoint 5 11)") != std::string::npos;
  // Identical (memoized) query texts share one object: answer them once
  // without re-hashing the text for the solver cache.
  static std::mutex mu;
  static std::unordered_map<const std::string*, std::pair<std::weak_ptr<const std::string>, smt::CheckResult>> seen;
  smt::CheckResult r;
  bool hit = false;
  {
    std::lock_guard<std::mutex> l(mu);
    auto it = seen.find(text.get());
    if (it != seen.end() && !it->second.first.expired() && it->second.first.lock() == text) {
      r = it->second.second;
      hit = true;
    }
  }
  if (!hit) {
    r = smt::solve_smt2(*text, timeout_ms);
    if (smt::is_definite(r.answer)) {
      std::lock_guard<std::mutex> l(mu);
      seen[text.get()] = {text, r};
    }
  }
  return record(o, r);
}

Obligation& GuardContext::smt_answered(const std::string& id, const std::string& claim, const std::string& smt2,
                                       const std::string& expected, const std::string& logic,
                                       const smt::CheckResult& r) {
  const ObligationSpec* spec = find_obligation(id);
  if (!spec || std::string(spec->how) != "smt" || expected != spec->expected)
    throw std::logic_error("obligation " + id + " (smt) disagrees with verifier/guards/obligations.h");
  Obligation o;
  o.id = id;
  o.proposition = id.substr(0, id.find('.'));
  o.how = "smt";
  o.claim = claim;
  o.decides = spec->decides;
  o.expected = expected;
  o.smt2 = std::make_shared<const std::string>(smt2);
  o.logic = logic;
  o.fp_exp = smt2.find("(_ FloatingPoint 8 8)") != std::string::npos ||
             smt2.find("(_ FloatingPoint 5 11)") != std::string::npos;
  return record(o, r);
}

Obligation& GuardContext::record(Obligation& o, const smt::CheckResult& r) {
  o.answer = std::string(smt::to_string(r.answer));
  if (r.premises) o.premises = std::string(smt::to_string(*r.premises));
  o.time_ms = r.time_ms;
  o.reason = r.reason;
  if (!r.premises_reason.empty()) o.reason += (o.reason.empty() ? "" : "; ") + r.premises_reason;
  o.model = r.model;
  out.obligations.push_back(std::move(o));
  return out.obligations.back();
}

namespace {
Diagnostic& add(CandidateReport& out, diag::Severity sev, const std::string& prop, const std::string& rule,
                const ir::Loc& loc, const std::string& msg) {
  // The rule id names the proposition (its prefix): one source for both.
  if (rule.compare(0, prop.size() + 1, prop + ".") != 0)
    throw std::logic_error("diagnostic rule " + rule + " is not an obligation of " + prop);
  out.diags.push_back(diag::make(sev, loc, rule, msg));
  return out.diags.back();
}
}  // namespace

Diagnostic& GuardContext::error(const std::string& prop, const std::string& rule, const ir::Loc& loc,
                                const std::string& msg) {
  return add(out, diag::Severity::Error, prop, rule, loc, msg);
}

Diagnostic& GuardContext::warning(const std::string& prop, const std::string& rule, const ir::Loc& loc,
                                  const std::string& msg) {
  return add(out, diag::Severity::Warning, prop, rule, loc, msg);
}

Diagnostic& GuardContext::remark(const std::string& prop, const std::string& rule, const ir::Loc& loc,
                                 const std::string& msg) {
  return add(out, diag::Severity::Remark, prop, rule, loc, msg);
}

const ir::Attr* GuardContext::require(const ir::Op& op, const std::string& key, const std::string& prop,
                                      const std::string& obligation_id, const std::string& meaning) {
  if (const ir::Attr* a = op.attr(key)) return a;
  if (op.is_refused(key)) {
    // The boundary's input.attr.* error already says why: not read, not
    // reported twice, and the obligation stays open.
    structural(obligation_id, "the semantic key '" + key + "' is declared on " + op.name, "missing",
               "attribute '" + key + "' on " + op.name + " at " + op.loc.str() +
                   " was refused at the attribute boundary (input.attr.*): fusecert does not read it");
    return nullptr;
  }
  structural(obligation_id, "the semantic key '" + key + "' is declared on " + op.name, "missing",
             "attribute '" + key + "' absent on " + op.name + " at " + op.loc.str());
  auto& d = error(prop, obligation_id, op.loc,
                  "missing semantic key '" + key + "' on " + op.name + ": fusecert does not assume a default (" +
                      meaning + ")");
  d.notes.push_back(producer_note("weight-gradient producer of this candidate"));
  return nullptr;
}

const ir::Attr* GuardContext::use_assumption(const std::string& key, const std::string& prop,
                                             const std::string& obligation_id, const ir::Loc& loc,
                                             const std::string& why) {
  const ir::Attr* a = assumed(key);
  if (!a) return nullptr;
  bool listed = false;
  for (auto& kv : out.assumed) listed = listed || kv.first == key;
  if (!listed) out.assumed.emplace_back(key, a->text);
  remark(prop, obligation_id, loc, "assumed " + key + " = \"" + a->text + "\" (" + assumption_source(key) + "): " + why);
  return a;
}

namespace {
/// The key stating `meaning` on `op`: its table's spelling of a meaning; a
/// fact no table renames (unrouted) under its own name.
std::string fact_key(const ir::Op& op, const std::string& meaning) {
  const auto& known = ir::meanings();
  return std::find(known.begin(), known.end(), meaning) != known.end() ? ir::key_of(op, meaning) : meaning;
}
}  // namespace

const ir::Attr* GuardContext::stated(const std::string& meaning, const ir::Op** at) const {
  for (int id : facts.stating_ops)
    if (const ir::Attr* a = m.ops[id].attr(fact_key(m.ops[id], meaning))) {
      if (at) *at = &m.ops[id];
      return a;
    }
  return nullptr;
}

const ir::Attr* GuardContext::fact(const std::string& meaning, const std::string& prop,
                                   const std::string& obligation_id, const std::string& values, const ir::Op** at) {
  const ir::Op& op = *consumer();
  const std::string key = fact_key(op, meaning);
  if (at) *at = &op;
  // Stated on any op of the consumer slice (a chain states it on the op
  // writing W'): the IR's statement, which beats an assumption. Stated, but
  // of a kind or under a key the boundary refused: its input.attr.* error
  // already says so, and an assumption does not stand in for what the IR
  // states. The obligation stays open (require).
  const ir::Op* where = nullptr;
  const ir::Attr* said = stated(meaning, &where);
  for (int id : facts.stating_ops) {
    const ir::Op& o = m.ops[id];
    const std::string k = fact_key(o, meaning);
    if (o.is_refused(k)) return require(o, k, prop, obligation_id, values);
    const ir::Attr* a = o.attr(k);
    if (!a || (a->kind == said->kind && a->text == said->text)) continue;
    // Two ops of one consumer stating two values of one fact: the IR
    // contradicts itself, and fusecert does not pick one (inconclusive).
    const std::string one = k + " = \"" + a->text + "\" on " + o.name,
                      other = fact_key(*where, meaning) + " = \"" + said->text + "\" on " + where->name;
    structural(obligation_id, "the fact '" + meaning + "' is stated with one value on the consumer", "missing",
               one + " at " + o.loc.str() + ", but " + other + " at " + where->loc.str());
    auto& d = error(prop, obligation_id, o.loc,
                    one + " contradicts " + other + " of the same consumer: fusecert does not pick one value of a "
                          "fact the IR states twice");
    d.notes.push_back({where->loc, "the other statement is here"});
    d.notes.push_back(producer_note("weight-gradient producer of this candidate"));
    return nullptr;
  }
  if (said) {
    if (at) *at = where;
    return said;
  }
  if (const ir::Attr* a = use_assumption(meaning, prop, obligation_id, op.loc, op.name + " does not state '" + key + "'"))
    return a;
  // Neither shown nor assumed: the IR is not wrong (the fact is outside it),
  // the candidate is inconclusive (exit 3), and the warning names what to add.
  structural(obligation_id, "the fact '" + meaning + "' is shown by the IR or assumed", "missing",
             "attribute '" + key + "' absent on " + op.name + " at " + op.loc.str() + " and no assumption " + meaning);
  auto& d = warning(prop, obligation_id, op.loc,
                    "'" + key + "' is neither stated on " + op.name + " nor assumed: fusecert does not assume a "
                    "default (" + values + "); the candidate is inconclusive");
  d.notes.push_back(producer_note("weight-gradient producer of this candidate"));
  if (facts.stating_ops.size() > 1)
    d.notes.push_back({op.loc, "nor do the " + std::to_string(facts.stating_ops.size() - 1) +
                                   " later ops of the consumer computed from the gradient"});
  d.notes.push_back({op.loc, "the IR does not state it: state it as the attribute '" + key +
                                 "', or assume it with --assume " + meaning + "=VALUE (or under ir.assume: in "
                                 ".fusecert.yaml)"});
  // A near-miss key the op does carry (grad_clip_scop on a linalg.generic,
  // which no table checks at the boundary): say which, so the warning is
  // not only "not stated". A key the boundary refused has its own error.
  std::vector<std::string> carried;
  for (const auto& [k, v] : op.attrs) {
    // A key that is itself the spelling of a meaning (grad_clip_scale beside
    // grad_clip_scope) is no misspelling of another.
    bool meant = false;
    for (const auto& m : ir::meanings()) meant = meant || ir::key_of(op, m) == k;
    if (!meant && !op.is_refused(k)) carried.push_back(k);
  }
  if (const std::string near = ir::nearest_key(key, carried); !near.empty())
    d.notes.push_back({op.loc, op.name + " carries '" + near + "' (did you mean '" + key +
                                   "'?): a misspelt key is not read, so '" + key + "' stays unstated"});
  return nullptr;
}

std::shared_ptr<const std::string> memo_query(const std::string& key, const std::function<std::string()>& build) {
  static std::mutex mu;
  static std::unordered_map<std::string, std::shared_ptr<const std::string>> table;
  {
    std::lock_guard<std::mutex> l(mu);
    if (auto it = table.find(key); it != table.end()) return it->second;
  }
  auto v = std::make_shared<const std::string>(build());
  std::lock_guard<std::mutex> l(mu);
  return table.emplace(key, v).first->second;
}

std::string decide(const std::vector<Obligation>& obs) {
  bool failed = false, open = false;
  for (auto& o : obs) {
    if (!o.decides) continue;
    if (o.decided() && !o.holds()) failed = true;
    if (!o.decided()) open = true;
  }
  return failed ? "illegal" : open ? "inconclusive" : "legal";
}

CandidateReport check_candidate(const ir::Module& m, const ir::Candidate& c, unsigned timeout_ms) {
  CandidateReport r;
  r.cand = c;
  r.function = m.funcs[c.func].name;
  const ir::Op& p = m.ops[c.producer];
  r.producer_op = p.name;
  r.producer_loc = p.loc;
  int cons = c.consumer >= 0 ? c.consumer : c.downstream;
  if (cons >= 0) {
    r.consumer_op = m.ops[cons].name;
    r.consumer_loc = m.ops[cons].loc;
  }
  // Facts first, once; every guard gets them read-only.
  const Facts facts = compute_facts(m, c);
  r.recognized = facts.optimizer;
  r.weight_value = facts.weight_value;
  r.state_values = facts.state_values;
  GuardContext g{m, c, timeout_ms, facts, r};
  // A bufferized function read as a tensor program that it computes only
  // when its buffer arguments are distinct: without that fact no guard
  // reasons about the reading (never legal, never illegal on it).
  if (guard_buffer_args(g)) {
    guard_single_use(g);
    guard_k_whole(g);
    // An opaque consumer (a table op without a body): every later guard would
    // reason about what it computes, which fusecert does not know. Only the
    // producer's own guard (K whole) runs; single use recorded `missing`.
    if (!facts.opaque) {
      guard_clip_scope(g);
      guard_reduce_into_state(g);
      guard_routing(g);
      guard_locality(g);
      guard_accumulator(g);
      guard_inplace_order(g);
      guard_residency(g);
    }
  }
  r.verdict = decide(r.obligations);
  if (r.verdict == "illegal") {
    for (auto& o : r.obligations) {
      if (!o.decides || !o.decided() || o.holds()) continue;
      Counterexample cx;
      cx.obligation = o.id;
      cx.summary = o.claim + " — fails";
      if (o.how == "smt") {
        cx.values = o.model;
        cx.summary = "a model of the negated claim: " + o.claim + " does not hold for these values";
      } else {
        cx.values.push_back({"evidence", "", o.evidence, ""});
        cx.summary = "structural: " + o.evidence;
      }
      // Prefer an SMT model when one refutes a deciding obligation.
      if (!r.counterexample || (r.counterexample->values.size() == 1 && o.how == "smt")) r.counterexample = cx;
    }
    // Structural witnesses (e.g. the sample point where a consumer body and
    // the reference update differ) join the counterexample.
    for (auto& o : r.obligations)
      if (o.decides && o.how == "structural" && o.decided() && !o.holds())
        for (auto& v : o.model)
          if (r.counterexample) r.counterexample->values.push_back({"sample: " + v.name, v.sort, v.value, v.bits});
  }
  if (r.residency.empty() && r.verdict == "legal") r.residency = "tile";
  // Recognition, a remark: only now, after the verdict, and read by no guard.
  remark_recognition(m, c, timeout_ms, facts, r);
  return r;
}

}  // namespace fusecert::guards
