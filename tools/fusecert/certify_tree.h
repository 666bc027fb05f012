// `fusecert certify` over a tree, for CI: folders (--recursive), globs,
// deterministic sharding by path hash (--shard K/N), and the merge of shard
// outputs (--merge DIR...). Output folder layout (--out DIR):
//   DIR/index.json        files, candidates, certificate paths and digests,
//                         and a summary (counts per verdict)
//   DIR/results.sarif     SARIF 2.1.0, results in canonical order
//   DIR/certs/<input path>/<stem>.<line>_<col>.r<n>.cert.json
// Everything is deterministic (sorted, no times) unless --timestamp is given,
// so N shards merged are byte-for-byte one unsharded run.
#pragma once
#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fusecert::cli {

struct TreeOptions {
  bool recursive = false;
  std::string shard;                 ///< "K/N", empty = all inputs
  std::vector<std::string> merge;    ///< shard output folders to merge
  bool timestamp = false;            ///< add "generated_at" (UTC) to the index
  /// Tree mode: any of the options above, or an input that is a folder or a glob.
  bool active(const std::vector<std::string>& inputs) const;
};

/// Registers --recursive, --shard, --merge and --timestamp on `certify`.
std::shared_ptr<TreeOptions> add_certify_tree_options(CLI::App* certify);

/// Runs certify in tree mode; returns the exit status, as for FILE inputs
/// (cert::exit_code): 2 bad usage or an input with errors (an inconclusive
/// candidate with an error diagnostic included), else 1 any illegal, else 3
/// any inconclusive, else 0.
int run_certify_tree(const std::vector<std::string>& inputs, const std::string& out, const std::string& format,
                     unsigned timeout_ms, const TreeOptions& t);

/// Expands files, folders (direct *.mlir children; all below with
/// `recursive`) and globs (*, ?, [..] within a path component, ** across
/// components) into sorted, unique, normalised paths. Throws diag::Fatal
/// (input.unreadable, at the path) for a path that does not exist or cannot
/// be listed, std::invalid_argument for a glob that matches nothing.
std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs, bool recursive);

/// Parses "K/N" (1 <= K <= N); throws std::invalid_argument otherwise.
std::pair<unsigned, unsigned> parse_shard(const std::string& s);

/// The shard (1..n) a path belongs to: SHA-256 of the path text, first 8 bytes, mod n, plus 1.
unsigned shard_of(const std::string& path, unsigned n);

}  // namespace fusecert::cli
