#include "verifier/ir/split.h"

namespace fusecert::ir {

namespace {

bool is_marker(const std::string& text, std::size_t begin, std::size_t end) {
  while (begin < end && (text[begin] == ' ' || text[begin] == '\t')) ++begin;
  while (end > begin && (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\r')) --end;
  return text.compare(begin, end - begin, kSplitMarker) == 0;
}

}  // namespace

std::vector<Split> split_input(const std::string& text) {
  std::vector<Split> out;
  Split cur;
  std::size_t start = 0;  // first byte of the current split
  unsigned line = 1;      // line number of the line starting at `pos`
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t nl = text.find('\n', pos);
    std::size_t end = nl == std::string::npos ? text.size() : nl;
    if (is_marker(text, pos, end)) {
      cur.text = text.substr(start, pos - start);
      cur.index = out.size();
      out.push_back(std::move(cur));
      cur = Split{};
      cur.first_line = line + 1;
      start = nl == std::string::npos ? text.size() : nl + 1;
    }
    if (nl == std::string::npos) break;
    pos = nl + 1;
    ++line;
  }
  cur.text = text.substr(start);
  cur.index = out.size();
  out.push_back(std::move(cur));
  return out;
}

void shift_lines(LoadResult& r, const std::string& file, unsigned first_line) {
  if (first_line <= 1) return;
  const unsigned by = first_line - 1;
  auto shift = [&](Loc& l) {
    if (l.line > 0 && l.file == file) l.line += by;
  };
  for (auto& d : r.diags) {
    shift(d.loc);
    for (auto& n : d.notes) shift(n.loc);  // MLIR's own notes ("see current operation") too
  }
  if (!r.module) return;
  for (auto& o : r.module->ops) shift(o.loc);
  for (auto& v : r.module->values) shift(v.loc);
  for (auto& f : r.module->funcs) shift(f.loc);
}

}  // namespace fusecert::ir
