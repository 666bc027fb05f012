// Frontmatter contract: every authored doc carries last_updated and a known
// audit_role; plan_state iff the role is plan; historical_design carries its
// supersession key.
#include <algorithm>

#include "docaudit/rules/rules.h"
#include "docaudit/text.h"

namespace fusecert::docaudit {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

void check_frontmatter(const Document& doc, const Context& ctx, Sink& sink) {
  if (!doc.authored) return;
  const RuleSet& r = ctx.rules;
  const Frontmatter& fm = doc.fm;
  if (!fm.present) {
    sink.report("frontmatter.missing", {1, 1},
                "authored audit doc has no YAML frontmatter (`---` block with " + r.date_key + " and " + r.role_key +
                    ")");
    return;
  }
  if (!fm.error.empty()) {
    sink.report("frontmatter.yaml", {fm.error_line, fm.error_col}, fm.error);
    return;
  }
  for (const auto& d : fm.duplicates)
    sink.report("frontmatter.duplicate-key", {d.line, d.col},
                "key `" + d.key + "` is given again (first on line " + std::to_string(d.first_line) +
                    "); YAML readers disagree on which value wins, so keep exactly one");

  auto date = fm.get(r.date_key);
  if (!date) {
    sink.report("frontmatter.last-updated", {1, 1}, "missing `" + r.date_key + ": YYYY-MM-DD`");
  } else if (!date->scalar || !parse_iso_date(date->text)) {
    sink.report("frontmatter.last-updated", {date->line, date->col},
                "`" + r.date_key + "` must be a real date written YYYY-MM-DD, got `" + date->text + "`");
  }

  auto role = fm.get(r.role_key);
  std::string role_text;
  if (!role) {
    sink.report("frontmatter.audit-role", {1, 1}, "missing `" + r.role_key + "` (one of " + join(r.roles) + ")");
  } else if (!role->scalar || !contains(r.roles, role->text)) {
    sink.report("frontmatter.audit-role", {role->line, role->col},
                "unknown " + r.role_key + " `" + role->text + "`; expected one of " + join(r.roles));
  } else {
    role_text = role->text;
  }

  for (const auto& key : r.required_keys)
    if (!fm.has(key)) sink.report("frontmatter.required-key", {1, 1}, "missing `" + key + "` (frontmatter.required_keys)");
  for (const auto& [key, allowed] : r.allowed_values) {
    auto v = fm.get(key);
    if (v && (!v->scalar || !contains(allowed, v->text)))
      sink.report("frontmatter.allowed-value", {v->line, v->col},
                  "`" + key + ": " + v->text + "` is not an allowed value here; expected one of " + join(allowed) +
                      " (frontmatter.allowed_values)");
  }

  auto state = fm.get(r.plan_state_key);
  // A historical design may state its supersession as its plan_state value.
  const bool historical_state = role_text == r.historical_role && state && state->scalar && state->text == r.historical_key;
  if (role_text == r.plan_role) {
    if (!state) {
      sink.report("frontmatter.plan-state", {role->line, role->col},
                  "a plan must declare `" + r.plan_state_key + "` (one of " + join(r.plan_states) + ")");
    } else if (!state->scalar || !contains(r.plan_states, state->text)) {
      sink.report("frontmatter.plan-state", {state->line, state->col},
                  "unknown " + r.plan_state_key + " `" + state->text + "`; expected one of " + join(r.plan_states));
    }
  } else if (state && !role_text.empty() && !historical_state) {
    sink.report("frontmatter.plan-state", {state->line, state->col},
                "`" + r.plan_state_key + "` is only allowed when " + r.role_key + " is " + r.plan_role +
                    " (this doc is " + role_text + ")" +
                    (role_text == r.historical_role ? "; a " + r.historical_role + " doc may say `" + r.plan_state_key + ": " + r.historical_key + "`" : std::string()));
  }

  if (role_text == r.historical_role && !fm.has(r.historical_key) && !historical_state) {
    sink.report("frontmatter.historical-design", {role->line, role->col},
                "a " + r.historical_role + " doc must carry `" + r.historical_key + "` (as a key, or as `" +
                    r.plan_state_key + ": " + r.historical_key + "`)");
  }
}

}  // namespace fusecert::docaudit
