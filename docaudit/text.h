// Text utilities over UTF-8 strings taken from the parsed tree: case-folding
// for matching, word-bounded term search, GitHub heading slugs, ISO dates and
// UTF-8 validation of raw file bytes.
#pragma once
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace fusecert::docaudit {

std::string trim(std::string_view s);
/// ASCII lower-casing; bytes ≥ 0x80 are kept as they are.
std::string lower_ascii(std::string_view s);
/// Lower-cased, `*`, `_` and backticks removed, whitespace runs collapsed to one space.
std::string normalize_words(std::string_view s);
/// True when `text` begins with `prefix` and the prefix ends at a word boundary.
bool starts_with_word(std::string_view text, std::string_view prefix);
/// Byte offset of the first case-insensitive occurrence of `term` in `text`
/// bounded by non-word characters on both sides (a word character is an ASCII
/// letter or digit or any byte ≥ 0x80); npos when there is none.
std::size_t find_term(std::string_view text, std::string_view term);

/// Blanks (with spaces, so byte offsets keep their positions) every bare URL
/// in `text`: a run of non-space bytes opening with `http://`, `https://`,
/// `ftp://` or `www.` at a word start. A phrase inside a URL is not prose.
void blank_bare_urls(std::string& text);

/// Position of the first invalid UTF-8 sequence in `bytes` (1-based line and
/// byte column), or nullopt when the bytes are valid UTF-8 (overlongs,
/// surrogates and code points above U+10FFFF are invalid).
struct Utf8Error { int line = 1, col = 1; };
std::optional<Utf8Error> find_invalid_utf8(std::string_view bytes);

/// GitHub's anchor for a heading's text: lower-case, punctuation and symbols
/// dropped, spaces to hyphens (duplicates are numbered by the caller).
std::string github_slug(std::string_view heading_text);

/// Parses a real calendar date written exactly as YYYY-MM-DD.
std::optional<std::chrono::year_month_day> parse_iso_date(std::string_view s);

}  // namespace fusecert::docaudit
