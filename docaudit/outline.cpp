#include "docaudit/outline.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm.h>

#include <map>
#include <memory>
#include <mutex>
#include <string_view>

#include "docaudit/parse_arena.h"
#include "docaudit/text.h"

namespace fusecert::docaudit {
namespace {

enum class Kind { Other, Table, Row, Cell, Strikethrough };

/// Table node types come from the extension; compare by type string once.
Kind ext_kind(cmark_node* n) {
  const char* t = cmark_node_get_type_string(n);
  std::string_view s = t ? t : "";
  if (s == "table") return Kind::Table;
  if (s == "table_row") return Kind::Row;
  if (s == "table_cell") return Kind::Cell;
  return Kind::Other;
}

Pos pos_of(cmark_node* n) { return Pos{cmark_node_get_start_line(n), cmark_node_get_start_column(n)}; }

/// Plain text of a subtree: text and code literals, breaks as spaces.
std::string plain_text(cmark_node* root) {
  std::string out;
  cmark_iter* it = cmark_iter_new(root);
  cmark_event_type ev;
  while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    if (ev != CMARK_EVENT_ENTER) continue;
    cmark_node* n = cmark_iter_get_node(it);
    switch (cmark_node_get_type(n)) {
      case CMARK_NODE_TEXT:
      case CMARK_NODE_CODE:
        if (const char* l = cmark_node_get_literal(n)) out += l;
        break;
      case CMARK_NODE_SOFTBREAK:
      case CMARK_NODE_LINEBREAK:
        out += ' ';
        break;
      default:
        break;
    }
  }
  cmark_iter_free(it);
  return out;
}

std::string paragraph_text(cmark_node* n) {
  if (!n || cmark_node_get_type(n) != CMARK_NODE_PARAGRAPH) return "";
  return plain_text(n);
}

struct ParserDeleter {
  void operator()(cmark_parser* p) const { cmark_parser_free(p); }
};
struct NodeDeleter {
  void operator()(cmark_node* n) const { cmark_node_free(n); }
};

}  // namespace

Pos Prose::locate(std::size_t offset) const {
  const Anchor* best = nullptr;
  for (const auto& a : anchors) {
    if (a.offset > offset) break;
    best = &a;
  }
  if (!best) return anchors.empty() ? Pos{} : anchors.front().pos;
  return Pos{best->pos.line, best->pos.col + static_cast<int>(offset - best->offset)};
}

bool Outline::within(int s, int h) const {
  if (h < 0 || s < h) return false;
  for (int k = h + 1; k <= s; ++k)
    if (headings[k].level <= headings[h].level) return false;
  return true;
}

std::vector<int> Outline::find_sections(const std::vector<std::string>& names) const {
  std::vector<int> out;
  for (std::size_t i = 0; i < headings.size(); ++i) {
    const std::string t = normalize_words(headings[i].text);
    for (const auto& n : names)
      if (starts_with_word(t, normalize_words(n))) {
        out.push_back(static_cast<int>(i));
        break;
      }
  }
  return out;
}

bool Outline::has_slug(std::string_view slug) const {
  for (const auto& h : headings)
    if (h.slug == slug) return true;
  return false;
}

Outline parse_outline(std::string_view body, int first_line) {
  static std::once_flag once;
  std::call_once(once, [] { cmark_gfm_core_extensions_ensure_registered(); });

  // Leading blank lines keep cmark's line numbers equal to the file's.
  std::string input;
  if (first_line > 1) {
    input.reserve(body.size() + static_cast<std::size_t>(first_line));
    input.assign(static_cast<std::size_t>(first_line - 1), '\n');
  }
  input.append(body);

  // Everything cmark allocates for this parse comes from the thread's arena
  // and is released at once when `arena` ends, after the parser and the tree.
  const ParseArena::Scope arena;
  std::unique_ptr<cmark_parser, ParserDeleter> parser(cmark_parser_new_with_mem(CMARK_OPT_SOURCEPOS, ParseArena::mem()));
  // No "autolink": Debian's cmark-gfm 0.29.0.gfm.6 autolink extension is
  // quadratic on runs such as `www.a_` (40,000 of them: minutes), and no rule
  // needs bare URLs as links (external links are not checked). Bare URLs are
  // blanked out of the prose instead (blank_bare_urls), so no phrase matches
  // inside one.
  for (const char* ext : {"table", "strikethrough", "tagfilter", "tasklist"}) {
    if (cmark_syntax_extension* e = cmark_find_syntax_extension(ext))
      cmark_parser_attach_syntax_extension(parser.get(), e);
  }
  cmark_parser_feed(parser.get(), input.data(), input.size());
  std::unique_ptr<cmark_node, NodeDeleter> doc(cmark_parser_finish(parser.get()));

  Outline out;
  std::map<std::string, int> slug_count;
  int section = -1;
  // Indices (never pointers: the vectors grow) of what collects text now.
  long prose = -1, heading = -1, link = -1, table = -1;
  bool in_cell = false;
  int link_depth = 0;

  auto cell_ref = [&]() -> TableCell& {
    Table& t = out.tables[table];
    return t.rows.empty() ? t.header.back() : t.rows.back().back();
  };
  auto add_text = [&](const std::string& s, Pos p, bool is_prose) {
    if (prose >= 0) {
      Prose& pr = out.prose[prose];
      if (is_prose) {
        pr.anchors.push_back({pr.text.size(), p});
        pr.text += s;
      } else {
        pr.text += ' ';
      }
    }
    if (heading >= 0) out.headings[heading].text += s;
    if (in_cell) cell_ref().text += s;
    if (link >= 0) out.links[link].text += s;
  };
  // Start of each line of `input` (built on the first table cell): a cell's
  // position is moved past its padding to the first character of its text.
  std::vector<std::size_t> line_starts;
  auto skip_padding = [&](Pos p) {
    if (line_starts.empty()) {
      line_starts.push_back(0);
      for (std::size_t i = 0; i < input.size(); ++i)
        if (input[i] == '\n') line_starts.push_back(i + 1);
    }
    if (p.line < 1 || p.col < 1 || static_cast<std::size_t>(p.line) > line_starts.size()) return p;
    std::size_t i = line_starts[p.line - 1] + static_cast<std::size_t>(p.col - 1);
    if (i < input.size() && input[i] == '|') {  // a cell position at its pipe
      ++i;
      ++p.col;
    }
    while (i < input.size() && (input[i] == ' ' || input[i] == '\t')) {
      ++i;
      ++p.col;
    }
    return p;
  };
  auto open_prose = [&]() {
    out.prose.push_back(Prose{});
    out.prose.back().section = section;
    prose = static_cast<long>(out.prose.size()) - 1;
  };

  cmark_iter* it = cmark_iter_new(doc.get());
  cmark_event_type ev;
  while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    cmark_node* n = cmark_iter_get_node(it);
    const bool enter = ev == CMARK_EVENT_ENTER;
    const cmark_node_type type = cmark_node_get_type(n);
    switch (type) {
      case CMARK_NODE_HEADING:
        if (enter) {
          out.headings.push_back(Heading{cmark_node_get_heading_level(n), "", "", pos_of(n)});
          section = static_cast<int>(out.headings.size()) - 1;
          heading = section;
          open_prose();
        } else if (heading >= 0) {
          Heading& h = out.headings[heading];
          std::string base = github_slug(trim(h.text));
          int& c = slug_count[base];
          h.slug = c == 0 ? base : base + "-" + std::to_string(c);
          ++c;
          heading = -1;
          prose = -1;
        }
        break;
      case CMARK_NODE_PARAGRAPH:
        if (enter) {
          if (table < 0) {
            open_prose();
            out.prose.back().paragraph = true;
          }
          cmark_node* first = cmark_node_first_child(n);
          if (first && cmark_node_get_type(first) == CMARK_NODE_STRONG)
            out.bold_labels.push_back(BoldLabel{trim(plain_text(first)), pos_of(n), section});
        } else if (table < 0) {
          prose = -1;
        }
        break;
      case CMARK_NODE_TEXT:
        if (enter) add_text(cmark_node_get_literal(n) ? cmark_node_get_literal(n) : "", pos_of(n), true);
        break;
      case CMARK_NODE_CODE:
        if (enter) {
          const char* l = cmark_node_get_literal(n);
          out.code_spans.push_back(CodeSpan{l ? l : "", pos_of(n), section, prose,
                                            prose >= 0 ? out.prose[prose].text.size() : 0});
          add_text(l ? l : "", pos_of(n), false);
        }
        break;
      case CMARK_NODE_SOFTBREAK:
      case CMARK_NODE_LINEBREAK:
        if (enter) add_text(" ", pos_of(n), false);
        break;
      case CMARK_NODE_LINK:
      case CMARK_NODE_IMAGE:
        if (enter) {
          const char* u = cmark_node_get_url(n);
          out.links.push_back(Link{u ? u : "", "", pos_of(n), section});
          if (link_depth++ == 0) link = static_cast<long>(out.links.size()) - 1;
        } else if (--link_depth == 0) {
          link = -1;
        }
        break;
      case CMARK_NODE_HTML_BLOCK:
      case CMARK_NODE_HTML_INLINE:
        if (enter) {
          std::string_view lit = cmark_node_get_literal(n) ? cmark_node_get_literal(n) : "";
          // An HTML block may hold several comments; each is a comment.
          std::size_t p = 0;
          while ((p = lit.find("<!--", p)) != std::string_view::npos) {
            std::size_t e = lit.find("-->", p + 4);
            std::string_view bodyv =
                lit.substr(p + 4, e == std::string_view::npos ? std::string_view::npos : e - p - 4);
            int line = cmark_node_get_start_line(n);
            int col = cmark_node_get_start_column(n);
            for (std::size_t k = 0; k < p; ++k) {
              if (lit[k] == '\n') { ++line; col = 1; } else { ++col; }
            }
            int end_line = line;
            for (char c : bodyv)
              if (c == '\n') ++end_line;
            out.comments.push_back(Comment{std::string(bodyv), Pos{line, col}, end_line});
            if (e == std::string_view::npos) break;
            p = e + 3;
          }
          if (prose >= 0) out.prose[prose].text += ' ';
        }
        break;
      default: {
        Kind k = ext_kind(n);
        if (k == Kind::Table) {
          if (enter) {
            out.tables.push_back(Table{});
            table = static_cast<long>(out.tables.size()) - 1;
            Table& t = out.tables.back();
            t.pos = pos_of(n);
            t.section = section;
            t.before = trim(paragraph_text(cmark_node_previous(n)));
            t.after = trim(paragraph_text(cmark_node_next(n)));
          } else {
            table = -1;
          }
        } else if (k == Kind::Row && table >= 0) {
          Table& t = out.tables[table];
          if (enter && (!cmark_gfm_extensions_get_table_row_is_header(n) || !t.header.empty() || !t.rows.empty()))
            t.rows.emplace_back();
        } else if (k == Kind::Cell && table >= 0) {
          Table& t = out.tables[table];
          if (enter) {
            auto& dest = t.rows.empty() ? t.header : t.rows.back();
            dest.push_back(TableCell{"", skip_padding(pos_of(n))});
            in_cell = true;
            open_prose();
          } else if (in_cell) {
            TableCell& c = cell_ref();
            c.text = trim(c.text);
            in_cell = false;
            prose = -1;
          }
        }
        break;
      }
    }
  }
  cmark_iter_free(it);
  for (Prose& p : out.prose) blank_bare_urls(p.text);
  return out;
}

}  // namespace fusecert::docaudit
