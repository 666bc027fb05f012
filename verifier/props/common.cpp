#include "verifier/props/common.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace fusecert::verifier::props {

double param(const std::map<std::string, Param>& ps, const std::string& name) {
  auto it = ps.find(name);
  if (it == ps.end()) throw std::invalid_argument("encoder needs parameter '" + name + "', which the rules file does not declare");
  return it->second.value;
}

long iparam(const std::map<std::string, Param>& ps, const std::string& name, long lo, long hi) {
  double v = param(ps, name);
  if (v != std::floor(v) || v < lo || v > hi)
    throw std::invalid_argument("parameter '" + name + "' must be an integer in [" + std::to_string(lo) + ", " +
                                std::to_string(hi) + "], got " + fmt(v));
  return static_cast<long>(v);
}

double rparam(const std::map<std::string, Param>& ps, const std::string& name, double lo, bool lo_closed, double hi,
              bool hi_closed) {
  double v = param(ps, name);
  bool ok = (lo_closed ? v >= lo : v > lo) && (hi_closed ? v <= hi : v < hi);
  if (!ok) {
    auto bound = [](double b) { return std::isinf(b) ? std::string(b > 0 ? "inf" : "-inf") : fmt(b); };
    throw std::invalid_argument("parameter '" + name + "' must be in " + (lo_closed ? "[" : "(") + bound(lo) + ", " +
                                bound(hi) + (hi_closed ? "]" : ")") + ", got " + fmt(v));
  }
  return v;
}

model::Hyper hyper_from(const std::map<std::string, Param>& ps) {
  model::Hyper h;
  const double inf = HUGE_VAL;
  // The ranges of the optimizer's meaning (AdamW: 0 <= beta < 1, eps >= 0,
  // lam >= 0, lr >= 0; momentum 0 <= mu < 1): outside them the proof would
  // be about an update no optimizer performs.
  auto get = [&](const char* n, double& dst, double lo, double hi, bool hi_closed) {
    if (ps.count(n)) dst = rparam(ps, n, lo, true, hi, hi_closed);
  };
  get("beta1", h.beta1, 0, 1, false);
  get("beta2", h.beta2, 0, 1, false);
  get("eps", h.eps, 0, inf, false);
  get("lam", h.lam, 0, inf, false);
  get("lr", h.lr, 0, inf, false);
  get("mu", h.mu, 0, 1, false);
  if (ps.count("step")) h.step = static_cast<int>(iparam(ps, "step", 1, 1000000));
  return h;
}

Obligation& discharge(PropositionResult& out, const std::string& id, const std::string& claim, Scope scope,
                      const smt::Query& q, smt::Answer expected, unsigned timeout_ms) {
  return discharge(out, id, claim, std::move(scope), q.smt2(), expected, timeout_ms);
}

Obligation& discharge(PropositionResult& out, const std::string& id, const std::string& claim, Scope scope,
                      const std::string& smt2, smt::Answer expected, unsigned timeout_ms) {
  if (scope.theory.empty() || scope.symbolic.empty())
    throw std::logic_error(id + ": an obligation must state its theory and what is symbolic");
  Obligation ob;
  ob.id = id;
  ob.claim = claim;
  ob.scope = std::move(scope);
  ob.smt2 = std::make_shared<const std::string>(smt2);
  ob.expected = std::string(smt::to_string(expected));
  smt::CheckResult r = smt::solve_smt2(smt2, timeout_ms);
  ob.answer = std::string(smt::to_string(r.answer));
  ob.time_ms = r.time_ms;
  ob.reason = r.reason;
  ob.model = r.model;
  ob.cached = r.cached;
  if (r.premises) ob.premises = std::string(smt::to_string(*r.premises));
  ob.premises_reason = r.premises_reason;
  out.obligations.push_back(std::move(ob));
  return out.obligations.back();
}

std::string fixed_params(const std::map<std::string, Param>& ps, const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) {
    auto it = ps.find(n);
    if (it == ps.end()) throw std::logic_error("scope names parameter '" + n + "', which the rules file does not declare");
    s += (s.empty() ? "" : ", ") + n + " = " + it->second.text;
  }
  return s;
}

const smt::ModelValue& model_value(const Obligation& ob, const std::string& name) {
  for (const auto& v : ob.model)
    if (v.name == name) return v;
  throw std::logic_error(ob.id + ": model has no value for '" + name + "'");
}

double model_double(const Obligation& ob, const std::string& name) {
  const auto& v = model_value(ob, name);
  std::string s = v.value;
  if (!s.empty() && s.back() == '?') s.pop_back();  // Z3 marks truncated decimals with '?'
  if (s == "NaN") return NAN;
  if (s == "+oo") return INFINITY;
  if (s == "-oo") return -INFINITY;
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) throw std::logic_error(ob.id + ": cannot read model value '" + v.value + "' of " + name);
  return d;
}

Counterexample counterexample_from(const Obligation& ob, const std::string& summary) {
  Counterexample c;
  c.obligation = ob.id;
  c.summary = summary;
  c.values = ob.model;
  return c;
}

void set_witness(PropositionResult& out, const PropositionSpec& spec, const std::string& protocol,
                 const std::map<std::string, double>& values, bool params_overridden) {
  Witness w;
  w.protocol = protocol;
  for (const auto& fs : spec.figures) {
    auto it = values.find(fs.name);
    if (it == values.end()) throw std::logic_error(spec.id + ": witness did not compute figure '" + fs.name + "'");
    Figure f;
    f.name = fs.name;
    f.value = it->second;
    f.lo = fs.lo;
    f.hi = fs.hi;
    f.quoted = fs.quoted;
    f.meaning = fs.meaning;
    f.range_applies = !params_overridden;
    w.figures.push_back(f);
  }
  for (const auto& [name, v] : values) {
    bool declared = false;
    for (const auto& fs : spec.figures) declared |= fs.name == name;
    if (!declared) throw std::logic_error(spec.id + ": witness figure '" + name + "' is not declared in the rules file");
  }
  out.witness = std::move(w);
}

std::string fmt(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

std::string fmt_exact(double x) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

}  // namespace fusecert::verifier::props
