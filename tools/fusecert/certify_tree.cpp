// certify over a tree: input expansion, sharding, index + SARIF, merge.
#include "tools/fusecert/certify_tree.h"

#include <fnmatch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "support/confined_files.h"
#include "support/diag/exit_code.h"
#include "tools/fusecert/commands.h"
#include "support/diag/render.h"
#include "support/files.h"
#include "support/sha256.h"
#include "tools/fusecert/progress.h"
#include "verifier/cert/certify.h"

#ifndef FUSECERT_VERSION
#define FUSECERT_VERSION "0"
#endif

namespace fusecert::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {
// /2: diagnostics[] are the diagnostic engine's JSON objects (in /1 they
// were preformatted text lines). --merge reads /2 only and says so.
constexpr const char* kIndexSchema = "fusecert-certify-index/2";

std::string norm(const fs::path& p) {
  std::string s = p.lexically_normal().generic_string();
  while (s.rfind("./", 0) == 0) s.erase(0, 2);
  return s;
}

std::vector<std::string> components(const std::string& p) {
  std::vector<std::string> out;
  for (const auto& c : fs::path(p)) {
    std::string s = c.generic_string();
    if (!s.empty() && s != "/") out.push_back(s);
  }
  return out;
}

bool glob_match(const std::vector<std::string>& pat, size_t i, const std::vector<std::string>& path, size_t j) {
  if (i == pat.size()) return j == path.size();
  if (pat[i] == "**") return glob_match(pat, i + 1, path, j) || (j < path.size() && glob_match(pat, i, path, j + 1));
  return j < path.size() && fnmatch(pat[i].c_str(), path[j].c_str(), FNM_PERIOD) == 0 &&
         glob_match(pat, i + 1, path, j + 1);
}

bool has_glob_chars(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }
/// A pattern: glob characters, and no file of exactly that name. A file
/// named `w[1].mlir` that exists is that file (the hooks pass staged names,
/// which may hold `[`, `*` or `?`); a pattern matching it is not needed.
bool is_glob(const std::string& s) {
  std::error_code ec;
  return has_glob_chars(s) && !fs::exists(fs::symlink_status(s, ec));
}

bool hidden(const fs::path& p) {
  std::string n = p.filename().string();
  return n.size() > 1 && n[0] == '.' && n != "..";
}

void mlir_below(const fs::path& dir, bool recursive, std::set<std::string>& out) {
  std::error_code ec;
  if (recursive) {
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_directory() && hidden(it->path())) {
        it.disable_recursion_pending();
        continue;
      }
      if (it->is_regular_file() && it->path().extension() == ".mlir") out.insert(norm(it->path()));
    }
  } else {
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file() && it->path().extension() == ".mlir") out.insert(norm(it->path()));
  }
  if (ec) throw diag::Fatal{diag::unreadable(dir.string(), "cannot list the folder: " + ec.message())};
}

/// Where a certificate of `file` goes under the output folder.
std::string cert_path(const std::string& file, const std::string& name) {
  std::string rel;
  for (const auto& c : components(file)) rel += (c == ".." ? std::string("__") : c) + "/";
  return "certs/" + rel + name;
}

json summary_of(const json& files) {
  json s = {{"files", files.size()}, {"candidates", 0}, {"legal", 0}, {"illegal", 0}, {"inconclusive", 0},
            {"input_errors", 0}};
  for (const auto& f : files) {
    if (f.at("input_error").get<bool>()) s["input_errors"] = s["input_errors"].get<int>() + 1;
    for (const auto& c : f.at("candidates")) {
      s["candidates"] = s["candidates"].get<int>() + 1;
      std::string v = c.at("verdict");
      if (!s.contains(v)) throw std::runtime_error("unknown verdict '" + v + "' in an index");
      s[v] = s[v].get<int>() + 1;
    }
  }
  return s;
}

int exit_of(const json& summary) {
  // The table's order, as for FILE inputs (cert::exit_code): an input with
  // errors (its own error diagnostics, or an inconclusive candidate with an
  // error diagnostic: a missing key) 2, else an illegal candidate 1, else an
  // inconclusive one (a timeout, vacuous premises) 3.
  if (summary["input_errors"].get<int>() > 0) return diag::code(diag::Exit::InputError);
  if (summary["illegal"].get<int>() > 0) return diag::code(diag::Exit::Findings);
  if (summary["inconclusive"].get<int>() > 0) return diag::code(diag::Exit::Inconclusive);
  return diag::code(diag::Exit::Clean);
}

/// A certificate's candidate that is inconclusive with an error diagnostic
/// (an input error, exit 2, as cert::exit_code counts it for FILE inputs).
bool inconclusive_with_error(const json& cert) {
  if (!cert.is_object() || cert.value("verdict", "") != "inconclusive") return false;
  const auto it = cert.find("diagnostics");
  if (it == cert.end() || !it->is_array()) return false;
  for (const auto& d : *it)
    if (d.is_object() && d.value("severity", "") == "error") return true;
  return false;
}

std::string utc_now() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return b;
}

json make_index(json files, const std::optional<std::pair<unsigned, unsigned>>& shard, bool timestamp) {
  std::sort(files.begin(), files.end(), [](const json& a, const json& b) { return a["file"] < b["file"]; });
  json idx = {{"schema", kIndexSchema},
              {"tool", {{"name", "fusecert"}, {"version", FUSECERT_VERSION}}},
              {"solver", {{"name", "z3"}, {"version", cert::z3_version()}}},
              {"summary", summary_of(files)},
              {"files", files}};
  if (shard) idx["shard"] = {{"k", shard->first}, {"n", shard->second}};
  if (timestamp) idx["generated_at"] = utc_now();
  return idx;
}

/// SARIF with rules sorted by id and results by (uri, line, column, text).
json canonical_sarif(const std::vector<json>& parts) {
  std::map<std::string, json> rules;
  std::vector<json> results;
  for (const auto& s : parts) {
    const auto& run = s.at("runs").at(0);
    for (const auto& r : run.at("tool").at("driver").at("rules")) rules.emplace(r.at("id").get<std::string>(), r);
    for (const auto& r : run.at("results")) results.push_back(r);
  }
  auto key = [](const json& r) {
    // A result about no file has no `locations` (support/diag/sarif.cpp): it sorts first.
    const json none = json::object();
    const json& pl = r.contains("locations") ? r.at("locations").at(0).at("physicalLocation") : none;
    const json region = pl.value("region", json::object());
    return std::make_tuple(pl.contains("artifactLocation") ? pl.at("artifactLocation").at("uri").get<std::string>()
                                                           : std::string(),
                           region.value("startLine", 0), region.value("startColumn", 0),
                           r.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  };
  std::stable_sort(results.begin(), results.end(), [&](const json& a, const json& b) { return key(a) < key(b); });
  json rj = json::array();
  std::map<std::string, int> index;
  for (auto& [id, r] : rules) {
    index[id] = static_cast<int>(rj.size());
    rj.push_back(r);
  }
  // Each part indexed its own rules[]: point every result at the merged one.
  for (auto& r : results)
    if (r.contains("ruleIndex")) r["ruleIndex"] = index.at(r.at("ruleId").get<std::string>());
  json out = cert::render_sarif({}, FUSECERT_VERSION);
  out["runs"][0]["tool"]["driver"]["rules"] = rj;
  out["runs"][0]["results"] = results;
  return out;
}

void print(const json& index, const json& sarif, const std::string& format, const std::string& text) {
  if (format == "json") std::cout << index.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  else if (format == "sarif") std::cout << sarif.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  else {
    const auto& s = index["summary"];
    const auto n = [&](const char* k) { return s[k].dump(); };
    std::cout << text
              << diag::TextRenderer({}, "fusecert certify")
                     .render(diag::remark({}, "summary",
                                          n("files") + " files, " + n("candidates") + " candidates: " + n("legal") +
                                              " legal, " + n("illegal") + " illegal, " + n("inconclusive") +
                                              " inconclusive; " + n("input_errors") + " inputs with errors"));
  }
}

/// A certificate path read from an index: confined below the output folder
/// and where certify puts certificates (certs/…/*.cert.json). An index is
/// input: `../x`, an absolute path or `index.json` itself is refused.
std::string index_cert_path(const json& c, const std::string& where) {
  if (!c.is_object() || !c.contains("certificate") || !c["certificate"].is_string())
    throw std::invalid_argument(where + ": a candidate without a certificate path");
  const std::string rel = c["certificate"];
  support::require_confined(rel);
  const std::string tail = ".cert.json";
  if (rel.rfind("certs/", 0) != 0 || rel.size() <= tail.size() ||
      rel.compare(rel.size() - tail.size(), tail.size(), tail) != 0)
    throw std::invalid_argument(where + ": certificate path '" + rel + "' is not certs/…/*.cert.json");
  return rel;
}

/// Certificates the previous index in `out` lists that this run did not
/// write: removed (a candidate that no longer exists must not leave its old
/// certificate behind), and returned, sorted, for the new index to record.
json remove_stale(const std::string& out, const std::set<std::string>& written) {
  json removed = json::array();
  if (!support::regular_file_confined(out, "index.json")) return removed;
  json old;
  try {
    old = json::parse(support::read_file_confined(out, "index.json", cert::kMaxCertificateBytes));
  } catch (const std::exception& e) {
    diag::Diagnostic d = diag::unreadable(out + "/index.json", e.what());
    d.severity = diag::Severity::Warning;
    d.message += "; the certificates an earlier run listed in it are not cleaned up";
    report("fusecert certify", d);
    return removed;
  }
  if (!old.is_object() || !old.contains("files") || !old["files"].is_array()) return removed;
  std::set<std::string> stale;
  for (const auto& f : old["files"]) {
    if (!f.is_object() || !f.contains("candidates") || !f["candidates"].is_array()) continue;
    for (const auto& c : f["candidates"]) {
      std::string rel;
      try {
        rel = index_cert_path(c, out + "/index.json");
      } catch (const std::exception& e) {
        report("fusecert certify", diag::warning({out + "/index.json"}, "cert.stale_removed",
                                                 std::string(e.what()) + " (not removed)"));
        continue;
      }
      if (!written.count(rel) && support::regular_file_confined(out, rel)) stale.insert(rel);
    }
  }
  for (const auto& rel : stale) {
    support::remove_file_confined(out, rel);
    report("fusecert certify", diag::remark({}, "cert.stale_removed",
                                            "removed the stale certificate " + out + "/" + rel +
                                                " (its candidate is not in this run)"));
    removed.push_back(rel);
  }
  return removed;
}

/// A merged output that cannot be merged: an input error at that output's
/// file (`DIR/index.json`, a certificate), not a usage error.
diag::Fatal bad_merge(const std::string& path, std::string message) {
  return diag::Fatal{diag::error({path}, "input.merge", std::move(message))};
}

int run_merge(const std::string& out, const std::string& format, const TreeOptions& t) {
  json files = json::array();
  std::vector<json> sarifs;
  std::set<std::string> seen;
  std::set<unsigned> shards;
  unsigned n_shards = 0;
  int sharded = 0;
  std::string tool, solver;
  std::vector<std::pair<std::string, std::string>> pending;  // written only once every input checked out
  // Every file of a merged output is input: one that cannot be read or
  // parsed is `[input.merge]` at that file, never a usage error.
  const auto read_merged = [](const std::string& d, const std::string& rel) {
    try {
      return support::read_file_confined(d, rel, cert::kMaxCertificateBytes);
    } catch (const support::FileError& e) {
      std::string why = e.what();
      for (const std::string& p : {d + "/" + rel + ": ", rel + ": ", d + ": "})
        if (why.rfind(p, 0) == 0) {
          why.erase(0, p.size());
          break;
        }
      throw bad_merge(d + "/" + rel, "cannot read: " + why);
    }
  };
  const auto parse_merged = [](const std::string& path, const std::string& text) {
    try {
      return json::parse(text);
    } catch (const json::exception& e) {
      throw bad_merge(path, std::string("not JSON: ") + e.what());
    }
  };
  for (const auto& d : t.merge) {
   try {
    json idx = parse_merged(d + "/index.json", read_merged(d, "index.json"));
    if (!idx.is_object() || !idx.contains("files") || !idx["files"].is_array() || !idx.contains("tool") ||
        !idx.contains("solver"))
      throw bad_merge(d + "/index.json", "not a certify index");
    if (idx.value("schema", "") != kIndexSchema)
      throw bad_merge(d + "/index.json", std::string("not a certify index of schema ") + kIndexSchema + " (found " +
                                  idx.value("schema", std::string("none")) + "; re-run certify on that shard)");
    std::string tv = idx["tool"].dump(), sv = idx["solver"].dump();
    if (tool.empty()) tool = tv, solver = sv;
    if (tv != tool || sv != solver)
      throw bad_merge(d + "/index.json", "made by " + tv + " / " + sv + ", the first by " + tool + " / " +
                                  solver + "; merge only outputs of the same fusecert and Z3");
    if (idx.contains("shard")) {
      ++sharded;
      unsigned k = idx["shard"]["k"], n = idx["shard"]["n"];
      if (n_shards && n != n_shards)
        throw bad_merge(d, "shard " + std::to_string(k) + "/" + std::to_string(n) + " of a split into " +
                                    std::to_string(n) + ", the others into " + std::to_string(n_shards));
      n_shards = n;
      if (!shards.insert(k).second) throw bad_merge(d, "shard " + std::to_string(k) + " given twice");
    }
    for (const auto& f : idx["files"]) {
      if (!seen.insert(f["file"]).second)
        throw bad_merge(d, f["file"].get<std::string>() + " is in two of the merged outputs");
      bool f_error = false;
      for (const auto& c : f["candidates"]) {
        const std::string rel = index_cert_path(c, d + "/index.json");
        const std::string text = read_merged(d, rel);
        if (auto deep = cert::json_too_deep(text, cert::kMaxCertificateDepth)) throw bad_merge(d + "/" + rel, *deep);
        json cj = parse_merged(d + "/" + rel, text);
        if (!cj.is_object() || cj.value("digest", "") != c.value("digest", "") || cert::digest(cj) != c["digest"])
          throw bad_merge(d + "/" + rel, "digest differs from the index or from the certificate's content");
        pending.emplace_back(rel, text);
        // Counted from the certificate, which the digest vouches for, not
        // from the index's flag alone.
        if (inconclusive_with_error(cj)) f_error = true;
      }
      json merged = f;
      if (f_error) merged["input_error"] = true;
      files.push_back(merged);
    }
    sarifs.push_back(parse_merged(d + "/results.sarif", read_merged(d, "results.sarif")));
   } catch (const json::exception& e) {  // a field of the wrong type (a "file" that is a number, …)
    throw bad_merge(d + "/index.json", std::string("not a certify index: ") + e.what());
   }
  }
  if (sharded && (sharded != static_cast<int>(t.merge.size()) || shards.size() != n_shards))
    throw bad_merge(t.merge.front(), "incomplete merge: got " + std::to_string(shards.size()) + " of " +
                                std::to_string(n_shards) + " shards" +
                                (sharded != static_cast<int>(t.merge.size()) ? " mixed with unsharded outputs" : ""));
  std::set<std::string> written;
  for (const auto& [rel, text] : pending) {
    support::write_file_confined(out, rel, text);
    written.insert(rel);
  }
  json removed = remove_stale(out, written);
  json index = make_index(files, std::nullopt, t.timestamp), sarif = canonical_sarif(sarifs);
  if (!removed.empty()) index["removed"] = removed;
  support::write_file_confined(out, "index.json", index.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  support::write_file_confined(out, "results.sarif", sarif.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  print(index, sarif, format,
        diag::TextRenderer({}, "fusecert certify")
            .render(diag::remark({}, "summary", "merged " + std::to_string(t.merge.size()) + " outputs into " + out)));
  return exit_of(index["summary"]);
}
}  // namespace

bool TreeOptions::active(const std::vector<std::string>& inputs) const {
  if (recursive || !shard.empty() || !merge.empty() || timestamp) return true;
  std::error_code ec;
  for (const auto& i : inputs)
    if (is_glob(i) || fs::is_directory(i, ec)) return true;
  return false;
}

std::shared_ptr<TreeOptions> add_certify_tree_options(CLI::App* certify) {
  auto t = std::make_shared<TreeOptions>();
  certify->add_flag("-r,--recursive", t->recursive, "descend into folders (all *.mlir below them)");
  certify->add_option("--shard", t->shard, "certify only shard K of N (by path hash), e.g. --shard 2/4");
  certify->add_option("--merge", t->merge, "merge the --out folders of shard runs into --out")->expected(1, -1);
  certify->add_flag("--timestamp", t->timestamp, "add generated_at (UTC) to DIR/index.json (off: byte-reproducible); index.json is written only by tree runs (a folder or glob input, -r, --shard, --merge or --timestamp itself) with --out DIR");
  return t;
}

std::vector<std::string> expand_inputs(const std::vector<std::string>& inputs, bool recursive) {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& in : inputs) {
    if (!is_glob(in)) {
      if (fs::is_directory(in, ec)) {
        // A folder that contributes nothing is an input error, like a pattern
        // that matches nothing: "0 files, exit 0" would read as a pass.
        std::set<std::string> found;
        mlir_below(in, recursive, found);
        out.insert(found.begin(), found.end());
        if (found.empty())
          throw std::invalid_argument(in + ": the folder holds no .mlir file" + (recursive ? "" : " (use -r to descend)"));
      } else if (fs::exists(in, ec)) out.insert(norm(in));
      else if (ec && ec != std::errc::no_such_file_or_directory)
        throw diag::Fatal{diag::unreadable(in, ec.message())};  // e.g. a symlink loop
      else throw diag::Fatal{diag::unreadable(in, "no such file or folder")};
      continue;
    }
    std::vector<std::string> pat = components(in), fixed;
    size_t i = 0;
    while (i < pat.size() && !has_glob_chars(pat[i])) fixed.push_back(pat[i++]);
    fs::path base = in.rfind('/', 0) == 0 ? fs::path("/") : fs::path();
    for (const auto& c : fixed) base /= c;
    size_t before = out.size();
    fs::path root = base.empty() ? fs::path(".") : base;
    for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_directory() && hidden(it->path())) {
        it.disable_recursion_pending();
        continue;
      }
      if (!it->is_regular_file()) continue;
      fs::path rel = it->path().lexically_relative(root);
      if (glob_match(std::vector<std::string>(pat.begin() + i, pat.end()), 0, components(rel.generic_string()), 0))
        out.insert(norm(it->path()));
    }
    if (out.size() == before) throw std::invalid_argument(in + ": the pattern matches no file");
  }
  return {out.begin(), out.end()};
}

std::pair<unsigned, unsigned> parse_shard(const std::string& s) {
  unsigned k = 0, n = 0;
  char slash = 0, extra = 0;
  if (std::sscanf(s.c_str(), "%u%c%u%c", &k, &slash, &n, &extra) != 3 || slash != '/' || k < 1 || k > n ||
      s.find_first_not_of("0123456789/") != std::string::npos)
    throw std::invalid_argument("--shard wants K/N with 1 <= K <= N, got '" + s + "'");
  return {k, n};
}

unsigned shard_of(const std::string& path, unsigned n) {
  uint64_t h = std::stoull(support::sha256_hex(path).substr(0, 16), nullptr, 16);
  return static_cast<unsigned>(h % n) + 1;
}

int run_certify_tree(const std::vector<std::string>& inputs, const std::string& out, const std::string& format,
                     unsigned timeout_ms, const TreeOptions& t) {
  try {
    if (out.empty()) throw std::invalid_argument("certifying a tree (folders, globs, --shard, --merge) needs --out DIR");
    if (!t.merge.empty()) {
      if (!inputs.empty() || !t.shard.empty()) throw std::invalid_argument("--merge takes folders, not inputs or --shard");
      return run_merge(out, format, t);
    }
    if (inputs.empty()) throw std::invalid_argument("no inputs: give files, folders or globs");
    std::optional<std::pair<unsigned, unsigned>> shard;
    if (!t.shard.empty()) shard = parse_shard(t.shard);
    std::vector<cert::InputReport> reports;
    std::vector<std::string> mine;
    for (const auto& f : expand_inputs(inputs, t.recursive))
      if (!shard || shard_of(f, shard->second) == shard->first) mine.push_back(f);
    {
      Progress progress("fusecert certify");
      for (size_t i = 0; i < mine.size(); ++i) {
        progress.step(mine[i], i + 1, mine.size());
        reports.push_back(cert::certify_file(mine[i], timeout_ms));
      }
    }
    json files = json::array();
    std::set<std::string> written;
    for (const auto& r : reports) {
      bool input_error = r.has_errors() && r.candidates.empty();
      json diags = json::array();
      for (const auto& d : r.diags) {
        input_error |= d.is_error();
        diags.push_back(diag::to_json(d));
      }
      json cands = json::array();
      for (size_t i = 0; i < r.candidates.size(); ++i) {
        json c = cert::certificate(r, i, FUSECERT_VERSION);
        input_error |= inconclusive_with_error(c);
        std::string rel = cert_path(r.file, cert::certificate_name(r, i));
        support::write_file_confined(out, rel, cert::dump(c));
        written.insert(rel);
        cands.push_back({{"certificate", rel}, {"digest", c["digest"]}, {"verdict", c["verdict"]},
                         {"producer", r.candidates[i].producer_loc.str()}});
      }
      files.push_back({{"file", r.file}, {"sha256", r.sha256}, {"parsed", r.parsed}, {"input_error", input_error},
                       {"diagnostics", diags}, {"candidates", cands}});
    }
    json removed = remove_stale(out, written);
    json index = make_index(files, shard, t.timestamp);
    if (!removed.empty()) index["removed"] = removed;
    json sarif = canonical_sarif({cert::render_sarif(reports, FUSECERT_VERSION)});
    support::write_file_confined(out, "index.json", index.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    support::write_file_confined(out, "results.sarif", sarif.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    print(index, sarif, format, cert::render_text(reports));
    return exit_of(index["summary"]);
  } catch (const diag::Fatal& f) {
    report("fusecert certify", f.diagnostic);
    return diag::code(diag::Exit::InputError);
  } catch (const std::exception& e) {
    return fail("fusecert certify", e.what());
  }
  return diag::code(diag::Exit::InputError);
}

}  // namespace fusecert::cli
