#include "verifier/ir/input_bounds.h"

#include <cctype>
#include <cstdint>
#include <vector>

namespace fusecert::ir {
namespace {

/// Position of the first byte that is not well-formed UTF-8 (overlong forms,
/// surrogates and code points past U+10FFFF count as ill-formed), or nullopt.
/// MLIR accepts such bytes inside string attributes and names, but every
/// report (JSON, certificates, SARIF) must be UTF-8: mlir_fuzz found
/// `certify` terminating in nlohmann::json::dump (type_error 316).
std::optional<Loc> bad_utf8(const std::string& t, const std::string& filename) {
  unsigned line = 1, col = 1;
  for (size_t i = 0; i < t.size();) {
    unsigned char c = t[i];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = n != 0 && i + n <= t.size();
    for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(t[i + k]) & 0xC0) == 0x80;
    if (ok && n > 1) {
      unsigned cp = c & (0xFF >> (n + 1));
      for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(t[i + k]) & 0x3F);
      static const unsigned min[] = {0, 0, 0x80, 0x800, 0x10000};
      ok = cp >= min[n] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    }
    if (!ok) return Loc{filename, line, col};
    if (c == '\n') ++line, col = 1;
    else ++col;
    i += n;
  }
  return std::nullopt;
}

bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         c == '.';
}

/// Skips blanks and `//` comments from `i`; returns the next significant index.
size_t skip_blank(const std::string& t, size_t i) {
  while (i < t.size()) {
    if (t[i] == ' ' || t[i] == '\t' || t[i] == '\r' || t[i] == '\n') ++i;
    else if (t[i] == '/' && i + 1 < t.size() && t[i + 1] == '/') {
      while (i < t.size() && t[i] != '\n') ++i;
    } else break;
  }
  return i;
}

/// Whether `t` from `i` is `= [` 64-bit integers `]`: what MLIR 19's
/// linalg.transpose / broadcast / reduce custom parsers need after their
/// `permutation` / `dimensions` keyword. Their parseDenseI64ArrayAttr stores
/// DenseI64ArrayAttr::parse's result without checking it, so a malformed list
/// (`[1, x]`, `[1`, `array<i64: 1>`, a value past int64) puts a null attribute
/// into the operation and MLIR crashes (SIGSEGV in Attribute::getContext;
/// mlir_fuzz found it). Integers: optional `-`, decimal or 0x hex, |v| < 2^63.
bool dense_i64_list(const std::string& t, size_t i) {
  i = skip_blank(t, i);
  if (i >= t.size() || t[i] != '=') return false;
  i = skip_blank(t, i + 1);
  if (i >= t.size() || t[i] != '[') return false;
  i = skip_blank(t, i + 1);
  if (i < t.size() && t[i] == ']') return true;
  for (;;) {
    if (i < t.size() && t[i] == '-') i = skip_blank(t, i + 1);
    const bool hex = i + 1 < t.size() && t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'X');
    size_t b = hex ? i + 2 : i, e = b;
    unsigned __int128 v = 0;
    while (e < t.size() && (hex ? std::isxdigit(static_cast<unsigned char>(t[e])) != 0 : t[e] >= '0' && t[e] <= '9')) {
      const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(t[e])));
      v = v * (hex ? 16 : 10) + static_cast<unsigned>(c <= '9' ? c - '0' : c - 'a' + 10);
      if (v > static_cast<unsigned __int128>(INT64_MAX)) return false;
      ++e;
    }
    if (e == b || (e < t.size() && word_char(t[e]))) return false;  // no digits, or `1x`, `1.5`
    i = skip_blank(t, e);
    if (i < t.size() && t[i] == ']') return true;
    if (i >= t.size() || t[i] != ',') return false;
    i = skip_blank(t, i + 1);
  }
}

/// One open bracket: which one, whether it lies inside an affine_map /
/// affine_set, and the operators of the expression being parsed at its level.
struct Open {
  char bracket;
  bool affine;
  int ops = 0;
};

/// The nesting and literal scan (outside string literals and // comments).
std::optional<diag::Diagnostic> scan(const std::string& text, const std::string& filename) {
  std::vector<Open> stack;
  int depth = 0;  // open brackets + the operators counted in affine levels
  bool affine_next = false;  // the last word was affine_map / affine_set
  unsigned line = 1, col = 0;
  bool in_str = false, in_comment = false;
  char prev = '\0';  // the last significant character before this one (outside strings and comments)
  auto too_deep = [&](bool affine) {
    return diag::error(Loc{filename, line, col}, "input.bounds",
                     std::string(affine ? "affine expression nests" : "brackets nest") + " deeper than " +
                         std::to_string(kMaxNesting) + " levels" +
                         (affine ? " (brackets and operators)" : "") +
                         "; not parsed (MLIR's parser would exhaust the stack)");
  };
  auto op = [&]() -> bool {
    if (stack.empty() || !stack.back().affine) return false;
    ++stack.back().ops;
    return ++depth > kMaxNesting;
  };
  auto reset_level = [&] {
    if (stack.empty()) return;
    depth -= stack.back().ops;
    stack.back().ops = 0;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    ++col;
    if (c == '\n') {
      ++line, col = 0, in_comment = false;
      continue;
    }
    if (in_comment) continue;
    if (in_str) {
      if (c == '\\') ++i, ++col;
      else if (c == '"') in_str = false;
      continue;
    }
    if (c == '"') {
      in_str = true;
      prev = c;
      continue;
    }
    if (c == '/' && next == '/') {
      in_comment = true;
      continue;
    }
    const char before = prev;
    if (c != ' ' && c != '\t' && c != '\r') prev = c;
    if (word_char(c)) {
      // A whole word or number token: [A-Za-z0-9_$.]+.
      size_t e = i;
      while (e < text.size() && word_char(text[e])) ++e;
      const std::string_view w(text.data() + i, e - i);
      if (c >= '0' && c <= '9' && w.size() > kMaxLiteralChars)
        return diag::error(Loc{filename, line, col}, "input.bounds",
                         "numeric literal of " + std::to_string(w.size()) + " characters (at most " +
                             std::to_string(kMaxLiteralChars) +
                             "); not parsed (MLIR's integer and float parsing is super-linear in its length)");
      // `) permutation =` / `) dimensions =`: the keyword of linalg.transpose,
      // broadcast or reduce after its outs(...) (an attribute dictionary's
      // key follows `{` or `,`, and is parsed safely).
      if (before == ')' && (w == "permutation" || w == "dimensions") && text[skip_blank(text, e)] == '=' &&
          !dense_i64_list(text, e))
        return diag::error(Loc{filename, line, col}, "input.bounds",
                         "`" + std::string(w) +
                             " =` after an operation's outs(...) must be a list of 64-bit integers [..]; not "
                             "parsed (MLIR 19's linalg.transpose / broadcast / reduce parsers crash on any other)");
      affine_next = w == "affine_map" || w == "affine_set";
      if ((w == "floordiv" || w == "ceildiv" || w == "mod") && op()) return too_deep(true);
      col += static_cast<unsigned>(e - i - 1);
      i = e - 1;
      continue;
    }
    const bool affine = !stack.empty() && stack.back().affine;
    if (c == '-' && next == '>') {  // `->`: neither an operator nor a closing bracket
      ++i, ++col;
      continue;
    }
    if (affine && (c == '>' || c == '<' || c == '=') && next == '=') {  // affine_set comparisons
      ++i, ++col;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      stack.push_back({c, affine || (c == '<' && affine_next)});
      affine_next = false;
      if (++depth > kMaxNesting) return too_deep(stack.back().affine);
      continue;
    }
    affine_next = false;
    if (c == ')' || c == ']' || c == '}' || c == '>') {
      // Only the matching bracket closes: a stray `>` (or one MLIR would
      // reject) never lowers the count below the parser's real depth.
      const char want = c == ')' ? '(' : c == ']' ? '[' : c == '}' ? '{' : '<';
      if (!stack.empty() && stack.back().bracket == want) {
        depth -= 1 + stack.back().ops;
        stack.pop_back();
      }
      continue;
    }
    if (affine && (c == ',' || c == ':')) {
      reset_level();
      continue;
    }
    if (c == '+' || c == '-' || c == '*') {
      if (op()) return too_deep(true);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<diag::Diagnostic> check_input_bounds(const std::string& text, const std::string& filename) {
  if (auto at = bad_utf8(text, filename))
    return diag::error(*at, "input.bounds", "invalid UTF-8 byte sequence; the module is not parsed");
  if (auto d = scan(text, filename)) return d;
  if (text.size() > kMaxInputBytes)
    return diag::error(Loc{filename, 0, 0}, "input.bounds",
                     "input is " + std::to_string(text.size() >> 20) + " MiB; fusecert accepts at most " +
                         std::to_string(kMaxInputBytes >> 20) + " MiB per module (split the module)");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    return diag::error(Loc{filename, 0, 0}, "input.bounds", "input is empty: no module to check");
  return std::nullopt;
}

}  // namespace fusecert::ir
