#include "docaudit/text.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <cstdint>

namespace fusecert::docaudit {
namespace {

bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool is_word(unsigned char c) { return std::isalnum(c) || c >= 0x80; }
char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

/// Decodes one code point of valid UTF-8 at s[i]; advances i.
std::uint32_t decode(std::string_view s, std::size_t& i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  int n = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
  std::uint32_t cp = n == 0 ? c : n == 1 ? (c & 0x1F) : n == 2 ? (c & 0x0F) : (c & 0x07);
  ++i;
  for (int k = 0; k < n && i < s.size(); ++k, ++i) cp = (cp << 6) | (static_cast<unsigned char>(s[i]) & 0x3F);
  return cp;
}

/// Unicode punctuation and symbol blocks GitHub's slugger drops (an
/// approximation of \p{P} and \p{S} outside ASCII, by block).
bool is_symbol_or_punct(std::uint32_t cp) {
  return (cp >= 0x00A0 && cp <= 0x00BF) || cp == 0x00D7 || cp == 0x00F7 ||
         (cp >= 0x2000 && cp <= 0x2BFF) || (cp >= 0x2E00 && cp <= 0x2E7F) ||
         (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFE30 && cp <= 0xFE4F) ||
         (cp >= 0xFF00 && cp <= 0xFF0F) || (cp >= 0x1F000 && cp <= 0x1FAFF);
}

/// Simple lower-case mapping for the Latin, Greek and Cyrillic letters of
/// the Basic Multilingual Plane (what a heading in this field uses).
std::uint32_t lower_cp(std::uint32_t cp) {
  if ((cp >= 0x00C0 && cp <= 0x00DE && cp != 0x00D7) || (cp >= 0x0391 && cp <= 0x03AB && cp != 0x03A2) ||
      (cp >= 0x0410 && cp <= 0x042F))
    return cp + 0x20;
  if (cp >= 0x0400 && cp <= 0x040F) return cp + 0x50;
  if (cp >= 0x0100 && cp <= 0x017F && cp != 0x0130 && cp != 0x0138 && cp != 0x0149 && cp != 0x017F) {
    const bool odd_upper = (cp >= 0x0139 && cp <= 0x0148) || (cp >= 0x0179 && cp <= 0x017E);
    if (odd_upper ? (cp % 2 == 1) : (cp % 2 == 0)) return cp + 1;
  }
  return cp;
}

void encode(std::uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

std::string trim(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && is_space(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && is_space(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = lower(c);
  return out;
}

std::string normalize_words(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == '*' || c == '`' || c == '_') continue;
    if (is_space(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(lower(c));
  }
  return out;
}

bool starts_with_word(std::string_view text, std::string_view prefix) {
  if (prefix.empty() || text.size() < prefix.size() || text.substr(0, prefix.size()) != prefix) return false;
  if (text.size() == prefix.size()) return true;
  const unsigned char last = static_cast<unsigned char>(prefix.back());
  const unsigned char next = static_cast<unsigned char>(text[prefix.size()]);
  return !is_word(last) || !is_word(next);
}

std::size_t find_term(std::string_view text, std::string_view term) {
  constexpr std::size_t npos = std::string_view::npos;
  if (term.empty() || text.size() < term.size()) return npos;
  const bool need_left = is_word(static_cast<unsigned char>(term.front()));
  const bool need_right = is_word(static_cast<unsigned char>(term.back()));
  const std::size_t last = text.size() - term.size();  // the last offset a match can start at
  // Candidates are the offsets of the term's first byte in either case,
  // found with memchr (the rules search every prose block for every term).
  const char lo = lower(term.front());
  const char up = lo >= 'a' && lo <= 'z' ? static_cast<char>(lo - 'a' + 'A') : lo;
  auto next = [&](char c, std::size_t from) -> std::size_t {
    if (from > last) return npos;
    const void* hit = std::memchr(text.data() + from, c, last + 1 - from);
    return hit ? static_cast<std::size_t>(static_cast<const char*>(hit) - text.data()) : npos;
  };
  std::size_t at_lo = next(lo, 0), at_up = up == lo ? npos : next(up, 0);
  while (at_lo != npos || at_up != npos) {
    const std::size_t i = std::min(at_lo, at_up);
    if (i == at_lo) at_lo = next(lo, i + 1);
    if (i == at_up) at_up = next(up, i + 1);
    bool eq = true;
    for (std::size_t k = 1; k < term.size(); ++k)
      if (lower(text[i + k]) != lower(term[k])) { eq = false; break; }
    if (!eq) continue;
    if (need_left && i > 0 && is_word(static_cast<unsigned char>(text[i - 1]))) continue;
    const std::size_t end = i + term.size();
    if (need_right && end < text.size() && is_word(static_cast<unsigned char>(text[end]))) continue;
    return i;
  }
  return npos;
}

void blank_bare_urls(std::string& text) {
  static constexpr std::string_view kOpeners[] = {"http://", "https://", "ftp://", "www."};
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = lower(text[i]);
    if (c != 'h' && c != 'f' && c != 'w') {  // no opener starts here
      ++i;
      continue;
    }
    const bool word_start = i == 0 || !is_word(static_cast<unsigned char>(text[i - 1]));
    bool url = false;
    if (word_start)
      for (std::string_view o : kOpeners)
        if (text.size() - i >= o.size()) {
          bool eq = true;
          for (std::size_t k = 0; k < o.size() && eq; ++k) eq = lower(text[i + k]) == o[k];
          if (eq) {
            url = true;
            break;
          }
        }
    if (!url) {
      ++i;
      continue;
    }
    while (i < text.size() && !is_space(static_cast<unsigned char>(text[i])) && text[i] != '<' && text[i] != '>')
      text[i++] = ' ';
  }
}

std::optional<Utf8Error> find_invalid_utf8(std::string_view s) {
  int line = 1;
  std::size_t line_start = 0;
  std::size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\n') { ++line; line_start = i + 1; ++i; continue; }
    if (c < 0x80) { ++i; continue; }
    int n;
    std::uint32_t cp, min;
    if (c >= 0xC2 && c <= 0xDF) { n = 1; cp = c & 0x1F; min = 0x80; }
    else if (c >= 0xE0 && c <= 0xEF) { n = 2; cp = c & 0x0F; min = 0x800; }
    else if (c >= 0xF0 && c <= 0xF4) { n = 3; cp = c & 0x07; min = 0x10000; }
    else return Utf8Error{line, static_cast<int>(i - line_start + 1)};
    for (int k = 1; k <= n; ++k) {
      if (i + k >= s.size()) return Utf8Error{line, static_cast<int>(i - line_start + 1)};
      const unsigned char d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return Utf8Error{line, static_cast<int>(i - line_start + 1)};
      cp = (cp << 6) | (d & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return Utf8Error{line, static_cast<int>(i - line_start + 1)};
    i += n + 1;
  }
  return std::nullopt;
}

std::string github_slug(std::string_view text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      if (std::isalnum(c) || c == '_' || c == '-') out.push_back(lower(static_cast<char>(c)));
      else if (c == ' ') out.push_back('-');
      continue;
    }
    const std::uint32_t cp = decode(text, i);
    if (!is_symbol_or_punct(cp)) encode(lower_cp(cp), out);
  }
  return out;
}

std::optional<std::chrono::year_month_day> parse_iso_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
  for (std::size_t k : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!std::isdigit(static_cast<unsigned char>(s[k]))) return std::nullopt;
  auto num = [&](std::size_t a, std::size_t n) {
    int v = 0;
    for (std::size_t k = a; k < a + n; ++k) v = v * 10 + (s[k] - '0');
    return v;
  };
  std::chrono::year_month_day d{std::chrono::year{num(0, 4)}, std::chrono::month{static_cast<unsigned>(num(5, 2))},
                                std::chrono::day{static_cast<unsigned>(num(8, 2))}};
  if (!d.ok()) return std::nullopt;
  return d;
}

}  // namespace fusecert::docaudit
