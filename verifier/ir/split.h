// `--split-input-file`: a lit-style .mlir file cut on `// -----` lines into
// modules that are checked one by one, as `mlir-opt --split-input-file` does.
// Each split keeps its position in the original file (first_line), so every
// location reported for it is a line of that file.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "verifier/ir/model.h"

namespace fusecert::ir {

/// The marker line, alone on its line up to surrounding blanks.
inline constexpr const char* kSplitMarker = "// -----";
/// More splits than this in one file is an input error (each split is
/// parsed in its own MLIR context; a hostile file of markers alone must not
/// cost hours).
inline constexpr std::size_t kMaxSplits = 10000;

struct Split {
  std::size_t index = 0;     ///< 0-based, in file order
  unsigned first_line = 1;   ///< 1-based line of the original file where the split's text starts
  std::string text;          ///< the split's bytes (the marker lines themselves belong to no split)
};

/// Cuts `text` on every line whose content, without leading and trailing
/// blanks (space, tab, CR), is exactly kSplitMarker. Unlike mlir-opt 19,
/// which cuts on the substring anywhere, a longer run of dashes (a
/// `// ----------` banner comment) or text after the marker does not cut:
/// a banner would otherwise leave a stray `------` as a module of its own.
/// A file without a marker is one split. Never fails: callers check
/// kMaxSplits.
std::vector<Split> split_input(const std::string& text);

/// Moves every location of `r` (diagnostics, ops, values, functions) in
/// `file` that has a line down by `first_line - 1`: a split parsed on its
/// own reports the lines of the original file. Locations the IR names
/// itself (`loc("model.py":3:1)`) keep their lines.
void shift_lines(LoadResult& r, const std::string& file, unsigned first_line);

}  // namespace fusecert::ir
