#include "support/diag/render.h"

#include <algorithm>
#include <cctype>
#include <system_error>

namespace fusecert::diag {

namespace fs = std::filesystem;

TextRenderer::TextRenderer(fs::path base, std::string tool) : base_(std::move(base)), tool_(std::move(tool)) {
  std::error_code ec;
  cwd_ = fs::current_path(ec);
  if (ec) cwd_.clear();
}

std::string TextRenderer::path(const std::string& file) const {
  if (file.empty()) return file;
  fs::path p(file);
  if (p.is_relative() && !base_.empty()) p = base_ / p;
  // Lexically, as compilers print them: `./in/x.mlir` is `in/x.mlir`, an
  // absolute path under the working directory is relative to it, one outside
  // it (or `../in/x.mlir`) stays outside, normalised.
  const fs::path norm = p.lexically_normal();
  if (norm.is_relative() || cwd_.empty()) return norm.string();
  const fs::path rel = norm.lexically_relative(cwd_);
  if (rel.empty() || *rel.begin() == "..") return norm.string();
  return rel.string();
}

std::string TextRenderer::location(const Location& at) const {
  if (at.file.empty()) return tool_;  // may be empty: then the line starts with the severity
  std::string s = path(at.file);
  if (at.line == 0) return s;
  s += ":" + std::to_string(at.line);
  if (at.col != 0) s += ":" + std::to_string(at.col);
  return s;
}

namespace {
/// The lines of `text` (a message is one line; one a front end wrote with
/// newlines is split, and its blank lines dropped).
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::string::size_type start = 0, nl;
  const auto push = [&](std::string line) {  // trailing blanks (and a CR) dropped
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.pop_back();
    if (!line.empty()) out.push_back(std::move(line));
  };
  while ((nl = text.find('\n', start)) != std::string::npos) {
    push(text.substr(start, nl - start));
    start = nl + 1;
  }
  push(text.substr(start));
  if (out.empty()) out.push_back("");
  return out;
}
}  // namespace

std::string TextRenderer::paths_in(const std::string& text) const {
  // Word by word: a word that names a path (it holds a '/', no "://") as
  // absolute or not lexically normal (`./in/../in/a.mlir:37:11`, `$PWD/x`)
  // prints as path() prints a location's file; its `:LINE[:COL]` and the
  // punctuation around it stay. Other words (and a normal relative path,
  // which path() leaves as it is) are untouched.
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const size_t end = std::min(text.find(' ', i), text.size());
    std::string word = text.substr(i, end - i);
    size_t a = 0, b = word.size();
    while (a < b && std::string("([{'\"`<").find(word[a]) != std::string::npos) ++a;
    while (b > a && std::string(")]}'\"`>,;.").find(word[b - 1]) != std::string::npos) --b;
    // a trailing `:LINE` or `:LINE:COL`
    size_t p = b;
    for (int k = 0; k < 2; ++k) {
      size_t q = p;
      while (q > a && std::isdigit(static_cast<unsigned char>(word[q - 1]))) --q;
      if (q < p && q > a && word[q - 1] == ':') p = q - 1;
      else break;
    }
    const std::string file = word.substr(a, p - a);
    if (file.find('/') != std::string::npos && file.find("://") == std::string::npos) {
      const fs::path fp(file);
      // Relative ones only without a base folder: docs' messages name files
      // relative to the repository root, which path() would resolve first.
      if (fp.is_absolute() || (base_.empty() && fp.lexically_normal().string() != file))
        word = word.substr(0, a) + path(file) + word.substr(p);
    }
    out += word;
    if (end < text.size()) out += ' ';
    i = end + 1;
  }
  return out;
}

std::string TextRenderer::render(const Diagnostic& d) const {
  // Every line is one diagnostic line (docs/diagnostics.md): a message's
  // further lines become notes at its location, a note's further lines
  // further notes at the note's, so no line of output lacks `PATH: SEVERITY:`.
  const std::string where = location(d.loc), lead = where.empty() ? "" : where + ": ";
  const std::vector<std::string> msg = lines_of(paths_in(d.message));
  std::string s = lead + to_string(d.severity) + ": " + msg.front();
  if (!d.rule.empty()) s += " [" + d.rule + "]";
  s += "\n";
  for (size_t i = 1; i < msg.size(); ++i) s += lead + "note: " + msg[i] + "\n";
  for (const auto& n : d.notes) {
    const std::string at = location(n.loc);
    for (const auto& line : lines_of(paths_in(n.message))) s += (at.empty() ? "" : at + ": ") + "note: " + line + "\n";
  }
  return s;
}

std::string TextRenderer::render(const std::vector<Diagnostic>& ds) const {
  std::string s;
  for (const auto& d : ds) s += render(d);
  return s;
}

std::string render_text(const Diagnostic& d) { return TextRenderer().render(d); }

nlohmann::json to_json(const Location& at) { return {{"file", at.file}, {"line", at.line}, {"col", at.col}}; }

nlohmann::json to_json(const Diagnostic& d) {
  nlohmann::json notes = nlohmann::json::array();
  for (const auto& n : d.notes) notes.push_back({{"location", to_json(n.loc)}, {"message", n.message}});
  return {{"severity", to_string(d.severity)}, {"rule", d.rule}, {"location", to_json(d.loc)},
          {"message", d.message}, {"notes", notes}};
}

}  // namespace fusecert::diag
