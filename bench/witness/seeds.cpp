// witness_seeds: each numeric witness over many seeds of its protocol
// (issue #19). A witness figure from one seed is one draw; what the
// assessment's figure can be compared with is the protocol's distribution.
// For every figure this prints the mean, standard deviation and 5–95%
// quantiles over the seeds, whether the assessment's quoted figure lies in
// [q05, q95], and, where a closed form exists (P5: 1/p), whether the mean is
// within 5% of it.
//
//   witness_seeds [--seeds N] [--first S] [--only P5,P1,...] [--check] [--json]
//
// Exit 0 unless --check is given and a check fails (exit 1); usage errors
// exit 2. A benchmark-style run for the costly protocols (P2a/P2b, P6: seconds
// per seed); CTest runs P5 over a modest seed count (witness.seeds_p5).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "verifier/core/spec.h"
#include "verifier/witness/protocols.h"

using namespace fusecert;

namespace {

witness::WitnessRun run(const std::string& id, const std::map<std::string, verifier::Param>& p) {
  if (id == "P1") return witness::tied_weight(p);
  if (id == "P2a") return witness::spike(p, "clip_update");
  if (id == "P2b") return witness::spike(p, "delayed");
  if (id == "P3") return witness::reduce_into_state(p);
  if (id == "P5") return witness::routed_decay(p);
  if (id == "P6") return witness::precision(p);
  throw std::invalid_argument("no witness protocol for " + id);
}

// Linear interpolation between order statistics (numpy's default).
double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  double pos = q * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos)), hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

}  // namespace

int main(int argc, char** argv) {
  long seeds = 200, first = 1;
  std::set<std::string> only;
  bool check = false, as_json = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    try {
      if (a == "--seeds") seeds = std::stol(next());
      else if (a == "--first") first = std::stol(next());
      else if (a == "--only") {
        std::stringstream ss(next());
        for (std::string id; std::getline(ss, id, ',');) only.insert(id);
      } else if (a == "--check") check = true;
      else if (a == "--json") as_json = true;
      else throw std::invalid_argument("unknown argument " + a);
    } catch (const std::exception& e) {
      std::cerr << "witness_seeds: error: " << e.what() << "\n";
      return 2;
    }
  }
  if (seeds < 2 || first < 0) {
    std::cerr << "witness_seeds: error: --seeds must be >= 2 and --first >= 0\n";
    return 2;
  }
  verifier::Registry reg;
  try {
    reg = verifier::load_registry();
  } catch (const std::exception& e) {
    std::cerr << "witness_seeds: error: " << e.what() << "\n";
    return 2;
  }
  const std::vector<std::string> ids = {"P1", "P2a", "P2b", "P3", "P5", "P6"};
  for (const auto& id : only)
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
      std::cerr << "witness_seeds: error: no witness protocol for '" << id << "'\n";
      return 2;
    }
  bool ok = true;
  nlohmann::ordered_json report = nlohmann::ordered_json::array();
  for (const auto& id : ids) {
    if (!only.empty() && !only.count(id)) continue;
    const verifier::PropositionSpec* spec = reg.find(id);
    if (!spec) continue;
    std::map<std::string, std::vector<double>> values;
    for (long s = first; s < first + seeds; ++s) {
      auto p = spec->params;
      p["seed"].value = static_cast<double>(s);
      p["seed"].text = std::to_string(s);
      // P5's prove figures are already over many draws: here, one draw per seed.
      if (p.count("witness_seeds")) p["witness_seeds"] = {1, "1", p["witness_seeds"].meaning};
      for (const auto& [name, v] : run(id, p).figures) values[name].push_back(v);
    }
    for (const auto& fs : spec->figures) {
      // Aggregates over draws (P5's mean and quantiles) are not one draw's figure.
      if (fs.name.find("_mean") != std::string::npos || fs.name.find("_q05") != std::string::npos ||
          fs.name.find("_q95") != std::string::npos)
        continue;
      const auto& v = values.at(fs.name);
      double mean = 0, var = 0;
      for (double x : v) mean += x;
      mean /= static_cast<double>(v.size());
      for (double x : v) var += (x - mean) * (x - mean);
      double sd = std::sqrt(var / static_cast<double>(v.size() - 1));
      double q05 = quantile(v, 0.05), q95 = quantile(v, 0.95);
      nlohmann::ordered_json row = {{"id", id}, {"figure", fs.name}, {"seeds", seeds}, {"first_seed", first},
                                    {"mean", mean}, {"sd", sd}, {"q05", q05}, {"q95", q95}};
      std::string verdicts;
      if (fs.quoted) {
        bool in = *fs.quoted >= q05 && *fs.quoted <= q95;
        row["quoted"] = *fs.quoted;
        row["quoted_in_q05_q95"] = in;
        verdicts += in ? "  quoted in [q05, q95]" : "  QUOTED OUTSIDE [q05, q95]";
        // A degenerate distribution (one value, e.g. a closed form) has no
        // spread: the quoted figure must then equal it.
        ok &= in;
      }
      if (id == "P5" && fs.name == "folded_over_correct_ratio") {
        double closed = 1.0 / spec->params.at("route_prob").value;
        bool near = std::fabs(mean - closed) <= 0.05 * closed;
        row["closed_form"] = closed;
        row["mean_within_5pct_of_closed_form"] = near;
        verdicts += near ? "  mean within 5% of 1/p" : "  MEAN NOT WITHIN 5% OF 1/p";
        ok &= near;
      }
      report.push_back(row);
      if (!as_json) {
        char line[512];
        std::snprintf(line, sizeof line, "%-4s %-30s seeds %ld..%ld  mean %.4g  sd %.3g  5%% %.4g  95%% %.4g", id.c_str(),
                      fs.name.c_str(), first, first + seeds - 1, mean, sd, q05, q95);
        std::cout << line;
        if (fs.quoted) std::cout << "  quoted " << *fs.quoted;
        std::cout << verdicts << "\n";
      }
    }
  }
  if (as_json) std::cout << report.dump(2) << "\n";
  return check && !ok ? 1 : 0;
}
