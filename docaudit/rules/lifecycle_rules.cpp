// Lifecycle: a closed plan does not stay in the live tree, and a snapshot
// older than the limit is archived unless retained with a reason.
#include <algorithm>

#include "docaudit/rules/rules.h"
#include "docaudit/text.h"

namespace fusecert::docaudit {

void check_lifecycle(const Document& doc, const Context& ctx, Sink& sink) {
  if (!doc.authored || !doc.fm.error.empty()) return;
  const RuleSet& r = ctx.rules;
  const std::string role = doc.role(r);

  if (role == r.plan_role) {
    if (auto state = doc.fm.get(r.plan_state_key); state && state->scalar &&
        std::find(r.closed_states.begin(), r.closed_states.end(), state->text) != r.closed_states.end()) {
      sink.report("lifecycle.closed-plan", {state->line, state->col},
                  "plan is `" + state->text + "` but still in the live tree; move it to the theme's archive/ and "
                  "summarize it in the theme audit");
    }
  }

  if (role == r.snapshot_role) {
    auto date = doc.fm.get(r.date_key);
    if (!date || !date->scalar) return;
    auto ymd = parse_iso_date(date->text);
    if (!ymd) return;  // frontmatter.last-updated reports it
    const auto age = (ctx.today - std::chrono::sys_days(*ymd)).count();
    if (age <= r.snapshot_max_age_days) return;
    const std::string rel = ctx.repo.display(doc.abs.native());
    for (const auto& kept : r.retained)
      if (fs::path(kept.path).lexically_normal().generic_string() == rel) return;
    sink.report("lifecycle.stale-snapshot", {date->line, date->col},
                "snapshot last updated " + date->text + " is " + std::to_string(age) + " days old (limit " +
                    std::to_string(r.snapshot_max_age_days) +
                    "); archive it or list it under lifecycle.retained with a reason");
  }
}

}  // namespace fusecert::docaudit
