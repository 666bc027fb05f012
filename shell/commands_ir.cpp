// Shell commands over IR checking: load (certify an .mlir file), candidates,
// why (the diagnostics, failed obligations and counterexample of one
// candidate, compiler-style).
#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "shell/session.h"
#include "support/diag/render.h"

namespace fusecert::shell {

using nlohmann::ordered_json;

namespace {
std::string diag_text(const guards::Diagnostic& d) { return diag::render_text(d); }
std::string consumer_name(const guards::CandidateReport& c) {
  if (!c.consumer_op.empty()) return c.consumer_op + (c.recognized.empty() ? "" : " (" + c.recognized + ")");
  return "no optimizer consumer";
}
}  // namespace

Reply Session::cmd_load(const Args& a) {
  if (a.size() != 1) throw std::invalid_argument("usage: load FILE.mlir");
  cert::InputReport in = cert::certify_file(a[0], opt_.timeout_ms);
  std::ostringstream o;
  for (const auto& d : in.diags) o << diag_text(d);
  ordered_json arr = ordered_json::array();
  size_t first = cands_.size() + 1;
  inputs_.push_back(std::move(in));
  const auto& r = inputs_.back();
  for (size_t i = 0; i < r.candidates.size(); ++i) {
    cands_.push_back({inputs_.size() - 1, i});
    const auto& c = r.candidates[i];
    o << "  " << cands_.size() << "  " << c.verdict << "  " << c.producer_op << " -> " << consumer_name(c) << "  at "
      << c.producer_loc.str() << "\n";
    arr.push_back({{"n", cands_.size()}, {"verdict", c.verdict}, {"producer", c.producer_op},
                   {"consumer", c.consumer_op}, {"location", c.producer_loc.str()}});
  }
  o << r.file << ": " << r.candidates.size() << " candidate" << (r.candidates.size() == 1 ? "" : "s");
  if (!r.candidates.empty()) o << " (numbered " << first << ".." << cands_.size() << "; 'why N' explains one)";
  o << "\n";
  ordered_json diags = ordered_json::array();
  for (const auto& d : r.diags) diags.push_back(ordered_json(diag::to_json(d)));
  ordered_json j{{"command", "load"}, {"status", r.diags.empty() ? "ok" : "error"}, {"file", r.file},
                 {"parsed", r.parsed}, {"diagnostics", diags}, {"candidates", arr}};
  const bool input_errors = diag::any_error(r.diags);
  return Reply{input_errors ? kError : kAnswered, o.str(), j};
}

Reply Session::cmd_candidates(const Args& a) {
  if (!a.empty()) throw std::invalid_argument("usage: candidates");
  std::ostringstream o;
  ordered_json arr = ordered_json::array();
  for (size_t k = 0; k < cands_.size(); ++k) {
    const auto& c = inputs_[cands_[k].input].candidates[cands_[k].index];
    o << "  " << k + 1 << "  " << c.verdict << "  " << c.producer_op << " -> " << consumer_name(c) << "  at "
      << c.producer_loc.str() << "\n";
    arr.push_back({{"n", k + 1}, {"verdict", c.verdict}, {"location", c.producer_loc.str()}});
  }
  if (cands_.empty()) o << "no candidates loaded (load FILE.mlir)\n";
  return Reply{kAnswered, o.str(), {{"command", "candidates"}, {"status", "ok"}, {"candidates", arr}}};
}

Reply Session::cmd_why(const Args& a) {
  if (a.size() != 1) throw std::invalid_argument("usage: why N (N from 'candidates')");
  size_t n = 0, pos = 0;
  try {
    n = std::stoul(a[0], &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  if (pos != a[0].size() || n == 0 || n > cands_.size())
    throw std::invalid_argument("no candidate '" + a[0] + "'; " +
                                (cands_.empty() ? std::string("load an .mlir file first")
                                                : "candidates are numbered 1.." + std::to_string(cands_.size())));
  const auto& c = inputs_[cands_[n - 1].input].candidates[cands_[n - 1].index];
  last_why_ = n;  // `cx` now shows this candidate's counterexample
  std::ostringstream o;
  o << "candidate " << n << ": " << c.producer_op << " -> " << consumer_name(c) << " is " << c.verdict << "\n";
  ordered_json diags = ordered_json::array(), failed = ordered_json::array();
  for (const auto& d : c.diags) {
    o << diag_text(d);
    diags.push_back(ordered_json(diag::to_json(d)));
  }
  for (const auto& ob : c.obligations) {
    if (ob.holds() || !ob.decides) continue;
    o << "obligation " << ob.id << " (" << ob.how << "): " << ob.answer << ", needs " << ob.expected << "\n"
      << "    claim: " << ob.claim << "\n";
    if (!ob.evidence.empty()) o << "    found: " << ob.evidence << "\n";
    if (!ob.reason.empty()) o << "    solver: " << ob.reason << "\n";
    failed.push_back({{"id", ob.id}, {"how", ob.how}, {"answer", ob.answer}, {"expected", ob.expected},
                      {"claim", ob.claim}, {"evidence", ob.evidence}});
  }
  ordered_json cx = nullptr;
  if (c.counterexample) {
    o << "counterexample (" << c.counterexample->obligation << "): " << c.counterexample->summary << "\n";
    cx = {{"obligation", c.counterexample->obligation}, {"summary", c.counterexample->summary},
          {"values", ordered_json::array()}};
    for (const auto& v : c.counterexample->values) {
      o << "  " << v.name << " = " << v.value << (v.sort.empty() ? "" : "   " + v.sort) << "\n";
      cx["values"].push_back({{"name", v.name}, {"sort", v.sort}, {"value", v.value}});
    }
  }
  if (c.verdict == "legal") o << "every deciding obligation holds; nothing makes it illegal\n";
  return Reply{kAnswered, o.str(),
               {{"command", "why"}, {"status", "ok"}, {"n", n}, {"verdict", c.verdict}, {"diagnostics", diags},
                {"failed_obligations", failed}, {"counterexample", cx}}};
}

Reply Session::candidate_cx(size_t n) {
  const auto& c = inputs_[cands_[n - 1].input].candidates[cands_[n - 1].index];
  std::ostringstream o;
  ordered_json j{{"command", "cx"}, {"status", "ok"}, {"candidate", n}, {"verdict", c.verdict}};
  if (!c.counterexample) {
    o << "candidate " << n << " (" << c.verdict << ") has no counterexample\n";
    j["counterexample"] = nullptr;
    return Reply{kAnswered, o.str(), j};
  }
  const auto& cx = *c.counterexample;
  o << "candidate " << n << ": " << c.producer_op << " -> " << consumer_name(c) << " at " << c.producer_loc.str()
    << "\ncounterexample from " << cx.obligation << ": " << cx.summary << "\n";
  size_t w = 4;
  for (const auto& v : cx.values) w = std::max(w, v.name.size());
  ordered_json vals = ordered_json::array();
  for (const auto& v : cx.values) {
    o << "  " << v.name << std::string(w - v.name.size(), ' ') << " = " << v.value
      << (v.sort.empty() ? "" : "   " + v.sort) << (v.bits.empty() ? "" : "  bits " + v.bits) << "\n";
    ordered_json m{{"name", v.name}, {"sort", v.sort}, {"value", v.value}};
    if (!v.bits.empty()) m["bits"] = v.bits;
    vals.push_back(m);
  }
  j["counterexample"] = {{"obligation", cx.obligation}, {"summary", cx.summary}, {"values", vals}};
  return Reply{kAnswered, o.str(), j};
}

}  // namespace fusecert::shell
