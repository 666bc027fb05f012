// Shell commands over the prover: list, show, prove, cx, obligations, smt.
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "shell/session.h"
#include "verifier/report/report.h"

namespace fusecert::shell {

using nlohmann::ordered_json;
using verifier::PropositionResult;

namespace {
std::string fmt_ms(double ms) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f ms", ms);
  return b;
}
std::string answer(smt::Answer a) { return std::string(smt::to_string(a)); }

ordered_json proposition_json(const PropositionResult& r, const verifier::Registry& reg) {
  return verifier::report::render_json({r}, reg)["propositions"][0];
}

void print_counterexample(std::ostringstream& o, const verifier::Counterexample& c) {
  o << "counterexample from " << c.obligation << ": " << c.summary << "\n";
  size_t w = 4;
  for (const auto& v : c.values) w = std::max(w, v.name.size());
  for (const auto& v : c.values) {
    char line[512];
    std::snprintf(line, sizeof line, "  %-*s = %-24s %s%s%s\n", static_cast<int>(w), v.name.c_str(), v.value.c_str(),
                  v.sort.c_str(), v.bits.empty() ? "" : "  bits ", v.bits.c_str());
    o << line;
  }
  for (const auto& [k, v] : c.replay) o << "  replay " << k << " = " << v << "\n";
  o << "  replay in C++ " << (c.replay_confirms ? "confirms" : "DOES NOT confirm") << " the counterexample\n";
}
}  // namespace

PropositionResult Session::run_prove(const std::string& id, const std::map<std::string, verifier::Param>& overrides) {
  const auto& s = spec(id);
  verifier::ProveOptions o = opt_;
  o.overrides = overrides;
  if (auto bad = verifier::unknown_params(reg_, {s.id}, overrides); !bad.empty()) {
    std::string names;
    for (const auto& [k, p] : s.params) names += " " + k;
    throw std::invalid_argument("'" + bad[0] + "' is not a parameter of " + s.id + "; its parameters:" + names);
  }
  auto rs = verifier::prove(reg_, {s.id}, o);
  if (rs.size() != 1) throw std::runtime_error("prover returned " + std::to_string(rs.size()) + " results for " + s.id);
  return rs[0];
}

const PropositionResult& Session::proof(const std::string& id) {
  const auto& s = spec(id);
  auto it = last_.find(s.id);
  if (it == last_.end()) it = last_.emplace(s.id, run_prove(s.id, {})).first;
  return it->second;
}

const PropositionResult& Session::latest(const std::string& id) {
  const auto& s = spec(id);
  if (auto it = latest_.find(s.id); it != latest_.end()) return it->second;
  auto ov = latest_overrides_.find(s.id);
  if (ov == latest_overrides_.end() || ov->second.empty()) return proof(s.id);
  return latest_.emplace(s.id, run_prove(s.id, ov->second)).first->second;
}

Reply Session::cmd_list(const Args& a) {
  if (!a.empty()) throw std::invalid_argument("usage: list");
  std::ostringstream o;
  ordered_json arr = ordered_json::array();
  for (const auto& id : verifier::known_ids(reg_)) {
    const auto& s = *reg_.find(id);
    char line[512];
    std::snprintf(line, sizeof line, "%-4s %-12s %s\n", s.id.c_str(), verifier::to_string(s.expected).c_str(),
                  s.title.c_str());
    o << line;
    arr.push_back({{"id", s.id}, {"expected", verifier::to_string(s.expected)}, {"title", s.title}});
  }
  return Reply{kAnswered, o.str(), {{"command", "list"}, {"status", "ok"}, {"propositions", arr}}};
}

Reply Session::cmd_show(const Args& a) {
  if (a.size() != 1) throw std::invalid_argument("usage: show ID (e.g. show P2)");
  const auto& s = spec(a[0]);
  const auto& r = proof(s.id);
  std::ostringstream o;
  o << s.id << " — " << s.title << "\n"
    << "statement: " << s.statement << "\n"
    << "assessment's wording: \"" << s.assessment_wording << "\"\n"
    << "verdict: " << verifier::to_string(r.verdict) << " (expected " << verifier::to_string(s.expected) << ")\n";
  ordered_json assumptions = ordered_json::array(), params = ordered_json::object();
  if (!s.assumptions.empty()) o << "assumptions:\n";
  for (const auto& x : s.assumptions) {
    o << "  - " << x << "\n";
    assumptions.push_back(x);
  }
  if (!s.params.empty()) o << "parameters (change with: prove " << s.id << " name=value):\n";
  for (const auto& [k, p] : s.params) {
    o << "  " << k << " = " << p.text << (p.meaning.empty() ? "" : "  — " + p.meaning) << "\n";
    params[k] = {{"value", p.text}, {"meaning", p.meaning}};
  }
  for (const auto& n : r.notes) o << note_line(n);
  ordered_json j{{"command", "show"},        {"status", "ok"},
                 {"id", s.id},               {"title", s.title},
                 {"statement", s.statement}, {"assessment_wording", s.assessment_wording},
                 {"verdict", verifier::to_string(r.verdict)}, {"expected", verifier::to_string(s.expected)},
                 {"assumptions", assumptions}, {"parameters", params},
                 {"notes", r.notes}};
  return Reply{r.verdict == verifier::Verdict::Inconclusive ? kInconclusive : kAnswered, o.str(), j};
}

Reply Session::cmd_prove(const Args& a) {
  if (a.empty()) throw std::invalid_argument("usage: prove ID [name=value...] (e.g. prove P2 beta1=0)");
  const auto& s = spec(a[0]);
  std::map<std::string, verifier::Param> overrides;
  for (size_t i = 1; i < a.size(); ++i) {
    auto [name, prm] = verifier::parse_param_assignment(a[i]);
    if (overrides.count(name))
      throw std::invalid_argument("parameter '" + name + "' is given twice (" + overrides[name].text + " and " +
                                  prm.text + ")");
    overrides[name] = prm;
  }
  PropositionResult r = run_prove(s.id, overrides);
  const PropositionResult* base = overrides.empty() ? nullptr : &proof(s.id);
  if (overrides.empty()) last_[s.id] = r;
  // This proof, with its parameters, is now the one cx / obligations / smt answer for.
  latest_[s.id] = r;
  latest_overrides_[s.id] = overrides;
  last_id_ = s.id;
  last_why_ = 0;

  std::ostringstream o;
  o << s.id << " — " << s.statement << "\n";
  ordered_json changes = ordered_json::array();
  if (!overrides.empty()) {
    o << "parameters:";
    for (const auto& [k, p] : overrides) {
      auto d = s.params.find(k);
      o << " " << k << "=" << p.text << (d != s.params.end() ? " (default " + d->second.text + ")" : "");
    }
    o << "\n";
  }
  o << "verdict: " << verifier::to_string(r.verdict);
  if (base) o << "   (at the defaults: " << verifier::to_string(base->verdict) << ")";
  else o << "   (expected " << verifier::to_string(r.expected) << ")";
  o << "\n";
  for (const auto& ob : r.obligations) {
    std::string was;
    if (base)
      for (const auto& bo : base->obligations)
        if (bo.id == ob.id && bo.answer != ob.answer) {
          was = answer(bo.smt_answer());
          changes.push_back({{"obligation", ob.id}, {"at_defaults", was}, {"now", answer(ob.smt_answer())}});
        }
    o << "  " << ob.id << ": " << answer(ob.smt_answer()) << " (needs " << answer(ob.smt_expected()) << ", "
      << fmt_ms(ob.time_ms) << (ob.cached ? ", cached" : "") << ")"
      << (was.empty() ? "" : "   changed: was " + was + " at the defaults") << "\n"
      << "      " << ob.claim << "\n";
    if (!ob.reason.empty()) o << "      solver: " << ob.reason << "\n";
  }
  if (base) {
    if (base->verdict != r.verdict)
      o << "what changes: the verdict goes from " << verifier::to_string(base->verdict) << " to "
        << verifier::to_string(r.verdict) << "\n";
    else if (changes.empty())
      o << "what changes: nothing — the same verdict and the same answer for every obligation\n";
  }
  for (const auto& n : r.notes) o << note_line(n);
  if (r.counterexample)
    o << "counterexample (" << r.counterexample->obligation << "): " << r.counterexample->summary
      << "\n  (type 'cx' for every variable)\n";
  if (r.witness)
    for (const auto& f : r.witness->figures) o << "witness " << f.name << " = " << f.value << "\n";

  ordered_json j{{"command", "prove"}, {"status", "ok"}, {"proposition", proposition_json(r, reg_)}};
  if (base) {
    j["verdict_at_defaults"] = verifier::to_string(base->verdict);
    j["changes"] = changes;
  }
  return Reply{r.verdict == verifier::Verdict::Inconclusive ? kInconclusive : kAnswered, o.str(), j};
}

Reply Session::cmd_cx(const Args& a) {
  if (a.size() > 1) throw std::invalid_argument("usage: cx [ID]");
  if (a.empty() && last_why_ > 0) return candidate_cx(last_why_);
  if (a.empty() && last_id_.empty())
    throw std::invalid_argument("no proof yet: run 'prove ID' or 'why N' first, or give an id: cx P2");
  const PropositionResult* r = &latest(a.empty() ? last_id_ : a[0]);
  std::ostringstream o;
  ordered_json j{{"command", "cx"}, {"status", "ok"}, {"id", r->id}};
  if (r->params_overridden) {
    o << r->id << " with";
    for (const auto& [k, v] : r->params) o << " " << k << "=" << v;
    o << "\n";
  }
  if (!r->counterexample) {
    o << r->id << " has no counterexample: no deciding obligation was satisfiable (verdict "
      << verifier::to_string(r->verdict) << ")\n";
  } else {
    print_counterexample(o, *r->counterexample);
  }
  j["counterexample"] = verifier::report::counterexample_json(r->counterexample);
  return Reply{kAnswered, o.str(), j};
}

Reply Session::cmd_obligations(const Args& a) {
  if (a.size() > 1) throw std::invalid_argument("usage: obligations [ID]");
  if (a.empty() && last_id_.empty()) throw std::invalid_argument("no proof yet: give an id, e.g. obligations P2");
  const auto& r = latest(a.empty() ? last_id_ : a[0]);
  std::ostringstream o;
  ordered_json arr = ordered_json::array();
  if (r.params_overridden) {
    o << r.id << " with";
    for (const auto& [k, v] : r.params) o << " " << k << "=" << v;
    o << "\n";
  }
  for (const auto& ob : r.obligations) {
    o << ob.id << "  " << answer(ob.smt_answer()) << " (needs " << answer(ob.smt_expected()) << ")  " << ob.claim << "\n";
    arr.push_back({{"id", ob.id}, {"answer", answer(ob.smt_answer())}, {"expected", answer(ob.smt_expected())}, {"claim", ob.claim}});
  }
  ordered_json j{{"command", "obligations"}, {"status", "ok"}, {"id", r.id}};
  if (r.params_overridden) j["parameters"] = r.params;
  j["obligations"] = arr;
  return Reply{kAnswered, o.str(), j};
}

Reply Session::cmd_smt(const Args& a) {
  if (a.size() != 1) throw std::invalid_argument("usage: smt OBLIGATION ('obligations ID' lists the ids)");
  const std::string& want = a[0];
  auto find_in = [&](const PropositionResult& r) -> const verifier::Obligation* {
    for (const auto& ob : r.obligations)
      if (ob.id == want) return &ob;
    return nullptr;
  };
  // The last proof first, then every other proof of this session, newest
  // parameters before the defaults; else prove the id's proposition.
  const verifier::Obligation* hit = nullptr;
  if (auto it = latest_.find(last_id_); it != latest_.end()) hit = find_in(it->second);
  for (auto it = latest_.begin(); !hit && it != latest_.end(); ++it) hit = find_in(it->second);
  for (auto it = last_.begin(); !hit && it != last_.end(); ++it) hit = find_in(it->second);
  if (!hit) {
    const std::string forms =
        "obligation ids are PROPOSITION.NAME, e.g. P2.recover.m; 'obligations ID' lists a proposition's ids";
    size_t dot = want.find('.');
    const verifier::PropositionSpec* ps = nullptr;
    if (dot != std::string::npos && dot > 0) {
      try {
        ps = &spec(want.substr(0, dot));
      } catch (const std::invalid_argument&) {
      }
    }
    if (!ps) {
      std::string known;
      for (const auto& k : verifier::known_ids(reg_)) known += " " + k;
      throw std::invalid_argument("unknown obligation '" + want + "'; " + forms + " (propositions:" + known + ")");
    }
    const auto& r = latest(ps->id);
    hit = find_in(r);
    if (!hit) {
      std::string ids;
      for (const auto& ob : r.obligations) ids += " " + ob.id;
      throw std::invalid_argument("unknown obligation '" + want + "'; " + r.id + " has:" + ids);
    }
  }
  const std::string& text = hit->query();
  return Reply{kAnswered, text + (text.empty() || text.back() != '\n' ? "\n" : ""),
               {{"command", "smt"}, {"status", "ok"}, {"obligation", hit->id}, {"smt2", text}}};
}

}  // namespace fusecert::shell
