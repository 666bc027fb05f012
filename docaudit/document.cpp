#include "docaudit/document.h"

#include <cstring>

#include "docaudit/text.h"
#include "support/files.h"

namespace fusecert::docaudit {
namespace {

/// The first block (lines between blank lines, outside ``` / ~~~ fences)
/// holding more than `limit` `[` bytes: its first line and its count, or
/// {0, 0}. One linear pass over the bytes; it bounds what cmark-gfm's
/// quadratic inline paths can cost before cmark sees the text.
std::pair<int, std::uintmax_t> bracket_heavy_block(std::string_view text, std::uintmax_t limit) {
  std::uintmax_t count = 0;
  int line = 1, block_line = 1;
  bool fenced = false, blank_before = true;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view l = text.substr(pos, nl - pos);
    std::size_t a = 0;
    while (a < l.size() && (l[a] == ' ' || l[a] == '\t')) ++a;
    const bool blank = a == l.size() || (a + 1 == l.size() && l[a] == '\r');
    const bool fence = l.substr(a, 3) == "```" || l.substr(a, 3) == "~~~";
    if (fence) fenced = !fenced;
    if (blank) {
      count = 0;
    } else if (!fenced && !fence) {
      if (blank_before) block_line = line;
      for (char c : l) count += c == '[';
      if (count > limit) return {block_line, count};
    }
    blank_before = blank;
    pos = nl + 1;
    ++line;
  }
  return {0, 0};
}

}  // namespace

std::string Document::meta(const std::string& key) const {
  auto v = fm.get(key);
  return v && v->scalar ? v->text : "";
}

Document load_document(const fs::path& abs, const Repo& repo, const RuleSet& rules) {
  Document d;
  d.abs = abs;
  d.display = repo.display(abs.native());
  d.authored = repo.authored(abs.native());
  auto input = [&](const std::string& rule, int line, int col, const std::string& msg) {
    if (rules.enabled(rule)) d.input_findings.push_back(finding(d.display, line, col, rules.severity(rule), rule, msg));
  };

  std::error_code ec;
  const fs::file_status st = fs::status(abs, ec);
  if (ec) {
    input("input.unreadable", 1, 1, "cannot read: " + ec.message());
    return d;
  }
  if (!fs::is_regular_file(st)) {
    input("input.unreadable", 1, 1, "not a regular file");
    return d;
  }
  d.bytes = fs::file_size(abs, ec);
  if (ec) {
    input("input.unreadable", 1, 1, "cannot read its size: " + ec.message());
    return d;
  }
  if (d.bytes > rules.max_file_bytes) {
    input("input.too-large", 1, 1,
          "file is " + std::to_string(d.bytes) + " bytes, over the limit of " + std::to_string(rules.max_file_bytes) +
              " (tree.max_file_bytes); not parsed");
    return d;
  }
  std::string text;
  try {
    text = support::read_file(abs);
  } catch (const support::FileError& e) {
    input("input.unreadable", 1, 1, e.what());
    return d;
  }
  d.bytes = text.size();
  if (text.empty()) {
    input("input.empty", 1, 1, "file is empty");
    return d;
  }
  if (const void* nul = std::memchr(text.data(), '\0', text.size())) {
    const std::size_t off = static_cast<const char*>(nul) - text.data();
    int line = 1;
    for (std::size_t i = 0; i < off; ++i) line += text[i] == '\n';
    input("input.binary", line, 1, "file contains NUL bytes: binary data, not Markdown");
    return d;
  }
  if (auto bad = find_invalid_utf8(text)) {
    input("input.utf8", bad->line, bad->col, "invalid UTF-8 byte sequence; the file is not parsed");
    return d;
  }
  d.fm = parse_frontmatter(text);
  // Only the Markdown body reaches cmark (the frontmatter goes to yaml-cpp).
  const std::size_t body = d.fm.present && d.fm.closed ? d.fm.body_offset : 0;
  const int body_line = d.fm.present && d.fm.closed ? d.fm.body_first_line : 1;
  if (auto [line, count] = bracket_heavy_block(std::string_view(text).substr(body), rules.max_block_brackets); line > 0) {
    input("input.too-large", line + body_line - 1, 1,
          "a block starting here holds more than " + std::to_string(rules.max_block_brackets) +
              " `[` (tree.max_block_brackets); cmark-gfm 0.29 is quadratic in them, so the file is not parsed");
    d.fm = Frontmatter{};
    return d;
  }
  d.generated = repo.generated(abs.native());
  if (!d.generated && !d.fm.present) {
    // A file with frontmatter is authored whatever its prose says, so no
    // sentence of an authored doc can switch its rules off.
    const std::string opening = lower_ascii(std::string_view(text).substr(0, 600));
    for (const auto& m : rules.generated_markers)
      if (find_term(opening, lower_ascii(m)) != std::string::npos) d.generated = true;
  }
  if (d.generated) d.authored = false;
  if (d.fm.present && d.fm.closed) {
    d.outline = parse_outline(std::string_view(text).substr(d.fm.body_offset), d.fm.body_first_line);
  } else {
    d.outline = parse_outline(text, 1);
  }
  d.parsed = true;
  return d;
}

}  // namespace fusecert::docaudit
