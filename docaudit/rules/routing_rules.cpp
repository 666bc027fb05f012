// Routing: every live doc is reachable from the root index through links of
// live docs (the reachable set is computed once per run, see checker.cpp);
// where the rule set requires it, the folder's index names each doc; where a
// folder's index has a question table and a scoped-plan catalog, a plan is
// routed in both; a plan links the global-order authority (wherever the plan
// lives) and its folder's index.
#include <algorithm>

#include "docaudit/rules/rules.h"
#include "docaudit/text.h"

namespace fusecert::docaudit {
namespace {

/// Does `idx` name `target` inside the sections `within` accepts?
template <class Within>
bool names(const Summary& idx, const fs::path& target, Within within) {
  const std::string fname = target.filename().string();
  const std::string rel = target.lexically_relative(idx.abs.parent_path()).generic_string();
  for (const auto& l : idx.links) {
    if (within(l.section) && l.target == target.native()) return true;
  }
  for (const auto& c : idx.code_spans) {
    if (!within(c.section)) continue;
    const std::string& s = c.text;
    if (s == fname || s == rel || s == "./" + rel) return true;
  }
  return false;
}

/// `idx` links `target`, or names it in backticks by a path that resolves
/// to it from `idx`'s folder (a bare file name of another folder does not).
bool names_exactly(const Summary& idx, const fs::path& target) {
  for (const auto& l : idx.links)
    if (l.target == target.native()) return true;
  for (const auto& c : idx.code_spans) {
    const std::string& s = c.text;
    if (!s.empty() && Repo::sibling(idx.abs, s) == target.native()) return true;
  }
  return false;
}

bool links_to(const Summary& doc, const fs::path& target) {
  for (const auto& l : doc.links)
    if (l.target == target.native()) return true;
  return false;
}

}  // namespace

fs::path folder_index(const fs::path& folder, const RuleSet& rules, const Repo& repo) {
  for (const auto& name : rules.index_names) {
    const fs::path p = folder / name;
    if (repo.exists(p.native())) return p;
  }
  return {};
}

bool is_index(const fs::path& doc, const RuleSet& rules) {
  const std::string name = doc.filename().string();
  return std::find(rules.index_names.begin(), rules.index_names.end(), name) != rules.index_names.end();
}

void check_routing(const Summary& doc, const Context& ctx, Sink& sink) {
  if (!doc.authored || !doc.parsed) return;
  const RuleSet& r = ctx.rules;
  const std::string& role = doc.role;
  const Pos at = doc.role_pos;
  const std::string root_index = Repo::join(ctx.repo.audit_root(), r.root_index);
  const fs::path index_path = folder_index(doc.abs.parent_path(), r, ctx.repo);
  const bool own_index = !index_path.empty() && index_path == doc.abs;
  const Summary* idx = index_path.empty() || own_index ? nullptr : ctx.lookup(index_path.native());

  // 1. Reachable from the root index through live docs.
  if (doc.abs.native() != root_index && ctx.routed && !ctx.routed->count(doc.abs.native())) {
    const std::string root_display = ctx.repo.display(root_index);
    if (!ctx.repo.exists(root_index))
      sink.report("routing.no-index", at,
                  "the audit root has no index `" + root_display + "` (routing.root_index), so no live doc is routed");
    else
      sink.report("routing.unrouted", at,
                  "not reachable from the root index `" + root_display +
                      "` through links of live documents; link it from its folder's index or from a routed document");
  }

  // 2. Where required, the folder has an index and it names the doc.
  if (r.require_index && !own_index) {
    if (!idx) {
      // Every name the folder's index may have (routing.index_names), in
      // order: naming only the first would send a user who keeps INDEX.md to
      // create a README.md.
      std::string wanted;
      for (std::size_t i = 0; i < r.index_names.size(); ++i)
        wanted += std::string(i == 0 ? "" : i + 1 == r.index_names.size() ? " or " : ", ") + "`" +
                  ctx.repo.display((doc.abs.parent_path() / r.index_names[i]).native()) + "`";
      if (r.index_names.size() > 1) wanted = "(" + wanted + ")";
      sink.report("routing.no-index", at, "live doc's folder has no readable index " + wanted +
                                              " to route it (routing.require_index)");
    } else if (!names(*idx, doc.abs, [](int) { return true; })) {
      sink.report("routing.unrouted", at,
                  "`" + ctx.repo.display(index_path.native()) + "` does not route this live doc (link it or name `" +
                      doc.abs.filename().string() + "` in backticks)");
    }
  }

  // 3. A plan is routed twice where its index has the two sections.
  if (role == r.plan_role && idx) {
    struct Family {
      const char* rule;
      const std::vector<std::string>* headings;
      const char* what;
    };
    const std::string index_display = ctx.repo.display(index_path.native());
    for (const Family& f : {Family{"routing.plan-question-table", &r.question_table_headings, "question table"},
                            Family{"routing.plan-catalog", &r.catalog_headings, "scoped-plan catalog"}}) {
      const std::vector<int> secs = idx->find_sections(*f.headings);
      const std::string heading = f.headings->front();
      if (secs.empty()) {
        if (r.require_routing_sections)
          sink.report(f.rule, at,
                      "a plan is routed twice, but `" + index_display + "` has no \"" + heading + "\" section (" +
                          f.what + ", routing.require_routing_sections)");
        continue;
      }
      auto within = [&](int s) {
        for (int h : secs)
          if (idx->within(s, h)) return true;
        return false;
      };
      if (!names(*idx, doc.abs, within))
        sink.report(f.rule, at,
                    "plan is not routed in the " + std::string(f.what) + " (\"" + heading + "\") of `" +
                        index_display + "`");
    }
  }

  // 4. A scoped plan links the global-order authority and its folder's
  // index. A plan is scoped to the authority when it lives in the
  // authority's folder or that folder's index names it (Tessera: "every live
  // scoped compiler plan links back to the integrated plan and this index";
  // the backend todo queues answer to their own evidence, not to it).
  if (role == r.plan_role) {
    const fs::path authority(Repo::join(ctx.repo.audit_root(), r.global_order_authority));
    if (doc.abs == authority) return;  // the authority itself
    if (ctx.repo.exists(authority.native()) && doc.abs.parent_path() != authority.parent_path()) {
      const fs::path map = folder_index(authority.parent_path(), r, ctx.repo);
      const Summary* m = map.empty() ? nullptr : ctx.lookup(map.native());
      if (!m || !names_exactly(*m, doc.abs)) return;
    }
    std::string missing;
    if (ctx.repo.exists(authority.native()) && !links_to(doc, authority))
      missing = "the global-order authority `" + ctx.repo.display(authority.native()) + "`";
    if (!index_path.empty() && !own_index && !links_to(doc, index_path))
      missing += (missing.empty() ? "" : " and ") + std::string("its index `") + index_path.filename().string() + "`";
    if (!missing.empty()) sink.report("routing.scoped-plan-links", at, "scoped plan does not link " + missing);
  }
}

}  // namespace fusecert::docaudit
