#include "docaudit/document.h"

#include <cstring>

#include "docaudit/text.h"
#include "support/files.h"

namespace fusecert::docaudit {

std::string Document::meta(const std::string& key) const {
  auto v = fm.get(key);
  return v && v->scalar ? v->text : "";
}

Document load_document(const fs::path& abs, const Repo& repo, const RuleSet& rules) {
  Document d;
  d.abs = abs;
  d.display = repo.display(abs);
  d.authored = repo.authored(abs);
  auto input = [&](const std::string& rule, int line, int col, const std::string& msg) {
    if (rules.enabled(rule)) d.input_findings.push_back(Finding{d.display, line, col, rules.severity(rule), rule, msg});
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
  if (d.fm.present && d.fm.closed) {
    d.outline = parse_outline(std::string_view(text).substr(d.fm.body_offset), d.fm.body_first_line);
  } else {
    d.outline = parse_outline(text, 1);
  }
  d.parsed = true;
  return d;
}

}  // namespace fusecert::docaudit
