// Routing: the folder's index routes every live doc (a link to it, or its
// name in backticks); a plan is routed twice — in the question table and in
// the scoped-plan catalog; a scoped plan links the global-order authority and
// its index.
#include "docaudit/rules/rules.h"
#include "docaudit/text.h"

namespace fusecert::docaudit {
namespace {

/// Does `idx` name `target` inside the sections `within` accepts?
template <class Within>
bool names(const Document& idx, const fs::path& target, const Context& ctx, Within within) {
  const std::string fname = target.filename().string();
  const std::string rel = target.lexically_relative(idx.abs.parent_path()).generic_string();
  for (const auto& l : idx.outline.links) {
    if (!within(l.section)) continue;
    LinkTarget t = split_link(l.url, ctx.rules);
    if (t.external || t.file.empty()) continue;
    if (resolve_link(idx, t.file, ctx.repo) == target) return true;
  }
  for (const auto& c : idx.outline.code_spans) {
    if (!within(c.section)) continue;
    const std::string s = trim(c.text);
    if (s == fname || s == rel || s == "./" + rel) return true;
  }
  return false;
}

bool links_to(const Document& doc, const fs::path& target, const Context& ctx) {
  for (const auto& l : doc.outline.links) {
    LinkTarget t = split_link(l.url, ctx.rules);
    if (t.external || t.file.empty()) continue;
    if (resolve_link(doc, t.file, ctx.repo) == target) return true;
  }
  return false;
}

Pos role_pos(const Document& doc, const RuleSet& r) {
  auto v = doc.fm.get(r.role_key);
  return v ? Pos{v->line, v->col} : Pos{1, 1};
}

}  // namespace

void check_routing(const Document& doc, const Context& ctx, Sink& sink) {
  if (!doc.authored || !doc.parsed) return;
  const RuleSet& r = ctx.rules;
  if (doc.abs.filename() == r.index_name) return;  // an index does not route itself
  const std::string role = doc.role(r);
  const Pos at = role_pos(doc, r);
  const fs::path index_path = doc.abs.parent_path() / r.index_name;
  const std::string index_display = ctx.repo.display(index_path);

  const Document* idx = ctx.lookup(index_path);
  if (!idx) {
    sink.report("routing.no-index", at,
                "live doc's folder has no readable index `" + index_display + "` to route it");
  } else {
    if (!names(*idx, doc.abs, ctx, [](int) { return true; }))
      sink.report("routing.unrouted", at,
                  "`" + index_display + "` does not route this live doc (link it or name `" +
                      doc.abs.filename().string() + "` in backticks)");
    if (role == r.plan_role) {
      struct Family {
        const char* rule;
        const std::vector<std::string>* headings;
        const char* what;
      };
      for (const Family& f : {Family{"routing.plan-question-table", &r.question_table_headings, "question table"},
                              Family{"routing.plan-catalog", &r.catalog_headings, "scoped-plan catalog"}}) {
        const std::vector<int> secs = idx->outline.find_sections(*f.headings);
        const std::string heading = f.headings->front();
        if (secs.empty()) {
          sink.report(f.rule, at,
                      "a plan is routed twice, but `" + index_display + "` has no \"" + heading + "\" section (" +
                          f.what + ")");
          continue;
        }
        auto within = [&](int s) {
          for (int h : secs)
            if (idx->outline.within(s, h)) return true;
          return false;
        };
        if (!names(*idx, doc.abs, ctx, within))
          sink.report(f.rule, at,
                      "plan is not routed in the " + std::string(f.what) + " (\"" + heading + "\") of `" +
                          index_display + "`");
      }
    }
  }

  if (role == r.plan_role) {
    const bool nested = r.global_order_authority.find('/') != std::string::npos;
    const fs::path authority = Repo::normal(nested ? ctx.repo.audit_root() / r.global_order_authority
                                                   : doc.abs.parent_path() / r.global_order_authority);
    if (doc.abs == authority) return;  // the authority itself
    std::string missing;
    if (!links_to(doc, authority, ctx)) missing = "the global-order authority `" + r.global_order_authority + "`";
    if (!links_to(doc, index_path, ctx))
      missing += (missing.empty() ? "" : " and ") + std::string("its index `") + r.index_name + "`";
    if (!missing.empty())
      sink.report("routing.scoped-plan-links", at, "scoped plan does not link " + missing);
  }
}

}  // namespace fusecert::docaudit
