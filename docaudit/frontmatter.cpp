#include "docaudit/frontmatter.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace fusecert::docaudit {
namespace {

/// The line starting at `pos` (without its line break) and the offset after it.
std::string_view line_at(std::string_view text, std::size_t pos, std::size_t& next) {
  std::size_t nl = text.find('\n', pos);
  if (nl == std::string_view::npos) {
    next = text.size();
    return text.substr(pos);
  }
  next = nl + 1;
  std::string_view l = text.substr(pos, nl - pos);
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  return l;
}

bool is_delimiter(std::string_view l, bool closing) {
  while (!l.empty() && (l.back() == ' ' || l.back() == '\t')) l.remove_suffix(1);
  return l == "---" || (closing && l == "...");
}

/// Every key that occurs twice in one mapping, at any depth (an explicit
/// stack: nesting depth costs no recursion). Aliases share their nodes, so an
/// alias bomb would make the walk exponential: it stops after
/// kMaxNodes nodes (a real frontmatter has tens).
std::vector<Frontmatter::Duplicate> find_duplicates(const YAML::Node& root) {
  constexpr std::size_t kMaxNodes = 100000;
  std::vector<Frontmatter::Duplicate> out;
  std::vector<YAML::Node> stack{root};
  std::size_t visited = 0;
  while (!stack.empty() && ++visited <= kMaxNodes) {
    YAML::Node n = stack.back();
    stack.pop_back();
    if (n.IsMap()) {
      std::map<std::string, int> first;  // key -> file line of its first occurrence
      for (const auto& kv : n) {
        if (kv.first.IsScalar()) {
          const YAML::Mark m = kv.first.Mark();
          const int line = m.is_null() ? 1 : m.line + 2, col = m.is_null() ? 1 : m.column + 1;
          auto [it, fresh] = first.emplace(kv.first.Scalar(), line);
          if (!fresh) out.push_back({kv.first.Scalar(), line, col, it->second});
        }
        stack.push_back(kv.second);
      }
    } else if (n.IsSequence()) {
      for (const auto& e : n) stack.push_back(e);
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::tie(a.line, a.col) < std::tie(b.line, b.col);
  });
  return out;
}

}  // namespace

std::optional<Frontmatter::Value> Frontmatter::get(const std::string& key) const {
  if (!present || !closed || !error.empty() || !data.IsMap()) return std::nullopt;
  // The last occurrence of the key (a duplicate is reported; its last value
  // is the one YAML parsers keep).
  YAML::Node n, k;
  bool found = false;
  for (const auto& kv : data)
    if (kv.first.IsScalar() && kv.first.Scalar() == key) {
      n.reset(kv.second);
      k.reset(kv.first);
      found = true;
    }
  if (!found) return std::nullopt;
  Value v;  // a key with no value (null) is present with empty text
  v.scalar = n.IsScalar();
  if (v.scalar) v.text = n.Scalar();
  YAML::Mark m = n.Mark();
  if (n.IsNull()) m = k.Mark();  // an empty value has no position of its own: use its key's
  // The YAML text starts on file line 2 (after the opening `---`).
  v.line = m.is_null() ? 1 : m.line + 2;
  v.col = m.is_null() ? 1 : m.column + 1;
  return v;
}

bool Frontmatter::has(const std::string& key) const { return get(key).has_value(); }

Frontmatter parse_frontmatter(std::string_view text) {
  Frontmatter fm;
  std::size_t next = 0;
  // A UTF-8 byte-order mark before the delimiter is tolerated.
  std::size_t start = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  std::string_view first = line_at(text, start, next);
  if (!is_delimiter(first, false)) return fm;
  fm.present = true;
  const std::size_t yaml_begin = next;
  int line = 2;
  std::size_t pos = next;
  while (pos < text.size()) {
    std::size_t after = 0;
    std::string_view l = line_at(text, pos, after);
    if (is_delimiter(l, true)) {
      fm.closed = true;
      fm.body_first_line = line + 1;
      fm.body_offset = after;
      std::string yaml(text.substr(yaml_begin, pos - yaml_begin));
      try {
        fm.data = YAML::Load(yaml);
        if (!fm.data.IsMap()) {
          fm.error = fm.data.IsNull() ? "the frontmatter is empty, not a mapping"
                                      : "the frontmatter is not a mapping of keys to values";
          fm.error_line = 2;
        } else {
          fm.duplicates = find_duplicates(fm.data);
        }
      } catch (const YAML::Exception& e) {
        fm.error = "invalid YAML: " + e.msg;
        fm.error_line = e.mark.is_null() ? 2 : e.mark.line + 2;
        fm.error_col = e.mark.is_null() ? 1 : e.mark.column + 1;
      }
      return fm;
    }
    pos = after;
    ++line;
  }
  fm.error = "the frontmatter opened on line 1 is never closed with `---`";
  fm.error_line = 1;
  return fm;
}

}  // namespace fusecert::docaudit
