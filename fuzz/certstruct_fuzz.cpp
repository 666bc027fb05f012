// certstruct_fuzz: libFuzzer harness for certificate *structure* (cert_fuzz
// covers JSON syntax): a valid certificate certify wrote for a legal and an
// illegal fixture is edited as a forger would — the input bytes pick fields
// anywhere in the tree and replace them (strings, numbers, booleans, null,
// deep nesting), delete keys, duplicate or drop obligations, flip verdicts and
// answers, and append SMT-LIB2 commands to a query (set-option, echo, exit,
// reset, push, a second check-sat, assert false) — and then every query hash
// and the digest are recomputed, so the edit reaches the checks behind them.
// Checked with and without the module (--ir). Contract: never crashes or
// throws; without --ir never "valid"; with a query outside the whitelist
// always "invalid"; "valid" only when the verdict, the candidate and every
// compared obligation field are the original's.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "support/sha256.h"
#include "verifier/cert/certify.h"
#include "verifier/smt/whitelist.h"

namespace fc = fusecert;
using nlohmann::json;

namespace {

struct Base {
  std::string name, text;
  json cert;
};

Base make_base(const std::string& fixture) {
  std::ifstream f(std::string(FUSECERT_SOURCE_DIR) + "/fixtures/ir/" + fixture, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  Base b{fixture, ss.str(), json()};
  fc::cert::InputReport r = fc::cert::certify_text(b.text, fixture, 20000);
  if (!r.candidates.empty()) b.cert = fc::cert::certificate(r, 0, "fuzz");
  return b;
}

struct Bytes {
  const uint8_t* d;
  size_t n, i = 0;
  uint8_t next() { return i < n ? d[i++] : 0; }
  bool done() const { return i >= n; }
};

/// A node of `j` picked by the bytes (a walk down from the root).
json* pick(json& j, Bytes& b) {
  json* at = &j;
  while (!b.done() && (at->is_object() || at->is_array()) && !at->empty() && b.next() % 4 != 0) {
    const size_t k = b.next() % at->size();
    if (at->is_array()) at = &(*at)[k];
    else at = &std::next(at->begin(), static_cast<long>(k)).value();
  }
  return at;
}

void edit(json& j, Bytes& b) {
  static const char* cmds[] = {"(set-option :regular-output-channel \"/tmp/fusecert-fuzz-pwned\")\n(echo \"x\")\n",
                               "(exit)\n", "(reset)\n", "(push 1)\n", "(check-sat)\n", "(assert false)\n(check-sat)\n",
                               "(get-model)\n", "(echo \"unsat\")\n"};
  json* at = pick(j, b);
  const uint8_t op = b.next() % 10;
  if (op >= 6 && !j.is_object()) return;  // the edits below address a certificate's fields
  switch (op) {
    case 0: *at = std::string(1 + b.next() % 8, static_cast<char>('a' + b.next() % 26)); break;
    case 1: *at = static_cast<int>(b.next()) - 128; break;
    case 2: *at = static_cast<bool>(b.next() & 1); break;
    case 3: *at = nullptr; break;
    case 4: {  // nesting
      json deep = json::array();
      for (int i = 0; i < b.next() % 80; ++i) deep = json::array({deep});
      *at = deep;
      break;
    }
    case 5:
      if (at->is_object() && !at->empty()) at->erase(std::next(at->begin(), b.next() % at->size()));
      break;
    case 6: {  // an SMT query gets a command appended (or prepended)
      auto& obs = j["obligations"];
      if (!obs.is_array() || obs.empty()) break;
      auto& o = obs[b.next() % obs.size()];
      if (!o.is_object() || !o.contains("smt2") || !o["smt2"].is_string()) break;
      const std::string c = cmds[b.next() % 8];
      o["smt2"] = (b.next() & 1) ? c + o["smt2"].get<std::string>() : o["smt2"].get<std::string>() + c;
      break;
    }
    case 7: {  // duplicate or drop an obligation
      auto& obs = j["obligations"];
      if (!obs.is_array() || obs.empty()) break;
      const size_t k = b.next() % obs.size();
      if (b.next() & 1) obs.push_back(obs[k]);
      else obs.erase(obs.begin() + static_cast<long>(k));
      break;
    }
    case 8: {  // flip an answer
      static const char* ans[] = {"sat", "unsat", "holds", "violated", "missing", "timeout"};
      auto& obs = j["obligations"];
      if (!obs.is_array() || obs.empty()) break;
      auto& o = obs[b.next() % obs.size()];
      if (o.is_object()) o["answer"] = ans[b.next() % 6];
      break;
    }
    default: {
      static const char* v[] = {"legal", "illegal", "inconclusive"};
      j["verdict"] = v[b.next() % 3];
    }
  }
}

void resign(json& j) {
  if (j.is_object() && j.contains("obligations") && j["obligations"].is_array())
    for (auto& o : j["obligations"])
      if (o.is_object() && o.contains("smt2") && o["smt2"].is_string())
        o["smt2_sha256"] = fc::support::sha256_hex(o["smt2"].get<std::string>());
  if (j.is_object()) j["digest"] = fc::cert::digest(j);
}

/// Equal but for the digest and the writer's version. `tool.version` is
/// provenance, not a claim: with --ir every claim is re-derived by this
/// fusecert, so a matching re-derivation is valid whoever wrote it
/// (docs/certificates.md: only a version whose re-derivation *differs* is
/// stale). The first 10-minute run (2026-12-01) stopped on exactly that edit.
bool same_claims(json a, json b) {
  if (!a.is_object()) return false;
  for (json* x : {&a, &b}) {
    x->erase("digest");
    if (x->contains("tool") && (*x)["tool"].is_object()) (*x)["tool"].erase("version");
  }
  return a == b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Base legal = make_base("adamw_tessera.mlir"), illegal = make_base("split_k_tessera.mlir");
  if (size < 2) return 0;
  Bytes b{data + 2, size - 2};
  const Base& base = (data[0] & 1) ? illegal : legal;
  if (base.cert.is_null()) std::abort();  // the fixtures certify
  json j = base.cert;
  for (int e = 0; e < 1 + data[1] % 4; ++e) edit(j, b);
  if (!(data[0] & 2)) resign(j);
  bool hostile = false;
  if (j.is_object() && j.contains("obligations") && j["obligations"].is_array())
    for (auto& o : j["obligations"])
      if (o.is_object() && o.value("how", json()) == "smt" && o.contains("smt2") && o["smt2"].is_string())
        hostile |= fc::smt::whitelist_problem(o["smt2"].get<std::string>()).has_value();
  const std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace);
  fc::cert::Solver z3{"z3"};
  const bool with_ir = data[0] & 4;
  std::optional<std::pair<std::string, std::string>> ir;
  if (with_ir) ir = std::make_pair(base.text, base.name);
  fc::cert::CheckOutcome out = fc::cert::check_certificate(text, ir, z3, 200);
  const std::string status = out.status();
  if (!out.valid && out.problems.empty()) std::abort();           // invalid says why
  if (!with_ir && status == "valid") std::abort();                // not re-derived: at most consistent
  if (hostile && status != "invalid") std::abort();               // a hostile query is never solved
  if (status == "valid" && !same_claims(j, base.cert)) std::abort();  // valid = what certify wrote
  return 0;
}
