// Claim anchoring: status surfaces link a generated dashboard; every named
// generated/X.md exists; relative links, their #anchors and backticked
// repository paths resolve, and nothing resolves outside the repository root.
// The links are checked from summaries (check_links: a target's anchors are
// all it needs of another document); the backticked paths from the full
// parse (check_paths: the sentence around a path says whether it is planned).
#include <algorithm>
#include <set>

#include "docaudit/rules/rules.h"
#include "docaudit/text.h"

namespace fusecert::docaudit {
namespace {

/// Why `abs` (a link target Repo::exists refused) is not a file or folder,
/// for the message: nothing there, or what is there (a symlink loop, a
/// dangling symlink, a FIFO, a socket, a device).
std::string not_a_file(const std::string& abs, const Repo& repo) {
  const std::string shown = "`" + repo.display(abs) + "`";
  std::error_code ec;
  fs::file_status st = fs::symlink_status(fs::path(abs), ec);
  if (ec || !fs::exists(st)) return "no file " + shown;
  if (fs::is_symlink(st)) {
    std::error_code e2;
    st = fs::status(fs::path(abs), e2);
    if (e2 == std::errc::too_many_symbolic_link_levels) return shown + " is a symlink loop, not a file";
    if (e2 || !fs::exists(st)) return shown + " is a dangling symlink, not a file";
  }
  if (fs::is_fifo(st)) return shown + " is a FIFO (named pipe), not a file";
  if (fs::is_socket(st)) return shown + " is a socket, not a file";
  if (fs::is_block_file(st) || fs::is_character_file(st)) return shown + " is a device, not a file";
  return shown + " is not a regular file";
}

bool is_generated(std::string_view abs, const Context& ctx) { return ctx.repo.generated(abs); }

/// `p` (a path's string) names a Markdown file (`.md`, `.markdown`, any case).
bool is_markdown(std::string_view p) {
  const std::string_view name = p.substr(p.rfind('/') + 1);
  const std::size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return false;
  const std::string e = lower_ascii(name.substr(dot));
  return e == ".md" || e == ".markdown";
}

/// The repository path a code span names, or "" when it is not path-shaped:
/// no spaces, a '/', no glob or URL characters; `::symbol` and `:line`
/// suffixes and trailing punctuation removed.
std::string path_candidate(std::string s) {
  s = trim(s);
  if (s.empty() || s.find_first_of(" \t*?[]{}<>|$=\"'`,;()") != std::string::npos) return "";
  if (s.find("://") != std::string::npos || s.find("...") != std::string::npos || s.find('/') == std::string::npos)
    return "";
  if (auto p = s.find("::"); p != std::string::npos) s.erase(p);
  if (auto p = s.rfind(':'); p != std::string::npos) {
    const std::string tail = s.substr(p + 1);
    if (!tail.empty() && std::all_of(tail.begin(), tail.end(), [](char c) { return std::isdigit((unsigned char)c) || c == '-'; }))
      s.erase(p);
  }
  while (!s.empty() && (s.back() == '.' || s.back() == ':')) s.pop_back();
  if (s.rfind("./", 0) == 0) s.erase(0, 2);
  if (s.empty() || s == "/" || s[0] == '/') return "";
  return s;
}

/// The text a reader takes as the lead-in of a code span: the clause before
/// it in its block (back to the sentence start, at most 120 bytes), or, when
/// the span opens its block, the tail of the block before it if that block
/// ends in ':' (a label over a list: "New files:"). A block that ends a
/// sentence ("The old loader was deleted.") leads into nothing. Each code span
/// in it (one space in the block's text) reads as a \x01 byte, so a list of
/// paths before this one reads as a list.
std::string lead_in(const Document& doc, const CodeSpan& c) {
  const auto& prose = doc.outline.prose;
  if (c.prose < 0 || c.prose >= static_cast<long>(prose.size())) return "";
  auto masked = [&](long block) {
    std::string text = prose[block].text;
    for (const auto& o : doc.outline.code_spans)
      if (o.prose == block && o.offset < text.size()) text[o.offset] = '\x01';
    return text;
  };
  auto clause = [](const std::string& text, std::size_t end) {
    std::size_t start = end > 120 ? end - 120 : 0;
    for (std::size_t i = end; i > start; --i)
      if ((text[i - 1] == '.' || text[i - 1] == ';') && i < end && (text[i] == ' ' || text[i] == '\n')) {
        start = i;
        break;
      }
    return text.substr(start, end - start);
  };
  const std::string own = masked(c.prose);
  std::string before = clause(own, std::min(c.offset, own.size()));
  if (trim(before).empty() && c.prose > 0 && prose[c.prose - 1].section == c.section) {
    const std::string prev = masked(c.prose - 1);
    const std::string tail = trim(prev);
    if (!tail.empty() && tail.back() == ':') before = clause(prev, prev.size());
  }
  return before;
}

/// The rest of a code span's clause after it in its block (to the sentence
/// end, at most 120 bytes), code spans read as \x01 as in lead_in: what the
/// sentence goes on to say of the path ("The new `x` scheduler is live").
std::string lead_out(const Document& doc, const CodeSpan& c) {
  const auto& prose = doc.outline.prose;
  if (c.prose < 0 || c.prose >= static_cast<long>(prose.size())) return "";
  std::string text = prose[c.prose].text;
  for (const auto& o : doc.outline.code_spans)
    if (o.prose == c.prose && o.offset < text.size()) text[o.offset] = '\x01';
  const std::size_t from = std::min(c.offset + 1, text.size());
  std::size_t end = std::min(text.size(), from + 120);
  for (std::size_t i = from; i < end; ++i)
    if ((text[i] == '.' || text[i] == ';') && (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\n')) {
      end = i;
      break;
    }
  return text.substr(from, end - from);
}

/// One token of a lead-in: a word (lower case; `per-target` is one word), a
/// code span, or a punctuation mark that bounds a phrase.
struct Token {
  enum Kind { word, code, mark } kind;
  std::string text;
};

std::vector<Token> tokens_of(const std::string& s) {
  auto dash = [&](std::size_t i) { return s.compare(i, 3, "\xE2\x80\x94") == 0 || s.compare(i, 3, "\xE2\x80\x93") == 0; };
  auto word_byte = [&](std::size_t i) {
    const unsigned char d = static_cast<unsigned char>(s[i]);
    return (std::isalnum(d) || d == '_' || d == '#' || d >= 0x80) && !dash(i);
  };
  std::vector<Token> out;
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char ch = static_cast<unsigned char>(s[i]);
    if (ch == 0x01) {
      while (i < s.size() && s[i] == '\x01') ++i;
      out.push_back({Token::code, ""});
    } else if (word_byte(i)) {
      std::size_t j = i;
      while (j < s.size() && (word_byte(j) || s[j] == '\'' ||
                              (s[j] == '-' && j + 1 < s.size() && std::isalnum(static_cast<unsigned char>(s[j + 1])))))
        ++j;
      out.push_back({Token::word, lower_ascii(s.substr(i, j - i))});
      i = j;
    } else if (dash(i)) {
      out.push_back({Token::mark, "-"});  // an em or en dash
      i += 3;
    } else {
      if (std::string_view(":(),;-|[/&+").find(static_cast<char>(ch)) != std::string_view::npos)
        out.push_back({Token::mark, std::string(1, static_cast<char>(ch))});
      ++i;
    }
  }
  return out;
}

bool listed(const std::vector<std::string>& words, const std::string& w) {
  return std::find_if(words.begin(), words.end(), [&](const std::string& x) { return lower_ascii(x) == w; }) !=
         words.end();
}

/// Words that state where a thing is now ("The new scheduler lives in `x`",
/// "The target emitter is `x`"): between an intent word and the path, they
/// make the sentence an existence claim whatever came before.
bool states_presence(const std::string& w) {
  static const std::set<std::string> finite = {"is",     "are",     "was",    "were",   "lives",  "sits",
                                               "resides", "exists", "contains", "holds", "implemented",
                                               "defined", "located"};
  return finite.count(w) > 0;
}

/// Joining words a marker may reach the path through ("proposed as `x`",
/// "toward the `x`", "New file `x`").
bool joining(const std::string& w) {
  static const std::set<std::string> joins = {"a",    "an",    "the",  "as",   "at",   "in",     "into",
                                              "to",   "under", "from", "for",  "of",   "on",     "called",
                                              "named", "file", "files", "folder", "folders", "directory", "module", "path"};
  return joins.count(w) > 0;
}

bool bounds_phrase(const Token& t) {
  return t.kind == Token::mark && t.text != "/" && t.text != "&" && t.text != "+" && t.text != "[";
}

/// The clause after a path states that it is there now: a word that states
/// presence ("is", "lives", "holds", ...) among its first 4 words, before any
/// mark that bounds a phrase ("The new `x` scheduler is live", "The new `x/`
/// folder holds the passes"). A weak marker (anchoring.path_weak_markers:
/// "new") then marks nothing: a new thing can exist.
bool lead_out_states_presence(const std::string& out) {
  const std::vector<Token> t = tokens_of(out);
  for (std::size_t k = 0, words = 0; k < t.size() && words < 4; ++k) {
    if (bounds_phrase(t[k])) return false;
    if (t[k].kind != Token::word) continue;
    if (states_presence(t[k].text)) return true;
    ++words;
  }
  return false;
}

/// One of `phrases` (each read as words: "is going to", "was deleted")
/// stands at t[k..] and ends before `n`: its words in order, nothing between.
bool phrase_at(const std::vector<Token>& t, std::size_t k, std::size_t n, const std::vector<std::string>& phrases) {
  for (const auto& p : phrases) {
    const std::vector<Token> pt = tokens_of(p);
    bool match = !pt.empty() && k + pt.size() <= n;
    for (std::size_t q = 0; q < pt.size() && match; ++q)
      match = t[k + q].kind == Token::word && t[k + q].text == pt[q].text;
    if (match) return true;
  }
  return false;
}

/// The clause after a path (`out`, from lead_out) says something of it: one
/// of `phrases` starts at one of its first `window` words, before any mark
/// that bounds a phrase; with `subject` (the path is the clause's subject:
/// "The old `x` script was deleted"), the words before the phrase are at most
/// two and none states presence ("`x` is the loader that will ..." says `x`
/// is there). `markers`, when given, count as one-word phrases.
bool clause_says(const std::string& out, const std::vector<std::string>& phrases, std::size_t window, bool subject,
                 const std::vector<std::string>* markers = nullptr) {
  const std::vector<Token> t = tokens_of(out);
  std::size_t n = 0;
  while (n < t.size() && n < window + 4 && !bounds_phrase(t[n])) ++n;
  for (std::size_t k = 0, words = 0; k < n && words < window; ++k) {
    if (t[k].kind != Token::word) continue;
    ++words;
    if (phrase_at(t, k, n, phrases) || (markers && listed(*markers, t[k].text))) return true;
    if (subject && states_presence(t[k].text)) return false;
  }
  return false;
}

/// The clause after a path says it is not there yet.
///  - After "the new `x`" (`described`): a modal (anchoring.path_intent_modals:
///    "will replace", "is going to", "is to be written") or a marker
///    (anchoring.path_intent_markers: "is planned", "is proposed", "is not
///    written yet") among its first 8 words, or a plan predicate.
///  - After any path: a plan predicate (anchoring.path_plan_predicates: "is
///    scheduled to land", "is expected in", "will land", "is planned for")
///    with the path its subject (clause_says).
bool lead_out_states_plan(const std::string& out, const RuleSet& r, bool described) {
  if (described && clause_says(out, r.path_intent_modals, 8, false, &r.path_intent_markers)) return true;
  return clause_says(out, r.path_plan_predicates, 3, true);
}

/// The clause after a path says it no longer exists, the path its subject:
/// a gone predicate (anchoring.path_gone_predicates: "was deleted", "was
/// renamed to", "has been retired", "no longer exists"). A historical
/// reference, not a link ("The old `tools/x.py` was deleted in March").
bool lead_out_states_gone(const std::string& out, const RuleSet& r) {
  return clause_says(out, r.path_gone_predicates, 3, true);
}

/// The tokens of a lead-in as they bear on the path after it: a list of code
/// spans right before the path ("New files: `a`, `b` and `c`") is dropped, so
/// the path shares the list's lead-in, and so is an opening bracket.
std::vector<Token> lead_in_tokens(const std::string& lead) {
  std::vector<Token> t = tokens_of(lead);
  auto is_word = [&](std::size_t i, std::string_view w) { return t[i].kind == Token::word && t[i].text == w; };
  for (;;) {
    std::size_t n = t.size(), seps = 0;
    while (n > 0 && ((t[n - 1].kind == Token::mark && (t[n - 1].text == "," || t[n - 1].text == "/" ||
                                                       t[n - 1].text == "&" || t[n - 1].text == "+")) ||
                     is_word(n - 1, "and") || is_word(n - 1, "or"))) {
      --n;
      ++seps;
    }
    if (seps == 0 || n == 0 || t[n - 1].kind != Token::code) break;
    t.resize(n - 1);
  }
  while (!t.empty() && t.back().kind == Token::mark && (t.back().text == "(" || t.back().text == "[")) t.pop_back();
  return t;
}

/// A presence phrase (anchoring.path_presence_phrases: "existing", "keep
/// using", "still ships", "currently", ...) governs the path in its clause,
/// so the path is claimed to be there now and no planned or gone word beside
/// it excuses it (issue #18 acceptance R1-R3):
///  - before the path, the phrase ends right before it through at most two
///    joining words: "Add tests to the existing `x`", "The pass will keep
///    using `x`";
///  - after it, the path the subject: the phrase stands in the rest of the
///    clause before any other code span, and not after an article or a
///    possessive, which makes it say something of another noun: "`x` was
///    removed from the default build but still ships" ("`x` will replace
///    the existing loader" says nothing of `x`).
bool states_presence_now(const std::string& lead, const std::string& out, const RuleSet& r) {
  const std::vector<std::string>& phrases = r.path_presence_phrases;
  const std::vector<Token> t = lead_in_tokens(lead);
  for (std::size_t k = t.size(), joins = 0; k > 0; --k) {
    for (const auto& m : phrases) {
      const std::size_t len = tokens_of(m).size();
      if (len > 0 && len <= k && phrase_at(t, k - len, k, {m})) return true;
    }
    if (t[k - 1].kind != Token::word || !joining(t[k - 1].text) || ++joins > 2) break;
  }
  static const std::set<std::string> determiners = {"the", "a", "an", "its", "their", "our", "this", "that", "these", "those"};
  const std::vector<Token> after = tokens_of(out);
  std::size_t n = 0;
  while (n < after.size() && after[n].kind != Token::code) ++n;
  for (std::size_t k = 0; k < n; ++k)
    if (after[k].kind == Token::word && phrase_at(after, k, n, phrases) &&
        !(k > 0 && after[k - 1].kind == Token::word && determiners.count(after[k - 1].text)))
      return true;
  return false;
}

/// The path's own sentence says it is planned or gone, in one of the forms
/// docs/docaudit.md names (the external-path rule, "Planned"): the lead-in's
/// words are read as phrases that govern the path, never as a bag of words.
///  - a marker (anchoring.path_intent_markers) right before the path, through
///    joining words only: "New `x`", "proposed as `x`", "toward `x`";
///  - a short label (at most 4 words) ending in ':' right before it, that
///    holds a marker or opens with an intent verb: "Candidate implementation:
///    `x`", "(target: `x`)", "**Deleted:** `x`", "planned: `x`";
///  - an intent verb (anchoring.path_intent_verbs) that opens its clause or
///    follows "to", at most 5 words before the path: "Write `x`", "TODO:
///    create `x`", "Add a test at `x`";
///  - a modal (anchoring.path_intent_modals) at most 6 words before it:
///    "will add `x`", "to be written at `x`", "will live in `x`".
/// No mark bounding a phrase, and for the first and third forms no word that
/// states presence ("is", "lives", ...), may stand between. A list of code
/// spans right before the path ("New files: `a`, `b`, and `c`") is skipped:
/// the path shares the list's lead-in.
bool planned_by_lead_in(const std::string& lead, const std::string& out, const RuleSet& r) {
  std::vector<Token> t = lead_in_tokens(lead);
  auto is_word = [&](std::size_t i, std::string_view w) { return t[i].kind == Token::word && t[i].text == w; };
  if (t.empty()) return false;
  const std::size_t n = t.size();
  // A label ending in ':' right before the path.
  if (t[n - 1].kind == Token::mark && t[n - 1].text == ":") {
    std::size_t a = n - 1;
    while (a > 0 && !bounds_phrase(t[a - 1])) --a;
    const std::size_t words = n - 1 - a;
    if (words > 0 && words <= 4) {
      bool marked = t[a].kind == Token::word && listed(r.path_intent_verbs, t[a].text);
      for (std::size_t k = a; k < n - 1; ++k)
        marked = marked || (t[k].kind == Token::word &&
                            (listed(r.path_intent_markers, t[k].text) || listed(r.path_weak_markers, t[k].text)));
      if (marked) return true;
    }
  }
  // A marker (or a modal, a verb) and only allowed words between it and the path.
  std::size_t end = n;
  if (t[end - 1].kind == Token::mark && t[end - 1].text == ":") --end;
  for (std::size_t k = end, joins = 0; k > 0; --k) {  // markers
    const Token& w = t[k - 1];
    if (w.kind != Token::word) break;
    if (listed(r.path_intent_markers, w.text)) return true;
    if (listed(r.path_weak_markers, w.text)) {
      // "New `x/` for the passes" opens its clause: a label, planned unless
      // the clause says the thing is there. "The new `x` ..." describes the
      // thing: planned only when the clause says so (a modal or a marker).
      const bool opens = k == 1 || bounds_phrase(t[k - 2]);
      if (opens ? !lead_out_states_presence(out) : lead_out_states_plan(out, r, true)) return true;
      break;  // "The new `x` scheduler is live": an existence claim
    }
    if (!joining(w.text) || ++joins > 2) break;
  }
  for (std::size_t k = end, between = 0; k > 0 && between <= 6; --k, ++between) {  // verbs and modals
    const Token& w = t[k - 1];
    if (w.kind != Token::word) break;
    if (states_presence(w.text) && w.text != "implemented" && w.text != "defined" && w.text != "located") {
      break;  // "The pass that will replace it is `x`"
    }
    for (const auto& m : r.path_intent_modals) {  // a modal of one or more words ending here
      const std::size_t len = tokens_of(m).size();
      if (len > 0 && len <= k && phrase_at(t, k - len, k, {m})) return true;
    }
    if (between <= 5 && listed(r.path_intent_verbs, w.text)) {
      const bool opens = k == 1 || bounds_phrase(t[k - 2]) || is_word(k - 2, "to");
      bool present = false;
      for (std::size_t q = k; q < end; ++q) present = present || states_presence(t[q].text);
      if (opens && !present) return true;
    }
  }
  return false;
}

/// A code span in a plan's deliverables table: a table cell whose column
/// header (or the table's first header cell) names one of
/// anchoring.deliverable_headers ("Deliverable", "New files").
bool in_deliverables_table(const Document& doc, const CodeSpan& c, const RuleSet& r) {
  if (doc.role(r) != r.plan_role || r.deliverable_headers.empty()) return false;
  for (const auto& t : doc.outline.tables)
    for (const auto& row : t.rows) {
      if (row.empty() || row.front().pos.line != c.pos.line) continue;
      std::size_t col = 0;
      for (std::size_t k = 0; k < row.size(); ++k)
        if (row[k].pos.col <= c.pos.col) col = k;
      auto names = [&](const std::string& h) {
        for (const auto& w : r.deliverable_headers)
          if (find_term(h, w) != std::string::npos) return true;
        return false;
      };
      if ((col < t.header.size() && names(t.header[col].text)) || (!t.header.empty() && names(t.header.front().text)))
        return true;
    }
  return false;
}

/// A code span naming a folder or file of another checkout: path-shaped,
/// and its first segment is neither a folder of this repository nor `..`
/// (`shared/stinkytofu/`, `ROCm/llvm-project@amd-staging`).
bool foreign_path(const std::string& text, const Repo& repo, const RuleSet& r) {
  const std::string p = path_candidate(text);
  if (p.empty()) return false;
  const std::string first = p.substr(0, p.find('/'));
  return first != ".." && first != r.generated_dir && !repo.is_path_root(first);
}

/// An initialism ("CK", "IN" of "Intel NPU", a configured "AITER"): two or more
/// capitals and nothing else, whatever source named it.
bool is_initialism(const std::string& w) {
  return w.size() >= 2 && std::all_of(w.begin(), w.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

/// `w` occurs in `text` as a whole word; an initialism only as written
/// (the initials of "Intel NPU" name it as IN, never as the word "in").
bool has_word(const std::string& text, const std::string& w) {
  if (!is_initialism(w)) return find_term(text, w) != std::string::npos;
  auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t i = text.find(w); i != std::string::npos; i = text.find(w, i + 1)) {
    const std::size_t end = i + w.size();
    if ((i == 0 || !word_char(text[i - 1])) && (end == text.size() || !word_char(text[end]))) return true;
  }
  return false;
}

bool any_word(const std::string& text, const std::vector<std::string>& words) {
  for (const auto& w : words)
    if (has_word(text, w)) return true;
  return false;
}

/// `OWNER/NAME@REF` (`ROCm/rocm-libraries@develop`): another repository
/// pinned at a ref; NAME is returned ("" when `text` is no pin).
std::string pinned_repository(const std::string& text, const Repo& repo, const RuleSet& r) {
  const std::string t = trim(text);
  const std::size_t at = t.find('@'), slash = t.find('/');
  if (at == std::string::npos || slash == std::string::npos || slash > at || at + 1 >= t.size()) return "";
  if (!foreign_path(t.substr(0, at), repo, r)) return "";
  const std::string owner_name = t.substr(0, at);
  return owner_name.substr(owner_name.rfind('/') + 1);
}

/// A first segment that is a host name (`github.com`, `gitlab.freedesktop.org`).
bool is_host(const std::string& segment) {
  const std::size_t dot = segment.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 3 > segment.size()) return false;
  return std::all_of(segment.begin() + dot + 1, segment.end(), [](char c) { return std::isalpha((unsigned char)c); });
}

/// The initials of a name of two or more words each opening with a capital
/// ("Composable Kernel" gives CK), or "" ("StinkyTofu", "rocm libraries").
std::string initials(const std::string& name) {
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == ' ') continue;
    if (name[i] < 'A' || name[i] > 'Z') return "";
    out += name[i];
    while (i < name.size() && name[i] != ' ') ++i;
  }
  return out.size() >= 2 ? out : "";
}

/// The names of the other repositories a document's paths may be written
/// under: anchoring.other_repositories, the repositories it pins
/// (`ROCm/rocm-libraries@develop`: rocm-libraries), and the checkouts it
/// declares with a bold name ("**StinkyTofu** (`shared/stinkytofu/`)":
/// StinkyTofu and stinkytofu; "**Composable Kernel** (`projects/ck/`)" also
/// its initials, CK). A declared checkout is a folder path whose
/// first segment is not this repository's.
std::vector<std::string> other_repositories(const Document& doc, const Repo& repo, const RuleSet& r) {
  std::vector<std::string> names = r.other_repositories;
  for (const auto& c : doc.outline.code_spans)
    if (std::string n = pinned_repository(c.text, repo, r); !n.empty()) names.push_back(n);
  for (const auto& b : doc.outline.bold_labels) {
    if (b.label.empty()) continue;
    for (const auto& c : doc.outline.code_spans) {
      if (c.pos.line != b.pos.line || c.section != b.section) continue;
      const std::string p = path_candidate(c.text);
      if (p.empty() || p.back() != '/' || !foreign_path(p, repo, r)) continue;
      names.push_back(b.label);
      if (std::string i = initials(b.label); !i.empty()) names.push_back(i);
      std::string dir = p.substr(0, p.size() - 1);
      names.push_back(dir.substr(dir.rfind('/') + 1));
      break;
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

/// A code span that names another checkout a path can be written under: a
/// pin, a path on a host, or a path of another repository (its first
/// segment not this repository's) one of whose segments is a known
/// repository name (`shared/stinkytofu/`).
bool checkout_reference(const std::string& text, const std::vector<std::string>& repos, const Repo& repo,
                        const RuleSet& r) {
  if (!pinned_repository(text, repo, r).empty()) return true;
  const std::string p = path_candidate(text);
  if (p.empty() || !foreign_path(p, repo, r)) return false;
  if (is_host(p.substr(0, p.find('/')))) return true;
  std::size_t at = 0;
  while (at < p.size()) {
    std::size_t end = p.find('/', at);
    if (end == std::string::npos) end = p.size();
    const std::string seg = lower_ascii(p.substr(at, end - at));
    for (const auto& n : repos)
      if (seg == lower_ascii(n)) return true;
    at = end + 1;
  }
  return false;
}

/// The checkouts a document writes paths under: the first segment of each
/// path-shaped span of at least three segments whose first is neither this
/// repository's nor a host (`rocshmem/src/sdma/` gives rocshmem). A shorter
/// span (`emit/x.py`, `dY/dX`) names no checkout.
std::vector<std::string> checkout_names(const Document& doc, const Repo& repo, const RuleSet& r) {
  std::vector<std::string> names;
  for (const auto& c : doc.outline.code_spans) {
    const std::string p = path_candidate(c.text);
    if (p.empty() || !foreign_path(p, repo, r)) continue;
    const std::string first = p.substr(0, p.find('/'));
    std::size_t segments = 0;
    for (std::size_t at = 0; at < p.size();) {
      std::size_t end = p.find('/', at);
      if (end == std::string::npos) end = p.size();
      if (end > at) ++segments;
      at = end + 1;
    }
    if (segments >= 3 && !is_host(first)) names.push_back(lower_ascii(first));
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

/// The path at `c` is another repository's: before it in its own block (the
/// paragraph or list item, or the cells before it in its table row) the
/// document names another checkout (`(`shared/stinkytofu/`) — `docs/x.md``)
/// or another repository by name ("StinkyTofu: DAG internals (`src/dag/`)").
/// A cell before it in its row that is, as its whole text, the name of a
/// checkout the document writes paths under elsewhere (`checkouts`: "|
/// rocSHMEM | `src/memory/x.cpp` |" beside `rocshmem/src/sdma/`) names it
/// too. Nothing else excuses it: not a pin elsewhere in the document, not a
/// heading, not a neighbouring block.
bool written_under_other_repository(const Document& doc, const CodeSpan& c, const std::vector<std::string>& repos,
                                    const std::vector<std::string>& checkouts, const Repo& repo, const RuleSet& r) {
  for (const auto& o : doc.outline.code_spans) {
    const bool before_in_block = c.prose >= 0 && o.prose == c.prose && o.offset < c.offset;
    const bool before_in_row = o.pos.line == c.pos.line && o.pos.col < c.pos.col;
    if ((before_in_block || before_in_row) && checkout_reference(o.text, repos, repo, r)) return true;
  }
  if (repos.empty() && checkouts.empty()) return false;
  if (c.prose >= 0 && c.prose < static_cast<long>(doc.outline.prose.size())) {
    const std::string& text = doc.outline.prose[c.prose].text;
    if (any_word(text.substr(0, std::min(c.offset, text.size())), repos)) return true;
  }
  for (const auto& t : doc.outline.tables)
    for (const auto& row : t.rows) {
      if (row.empty() || row.front().pos.line != c.pos.line) continue;
      std::size_t own = 0;  // the cell holding the path
      for (std::size_t k = 0; k < row.size(); ++k)
        if (row[k].pos.col <= c.pos.col) own = k;
      for (std::size_t k = 0; k < own; ++k)
        if (any_word(row[k].text, repos) ||
            std::binary_search(checkouts.begin(), checkouts.end(), lower_ascii(trim(row[k].text))))
          return true;
    }
  return false;
}

}  // namespace

void check_links(const Summary& doc, const Context& ctx, Sink& sink) {
  if (!doc.parsed) return;
  const RuleSet& r = ctx.rules;
  const Repo& repo = ctx.repo;
  const bool doc_inside = repo.inside(doc.abs.native());
  bool links_dashboard = false;

  for (const auto& l : doc.links) {
    if (l.external || l.url.empty()) continue;
    if (l.target.empty()) {  // same-document anchor
      if (!l.anchor.empty() && !doc.has_slug(l.anchor))
        sink.report("anchor.broken-anchor", l.pos, "no heading of this document has the anchor `#" + l.anchor + "`");
      continue;
    }
    const std::string& target = l.target;
    if (!repo.inside(target)) {
      sink.report("anchor.outside-root", l.pos,
                  "link `" + l.url + "` resolves outside the repository root");
      continue;
    }
    if (!repo.resolves_inside(target)) {
      sink.report("anchor.outside-root", l.pos,
                  "link `" + l.url + "` resolves outside the repository root through a symlink");
      continue;
    }
    const bool generated = is_generated(target, ctx);
    if (!repo.exists(target)) {
      if (generated)
        sink.report("anchor.generated-missing", l.pos,
                    "generated dashboard `" + repo.display(target) + "` does not exist");
      else
        sink.report("anchor.broken-link", l.pos, "link `" + l.url + "` does not resolve: " + not_a_file(target, repo));
      continue;
    }
    if (is_markdown(target)) {
      if (generated) {
        links_dashboard = true;
      } else if (ctx.repo.is_under(target, ctx.repo.audit_root().native())) {
        // A dashboard recognised by its own generated marker.
        const Summary* other = target == doc.abs.native() ? &doc : ctx.lookup(target);
        if (other && other->generated) links_dashboard = true;
      }
    }
    if (!l.anchor.empty() && is_markdown(target)) {
      const Summary* other = target == doc.abs.native() ? &doc : ctx.lookup(target);
      if (other && other->parsed && !other->has_slug(l.anchor))
        sink.report("anchor.broken-anchor", l.pos,
                    "`" + repo.display(target) + "` has no heading with the anchor `#" + l.anchor + "`");
    }
  }

  const std::string& role = doc.role;
  if (doc.authored && doc_inside &&
      std::find(r.status_roles.begin(), r.status_roles.end(), role) != r.status_roles.end() && !links_dashboard) {
    sink.report("anchor.dashboard-link", doc.role_pos,
                "status-surface doc (" + role + ") links no generated dashboard under `" +
                    repo.display(repo.generated_root().native()) + "/`; its numbers must trace to one");
  }
}

void check_paths(const Document& doc, const Context& ctx, Sink& sink) {
  if (!doc.parsed) return;
  const RuleSet& r = ctx.rules;
  const Repo& repo = ctx.repo;
  bool checked = true;
  if (const std::string rel = repo.audit_relative(doc.abs.native()); !rel.empty())
    for (const auto& g : r.unchecked_path_docs)
      if (glob_match(g, rel)) checked = false;

  // Paths that do not resolve. A path the text introduces as planned or gone
  // ("New `x/`", "**Deleted:** `y`", "move ... toward `tests/compiler/`") is
  // not claimed to exist — nor is any other mention of that path in the doc,
  // nor a path below it; nor is a path in a plan's deliverables table; nor
  // one written under another repository in its own block. Every other
  // unresolved path is reported.
  struct Missing {
    const CodeSpan* span;
    std::string path;
    bool generated;
    bool present;  ///< claimed to be there now (states_presence_now)
  };
  std::vector<Missing> missing;
  std::set<std::string> intended_paths;
  // The other repositories this document names (the external-path rule).
  const std::vector<std::string> repos = other_repositories(doc, repo, r);
  const std::vector<std::string> checkouts = checkout_names(doc, repo, r);
  for (const auto& c : doc.outline.code_spans) {
    if (!checked) break;
    const std::string p = path_candidate(c.text);
    if (p.empty()) continue;
    const std::string first = p.substr(0, p.find('/'));
    // A path may be written from the doc's folder, the repository root, or
    // (generated/...) the audit root; it resolves when any reading exists.
    const bool generated = first == r.generated_dir;
    if (first != ".." && !generated && !repo.is_path_root(first)) continue;  // not a repository path (`dY/dX`)
    std::vector<std::string> readings;
    if (generated) readings.push_back(Repo::join(repo.audit_root(), p));
    readings.push_back(Repo::sibling(doc.abs, p));
    if (first != "..") readings.push_back(Repo::join(repo.root(), p));
    if (!repo.inside(readings.front())) {
      sink.report("anchor.outside-root", c.pos, "path `" + c.text + "` resolves outside the repository root");
      continue;
    }
    // The reading a reader lands on: the first that exists, else (when none
    // does) any whose real path leaves the root. Either way a symlink out of
    // the repository (`src/etclink/passwd` with `src/etclink -> /etc`) is
    // reported, never taken as a resolving path.
    const std::string* landed = nullptr;
    for (const auto& t : readings)
      if (repo.inside(t) && repo.exists(t)) {
        landed = &t;
        break;
      }
    bool escapes = false;
    if (landed) {
      escapes = !repo.resolves_inside(*landed);
    } else {
      for (const auto& t : readings) escapes = escapes || (repo.inside(t) && !repo.resolves_inside(t));
    }
    if (escapes) {
      sink.report("anchor.outside-root", c.pos,
                  "path `" + c.text + "` resolves outside the repository root through a symlink");
      continue;
    }
    bool in_context = false;
    if (!landed && c.prose >= 0) {
      // "> [`docs/reference/isa/rdna/`](...) ... Regenerate with
      // `tools/build_archive.py`": a path read from a folder its block names
      // before it.
      for (const auto& o : doc.outline.code_spans) {
        if (o.prose != c.prose || o.offset >= c.offset) continue;
        const std::string base = path_candidate(o.text);
        if (base.empty()) continue;
        for (const std::string& dir : {Repo::sibling(doc.abs, base), Repo::join(repo.root(), base)}) {
          std::error_code ec;
          if (!repo.inside(dir) || !fs::is_directory(fs::path(dir), ec)) continue;
          const std::string under = Repo::join(dir, p);
          if (repo.exists(under) && repo.resolves_inside(under)) in_context = true;
        }
        if (in_context) break;
      }
    }
    if (landed || in_context) continue;
    if (written_under_other_repository(doc, c, repos, checkouts, repo, r)) continue;
    const std::string lead = lead_in(doc, c), out = lead_out(doc, c);
    // A presence phrase in its clause claims the path is there now: no
    // planned or gone excuse, of its own sentence or of another, applies.
    const bool present = states_presence_now(lead, out, r);
    if (!present && (planned_by_lead_in(lead, out, r) || lead_out_states_plan(out, r, false) ||
                     lead_out_states_gone(out, r))) {
      intended_paths.insert(p);
      continue;
    }
    missing.push_back(Missing{&c, p, generated, present});
  }
  // A path under a planned one (`src/planned/lower.cc` after "New
  // `src/planned/`") is planned too.
  auto under_intended = [&](const std::string& p) {
    for (const auto& i : intended_paths) {
      std::string dir = i;
      while (!dir.empty() && dir.back() == '/') dir.pop_back();
      if (p == dir || (p.size() > dir.size() && p.compare(0, dir.size(), dir) == 0 && p[dir.size()] == '/')) return true;
    }
    return false;
  };
  for (const auto& m : missing) {
    if (!m.present && (under_intended(m.path) || in_deliverables_table(doc, *m.span, r))) continue;
    if (m.generated)
      sink.report("anchor.generated-missing", m.span->pos,
                  "generated dashboard `" + m.path + "` does not exist under `" + repo.display(repo.generated_root().native()) + "`");
    else
      sink.report("anchor.broken-path", m.span->pos, "repository path `" + m.path + "` does not exist");
  }
}

}  // namespace fusecert::docaudit
