#include "verifier/core/spec.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <unistd.h>

#include "support/files.h"
#include "support/rules_dir.h"
#include "support/sha256.h"

namespace fusecert::verifier {
namespace fs = std::filesystem;

const smt::Answer* VerdictRule::expected_answer(const std::string& id) const {
  for (const auto& [o, a] : obligations)
    if (o == id) return &a;
  for (const auto& [o, a] : sanity)
    if (o == id) return &a;
  return nullptr;
}

bool VerdictRule::is_sanity(const std::string& id) const {
  for (const auto& [o, _] : sanity)
    if (o == id) return true;
  return false;
}

const PropositionSpec* Registry::find(const std::string& id) const {
  for (const auto& p : propositions)
    if (p.id == id) return &p;
  return nullptr;
}

fs::path rules_dir() { return support::rules_dir(); }

namespace {

std::string where(const fs::path& file, const YAML::Node& n) {
  auto m = n.Mark();
  return file.string() + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

std::string req_str(const fs::path& file, const YAML::Node& n, const char* key) {
  YAML::Node v = n[key];
  if (!v || !v.IsScalar()) throw SpecError(where(file, n) + ": error: missing or non-scalar key '" + key + "'");
  return v.as<std::string>();
}

double to_number(const std::string& text, bool* ok) {
  // Not a number: empty, leading blanks (strtod skips them, trailing ones were
  // refused), trailing text, inf/nan, and a value that over- or underflows a
  // double (1e-400 read as 0 would prove something about beta1 = 0).
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(text.c_str(), &end);
  *ok = end && *end == '\0' && !text.empty() && !std::isspace(static_cast<unsigned char>(text[0])) &&
        std::isfinite(v) && errno != ERANGE;
  return v;
}

std::optional<double> opt_num(const fs::path& file, const YAML::Node& n, const char* key) {
  YAML::Node v = n[key];
  if (!v) return std::nullopt;
  bool ok = false;
  double d = v.IsScalar() ? to_number(v.as<std::string>(), &ok) : 0;
  if (!ok) throw SpecError(where(file, v) + ": error: '" + key + "' must be a finite number");
  return d;
}

smt::Answer req_answer(const fs::path& file, const YAML::Node& n, const std::string& what) {
  if (n.IsScalar()) {
    auto a = smt::parse_answer(n.as<std::string>());
    if (a && smt::is_definite(*a)) return *a;
  }
  throw SpecError(where(file, n) + ": error: " + what + " must be sat or unsat");
}

// The verdict rule: `obligations` (id: expected answer, in the encoder's
// order) and `verdict_rule` (cases, each naming every obligation's answer).
VerdictRule load_rule(const fs::path& file, const YAML::Node& n, const PropositionSpec& p) {
  VerdictRule rule;
  YAML::Node obs = n["obligations"], cases = n["verdict_rule"];
  if (!obs || !obs.IsMap() || obs.size() == 0)
    throw SpecError(where(file, n) + ": error: " + p.id + ": 'obligations' must map every obligation id to its expected answer");
  for (const auto& kv : obs) {
    std::string id = kv.first.as<std::string>();
    if (id.rfind(p.id + ".", 0) != 0)
      throw SpecError(where(file, kv.first) + ": error: obligation '" + id + "' is not named " + p.id + ".<name>");
    for (const auto& [seen, _] : rule.obligations)
      if (seen == id) throw SpecError(where(file, kv.first) + ": error: obligation '" + id + "' is listed twice");
    rule.obligations.emplace_back(id, req_answer(file, kv.second, "the expected answer of " + id));
  }
  if (YAML::Node san = n["sanity_checks"]) {
    if (!san.IsMap() || san.size() == 0)
      throw SpecError(where(file, san) + ": error: " + p.id + ": 'sanity_checks' must map each sanity check id to its answer");
    for (const auto& kv : san) {
      std::string id = kv.first.as<std::string>();
      if (id.rfind(p.id + ".", 0) != 0)
        throw SpecError(where(file, kv.first) + ": error: sanity check '" + id + "' is not named " + p.id + ".<name>");
      if (rule.expected_answer(id))
        throw SpecError(where(file, kv.first) + ": error: '" + id + "' is listed twice (an obligation is evidence or a "
                        "sanity check, not both)");
      rule.sanity.emplace_back(id, req_answer(file, kv.second, "the answer of sanity check " + id));
    }
  }
  if (!cases || !cases.IsSequence() || cases.size() == 0)
    throw SpecError(where(file, n) + ": error: " + p.id + ": 'verdict_rule' must be a non-empty list of cases");
  bool expected_case = false;
  for (const auto& c : cases) {
    if (!c.IsMap()) throw SpecError(where(file, c) + ": error: a verdict_rule case must be a mapping");
    for (const auto& kv : c) {
      std::string k = kv.first.as<std::string>();
      if (k != "verdict" && k != "answers" && k != "counterexample" && k != "note")
        throw SpecError(where(file, kv.first) + ": error: unknown key '" + k +
                        "' in a verdict_rule case (verdict, answers, counterexample, note)");
    }
    VerdictCase vc;
    auto v = parse_verdict(req_str(file, c, "verdict"));
    if (!v || *v == Verdict::Inconclusive)
      throw SpecError(where(file, c) + ": error: a case's verdict must be holds, refuted or conditional "
                      "(inconclusive is what no case means)");
    vc.verdict = *v;
    YAML::Node ans = c["answers"];
    if (!ans || !ans.IsMap()) throw SpecError(where(file, c) + ": error: a case needs 'answers' (obligation: sat|unsat)");
    for (const auto& kv : ans) {
      std::string id = kv.first.as<std::string>();
      bool known = false;
      for (const auto& [o, _] : rule.obligations) known |= o == id;
      if (!known && rule.is_sanity(id))
        throw SpecError(where(file, kv.first) + ": error: '" + id + "' is a sanity check of " + p.id +
                        ", not evidence: no verdict_rule case may name it");
      if (!known)
        throw SpecError(where(file, kv.first) + ": error: obligation '" + id + "' is outside " + p.id +
                        "'s verdict rule (not in its 'obligations')");
      if (vc.answers.count(id)) throw SpecError(where(file, kv.first) + ": error: '" + id + "' is given twice");
      vc.answers[id] = req_answer(file, kv.second, "the answer of " + id);
    }
    for (const auto& [o, _] : rule.obligations)
      if (!vc.answers.count(o))
        throw SpecError(where(file, ans) + ": error: the case leaves out obligation '" + o +
                        "': every case names every obligation's answer");
    if (c["counterexample"]) {
      vc.counterexample = req_str(file, c, "counterexample");
      auto it = vc.answers.find(vc.counterexample);
      if (it == vc.answers.end() || it->second != smt::Answer::Sat)
        throw SpecError(where(file, c["counterexample"]) + ": error: counterexample '" + vc.counterexample +
                        "' is not a sat obligation of this case");
    }
    if (c["note"]) vc.note = req_str(file, c, "note");
    for (const auto& other : rule.cases)
      if (other.answers == vc.answers)
        throw SpecError(where(file, c) + ": error: two cases of " + p.id + "'s verdict rule have the same answers");
    bool all_expected = true;
    for (const auto& [o, a] : rule.obligations) all_expected &= vc.answers[o] == a;
    if (all_expected) {
      if (vc.verdict != p.expected)
        throw SpecError(where(file, c) + ": error: the expected answers give " + to_string(vc.verdict) + ", but " +
                        p.id + " is expected " + to_string(p.expected));
      expected_case = true;
    }
    rule.cases.push_back(std::move(vc));
  }
  if (!expected_case)
    throw SpecError(where(file, cases) + ": error: " + p.id + "'s verdict rule has no case for the expected answers");
  return rule;
}

}  // namespace

std::pair<std::string, Param> parse_param_assignment(const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos) throw std::invalid_argument("parameter '" + text + "' is not of the form name=value");
  std::string name = text.substr(0, eq), value = text.substr(eq + 1);
  if (name.empty()) throw std::invalid_argument("parameter '" + text + "' has an empty name");
  bool ok = false;
  Param p;
  p.value = to_number(value, &ok);
  if (!ok) throw std::invalid_argument("parameter '" + name + "': '" + value + "' is not a finite number within a double's range (no overflow or underflow)");
  p.text = value;
  return {name, p};
}

Registry load_registry(const fs::path& dir) {
  Registry reg;
  reg.path = dir / "propositions.yaml";
  std::string bytes;
  try {
    bytes = support::read_file(reg.path);
  } catch (const support::FileError& e) {
    throw SpecError(std::string(e.what()) + " (the rules folder is " + dir.string() + "; set FUSECERT_RULES_DIR to another)");
  }
  reg.sha256 = support::sha256_hex(bytes);
  YAML::Node root;
  try {
    root = YAML::Load(bytes);
  } catch (const YAML::Exception& e) {
    throw SpecError(reg.path.string() + ":" + std::to_string(e.mark.line + 1) + ":" +
                    std::to_string(e.mark.column + 1) + ": error: " + e.msg);
  }
  YAML::Node list = root["propositions"];
  if (!list || !list.IsSequence()) throw SpecError(reg.path.string() + ": error: missing sequence 'propositions'");
  for (const auto& n : list) {
    PropositionSpec p;
    p.id = req_str(reg.path, n, "id");
    p.title = req_str(reg.path, n, "title");
    p.statement = req_str(reg.path, n, "statement");
    p.assessment_wording = req_str(reg.path, n, "assessment_verdict");
    auto v = parse_verdict(req_str(reg.path, n, "expected"));
    if (!v || *v == Verdict::Inconclusive)
      throw SpecError(where(reg.path, n) + ": error: " + p.id + ": 'expected' must be holds, refuted or conditional");
    p.expected = *v;
    if (reg.find(p.id)) throw SpecError(where(reg.path, n) + ": error: duplicate proposition id " + p.id);
    if (auto a = n["assumptions"]) {
      if (!a.IsSequence()) throw SpecError(where(reg.path, a) + ": error: 'assumptions' must be a list");
      for (const auto& s : a) p.assumptions.push_back(s.as<std::string>());
    }
    if (auto ps = n["params"]) {
      if (!ps.IsMap()) throw SpecError(where(reg.path, ps) + ": error: 'params' must be a mapping");
      for (const auto& kv : ps) {
        Param prm;
        YAML::Node val = kv.second.IsMap() ? kv.second["value"] : kv.second;
        if (!val || !val.IsScalar())
          throw SpecError(where(reg.path, kv.second) + ": error: param '" + kv.first.as<std::string>() + "' needs a value");
        bool ok = false;
        prm.text = val.as<std::string>();
        prm.value = to_number(prm.text, &ok);
        if (!ok)
          throw SpecError(where(reg.path, val) + ": error: param '" + kv.first.as<std::string>() + "' is not a finite number within a double's range (no overflow or underflow)");
        if (kv.second.IsMap() && kv.second["meaning"]) prm.meaning = kv.second["meaning"].as<std::string>();
        p.params[kv.first.as<std::string>()] = prm;
      }
    }
    if (auto w = n["witness"]) {
      p.witness_protocol = req_str(reg.path, w, "protocol");
      if (auto figs = w["figures"]) {
        if (!figs.IsMap()) throw SpecError(where(reg.path, figs) + ": error: 'figures' must be a mapping");
        for (const auto& kv : figs) {
          FigureSpec f;
          f.name = kv.first.as<std::string>();
          f.lo = opt_num(reg.path, kv.second, "lo");
          f.hi = opt_num(reg.path, kv.second, "hi");
          f.quoted = opt_num(reg.path, kv.second, "quoted");
          if (kv.second["meaning"]) f.meaning = kv.second["meaning"].as<std::string>();
          p.figures.push_back(f);
        }
      }
    }
    p.rule = load_rule(reg.path, n, p);
    reg.propositions.push_back(std::move(p));
  }
  return reg;
}

}  // namespace fusecert::verifier
