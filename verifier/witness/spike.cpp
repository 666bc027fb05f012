// The P2a/P2b spike protocol (propositions.md §P2a/P2b, the assessment's).
#include <algorithm>
#include <cmath>
#include <vector>

#include "verifier/model/optimizer.h"
#include "verifier/props/common.h"
#include "verifier/witness/numeric.h"
#include "verifier/witness/protocols.h"

namespace fusecert::witness {
namespace {

struct PolicyRun {
  double spike_max_dw = 0;  // max |ΔW| on the spike step
  double vbar_late = 0;     // √mean(v) `late` steps after the spike
};

enum class Policy { Exact, ClipUpdate, Delayed, None };

PolicyRun run_policy(Policy pol, const std::map<std::string, verifier::Param>& p) {
  using verifier::props::iparam;
  using verifier::props::param;
  const long rows = iparam(p, "spike_rows", 1, 4096), cols = iparam(p, "spike_cols", 1, 4096);
  const long steps = iparam(p, "spike_steps", 2, 100000), at = iparam(p, "spike_at", 1, steps - 1);
  const long late = iparam(p, "spike_late", 0, steps - at);
  const double scale = param(p, "spike_scale"), tau_mult = param(p, "tau_mult");
  const uint64_t seed = static_cast<uint64_t>(iparam(p, "seed", 0, 1L << 40));
  const size_t n = static_cast<size_t>(rows * cols);
  const double tau = tau_mult * std::sqrt(static_cast<double>(n));
  auto h = verifier::props::hyper_from(p);

  std::vector<double> W(n, 0.0), m(n, 0.0), v(n, 0.0), g(n);
  Normal rng(seed);
  for (auto& w : W) w = rng();
  double c_prev = 1.0;
  PolicyRun out;
  for (long t = 1; t <= steps; ++t) {
    double nrm2 = 0;
    for (auto& x : g) {
      x = rng() * (t == at ? scale : 1.0);
      nrm2 += x * x;
    }
    const double c_now = std::min(1.0, tau / std::sqrt(nrm2));
    h.step = static_cast<int>(t);
    double c_state = 1.0, c_lr = 1.0;  // scale on the gradient seen by A; scale on η
    switch (pol) {
      case Policy::Exact: c_state = c_now; break;
      case Policy::ClipUpdate: c_lr = c_now; break;
      case Policy::Delayed: c_state = c_prev; break;
      case Policy::None: break;
    }
    model::Hyper hh = h;
    hh.lr = h.lr * c_lr;
    F64Arith a(hh.constants());
    model::AdamWConsts<F64Arith> k(a);
    double max_dw = 0, vsum = 0;
    for (size_t e = 0; e < n; ++e) {
      auto s = model::adamw_step(a, k, {W[e], m[e], v[e]}, c_state * g[e]);
      max_dw = std::max(max_dw, std::fabs(s.W - W[e]));
      W[e] = s.W;
      m[e] = s.m;
      v[e] = s.v;
      vsum += s.v;
    }
    if (t == at) out.spike_max_dw = max_dw;
    if (t == at + late) out.vbar_late = std::sqrt(vsum / static_cast<double>(n));
    c_prev = c_now;
  }
  return out;
}

}  // namespace

WitnessRun spike(const std::map<std::string, verifier::Param>& p, const std::string& policy) {
  PolicyRun exact = run_policy(Policy::Exact, p), none = run_policy(Policy::None, p);
  PolicyRun pol = run_policy(policy == "delayed" ? Policy::Delayed : Policy::ClipUpdate, p);
  WitnessRun w;
  w.protocol =
      "W " + verifier::props::fmt(p.at("spike_rows").value) + "x" + verifier::props::fmt(p.at("spike_cols").value) +
      " ~ N(0,1), N(0,1) gradients, one " + p.at("spike_scale").text + "x spike at step " + p.at("spike_at").text +
      " of " + p.at("spike_steps").text + ", tau = " + p.at("tau_mult").text +
      "*sqrt(rows*cols), AdamW; policies exact / " + policy + " / none run on the same draws (seed " +
      p.at("seed").text + ", float64)";
  w.figures["spike_displacement_ratio"] = pol.spike_max_dw / exact.spike_max_dw;
  w.figures["vbar_ratio_10_steps"] = pol.vbar_late / exact.vbar_late;
  w.figures["vbar_rel_diff_vs_none"] = std::fabs(pol.vbar_late - none.vbar_late) / none.vbar_late;
  return w;
}

}  // namespace fusecert::witness
