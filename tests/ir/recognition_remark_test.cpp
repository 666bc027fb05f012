// Recognition is a remark (issue #16): "No code path reads the remark
// before the verdict. A test replaces the recogniser with one that always
// fails, and every verdict stays the same." This is that test: every
// fixture under fixtures/ir (part2 included, --split-input-file where the
// file has splits) is certified with ir::recognize and with a recogniser
// that never proves anything, without assumptions, with routing = dense and
// grad_clip_scope = none assumed, and (part2) with the assumptions its
// EXPECTED.tsv row lists. Each candidate's verdict and deciding obligations
// (id and answer) must be identical; only the remark (recognized_as, the
// non-deciding P1.consumer_is_optimizer) may differ.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "support/files.h"
#include "verifier/cert/certify.h"
#include "verifier/guards/assumptions.h"
#include "verifier/guards/recognition.h"

using namespace fusecert;
namespace fs = std::filesystem;

namespace {

ir::Recognition always_fails(const ir::Body&, int, int, const std::function<const ir::Attr*(const std::string&)>&,
                             unsigned) {
  ir::Recognition r;
  r.detail = "the test recogniser never proves a body";
  return r;
}

struct Verdicts {
  std::vector<std::string> verdicts;  ///< one line per candidate: verdict and deciding obligations
  size_t recognised = 0;              ///< candidates the remark named an optimizer for
};

Verdicts certify(const std::string& path, const std::vector<std::string>& assume) {
  guards::clear_assumptions();
  for (const auto& kv : assume) EXPECT_EQ(guards::add_assumption(kv), "") << kv;
  const std::string text = support::read_file(path);
  const bool split = text.find("// -----") != std::string::npos;
  std::vector<cert::InputReport> in =
      split ? cert::certify_splits(text, path, 30000) : std::vector<cert::InputReport>{cert::certify_text(text, path, 30000)};
  Verdicts r;
  for (const auto& input : in)
    for (const auto& c : input.candidates) {
      std::string line = c.producer_loc.str() + " " + c.verdict + ":";
      for (const auto& o : c.obligations)
        if (o.decides) line += " " + o.id + "=" + o.answer;
      r.verdicts.push_back(line);
      if (!c.recognized.empty() && c.cand.form != ir::Form::Table && c.cand.form != ir::Form::Fused) ++r.recognised;
    }
  guards::clear_assumptions();
  return r;
}

/// part2/EXPECTED.tsv: file -> the assumptions of its rows.
std::map<std::string, std::vector<std::vector<std::string>>> expected_assumptions() {
  std::map<std::string, std::vector<std::vector<std::string>>> out;
  std::ifstream in(std::string(FUSECERT_FIXTURES) + "/part2/EXPECTED.tsv");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) cols.push_back(c);
    if (cols.size() < 3 || cols[2] == "-") continue;
    std::vector<std::string> kv;
    std::stringstream as(cols[2]);
    for (std::string a; std::getline(as, a, ',');) kv.push_back(a);
    out[cols[0]].push_back(kv);
  }
  return out;
}

}  // namespace

TEST(RecognitionRemark, AFailingRecogniserChangesNoVerdictOfAnyFixture) {
  const auto part2 = expected_assumptions();
  size_t files = 0, candidates = 0, recognised = 0;
  std::vector<std::string> paths;
  for (const auto& e : fs::recursive_directory_iterator(FUSECERT_FIXTURES))
    if (e.is_regular_file() && e.path().extension() == ".mlir") paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  for (const auto& path : paths) {
    std::vector<std::vector<std::string>> settings = {{}, {"routing=dense", "grad_clip_scope=none"}};
    if (fs::path(path).parent_path().filename() == "part2")
      if (auto it = part2.find(fs::path(path).filename().string()); it != part2.end())
        for (const auto& kv : it->second) settings.push_back(kv);
    for (const auto& assume : settings) {
      guards::set_recogniser({});
      const Verdicts real = certify(path, assume);
      guards::set_recogniser(always_fails);
      const Verdicts failing = certify(path, assume);
      guards::set_recogniser({});
      std::string a;
      for (const auto& kv : assume) a += " --assume " + kv;
      EXPECT_EQ(real.verdicts, failing.verdicts) << path << a;
      EXPECT_EQ(failing.recognised, 0u) << path << a;
      candidates += real.verdicts.size();
      recognised += real.recognised;
    }
    ++files;
  }
  // The comparison is not vacuous: the fixtures have candidates, and the real
  // recogniser does name optimizers on some of them.
  EXPECT_GT(files, 80u);
  EXPECT_GT(candidates, 100u);
  EXPECT_GT(recognised, 10u);
}
