// The diagnostic engine's text form (docs/diagnostics.md "The text form"),
// the expected strings written from issue #13's contract: paths relative to
// the working directory as compilers print them, normalised lexically; a
// diagnostic about no file named for the subcommand, with its rule id; an
// unreadable or unwritable file at its path.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "support/diag/file_diagnostics.h"
#include "support/diag/render.h"
#include "support/diag/sarif.h"

namespace fs = std::filesystem;
using namespace fusecert::diag;

namespace {

/// Runs the test in a fresh working directory `<tmp>/wd` and restores the old one.
class InWorkingDir : public ::testing::Test {
 protected:
  void SetUp() override {
    old_ = fs::current_path();
    char tmpl[] = "/tmp/fusecert-render-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = fs::canonical(tmpl);
    fs::create_directories(root_ / "wd");
    fs::current_path(root_ / "wd");
  }
  void TearDown() override {
    fs::current_path(old_);
    fs::remove_all(root_);
  }
  fs::path old_, root_;
};

}  // namespace

TEST_F(InWorkingDir, RelativePathsPrintNormalised) {
  const TextRenderer r;
  EXPECT_EQ(r.path("in/x.mlir"), "in/x.mlir");
  EXPECT_EQ(r.path("./in/x.mlir"), "in/x.mlir");
  EXPECT_EQ(r.path("in/./y/../x.mlir"), "in/x.mlir");
  EXPECT_EQ(r.path("../in/x.mlir"), "../in/x.mlir");
  EXPECT_EQ(r.path("in/../../x.mlir"), "../x.mlir");
}

TEST_F(InWorkingDir, AbsolutePathsUnderTheWorkingDirectoryPrintRelative) {
  const TextRenderer r;
  const std::string wd = (root_ / "wd").string();
  EXPECT_EQ(r.path(wd + "/in/x.mlir"), "in/x.mlir");
  EXPECT_EQ(r.path(wd + "/./in//x.mlir"), "in/x.mlir");
  // Outside the working directory: stays absolute, normalised.
  EXPECT_EQ(r.path(wd + "/../other/x.mlir"), (root_ / "other" / "x.mlir").string());
  EXPECT_EQ(r.path("/elsewhere/./a/../x.mlir"), "/elsewhere/x.mlir");
}

// A path inside a message prints as a location's does (issue #13
// acceptance: `... through stablehlo.reduce at ./in/../in/a.mlir:37:11`, an
// absolute --ir path in check-cert's hash mismatch); words that are no file
// path (a URL, P1/P2) are left alone, and JSON keeps the message as stored.
TEST_F(InWorkingDir, PathsInsideMessagesPrintAsLocationPaths) {
  const std::string wd = (root_ / "wd").string();
  Diagnostic d = error({"./in/../in/a.mlir", 12, 3}, "r",
                       "through stablehlo.reduce at ./in/../in/a.mlir:37:11, and " + wd +
                           "/in/b.mlir is not the module (see https://example.com/a//b, P1/P2, in/c.mlir)");
  d.note({"./in/a.mlir", 13, 1}, "producer here ('" + wd + "/./in/a.mlir:13:1')");
  EXPECT_EQ(render_text(d),
            "in/a.mlir:12:3: error: through stablehlo.reduce at in/a.mlir:37:11, and in/b.mlir is not the module "
            "(see https://example.com/a//b, P1/P2, in/c.mlir) [r]\n"
            "in/a.mlir:13:1: note: producer here ('in/a.mlir:13:1')\n");
  EXPECT_EQ(to_json(d)["message"], d.message);
}

TEST_F(InWorkingDir, ABaseFolderIsResolvedFirst) {
  const TextRenderer r(root_ / "wd" / "repo");
  EXPECT_EQ(r.path("docs/a.md"), "repo/docs/a.md");
  EXPECT_EQ(r.path("./docs/a.md"), "repo/docs/a.md");
}

TEST_F(InWorkingDir, EveryLocationFormGoesThroughTheSamePathRule) {
  const TextRenderer r;
  const std::string wd = (root_ / "wd").string();
  EXPECT_EQ(r.render(error({"./in/x.mlir", 3, 7}, "P2.clip_scope", "cannot fuse")),
            "in/x.mlir:3:7: error: cannot fuse [P2.clip_scope]\n");
  EXPECT_EQ(r.render(error({wd + "/in/x.mlir", 3, 0}, "input.parse", "bad")), "in/x.mlir:3: error: bad [input.parse]\n");
  Diagnostic d = error({"in/x.mlir", 3, 7}, "P2.clip_scope", "cannot fuse");
  d.note({"./in/x.mlir", 2, 1}, "producer here");
  EXPECT_EQ(r.render(d), "in/x.mlir:3:7: error: cannot fuse [P2.clip_scope]\nin/x.mlir:2:1: note: producer here\n");
}

TEST(TextForm, ADiagnosticAboutNoFileNamesTheSubcommandAndKeepsItsRule) {
  const TextRenderer r({}, "fusecert certify");
  Diagnostic d = error({}, "usage", "--format: xml not in {text,json,sarif}");
  d.note({}, "run 'fusecert certify --help' for the options");
  EXPECT_EQ(r.render(d),
            "fusecert certify: error: --format: xml not in {text,json,sarif} [usage]\n"
            "fusecert certify: note: run 'fusecert certify --help' for the options\n");
}

TEST(TextForm, AnUnreadableFileIsReportedAtItsPath) {
  const Diagnostic d = unreadable("in/x.mlir", "in/x.mlir: cannot open: No such file or directory");
  EXPECT_EQ(d.rule, "input.unreadable");
  EXPECT_EQ(d.loc.file, "in/x.mlir");
  EXPECT_EQ(render_text(d), "in/x.mlir: error: cannot read: No such file or directory [input.unreadable]\n");
  EXPECT_EQ(render_text(unreadable("c.json", "c.json: is a folder, not a regular file")),
            "c.json: error: cannot read: is a folder, not a regular file [input.unreadable]\n");
  EXPECT_EQ(render_text(unreadable("c.json", "not a regular file")),
            "c.json: error: cannot read: not a regular file [input.unreadable]\n");
  EXPECT_EQ(render_text(unwritable("out/a.json", "out/a.json: cannot rename into place: Permission denied")),
            "out/a.json: error: cannot write: cannot rename into place: Permission denied [output.unwritable]\n");
}

// Every line of output is a diagnostic line (issue #13): a message or note
// that a front end wrote with newlines comes out as one note line each.
TEST(TextForm, AMultiLineMessageOrNoteBecomesOneNoteLinePerLine) {
  Diagnostic d = error({"in/x.mlir", 3, 7}, "input.parse", "cannot parse\nexpected ')'\n");
  d.note({"in/x.mlir", 2, 1}, "first\n\n  second");
  EXPECT_EQ(render_text(d),
            "in/x.mlir:3:7: error: cannot parse [input.parse]\n"
            "in/x.mlir:3:7: note: expected ')'\n"
            "in/x.mlir:2:1: note: first\n"
            "in/x.mlir:2:1: note:   second\n");
  const TextRenderer r({}, "fusecert prove");
  EXPECT_EQ(r.render(error({}, "input.internal", "a\nb")),
            "fusecert prove: error: a [input.internal]\nfusecert prove: note: b\n");
}

// The one helper of each kind (issue #13): a located input error and a write
// failure known only by its error text.
TEST(TextForm, ALocatedErrorIsAtItsFileLineAndColumn) {
  EXPECT_EQ(render_text(located({"rules/p.yaml", 12, 5}, "input.config", "'expected' must be holds")),
            "rules/p.yaml:12:5: error: 'expected' must be holds [input.config]\n");
  EXPECT_EQ(render_text(located({"rules/p.yaml"}, "input.config", "no propositions")),
            "rules/p.yaml: error: no propositions [input.config]\n");
  const Diagnostic two = located({"a.yaml", 1, 1}, "input.config", "bad\nsee here");
  EXPECT_EQ(two.message, "bad");
  ASSERT_EQ(two.notes.size(), 1u);
  EXPECT_EQ(two.notes[0].message, "see here");
}

TEST(TextForm, ALibrarysLocatedTextBecomesTheLocation) {
  EXPECT_EQ(render_text(located_text("r/p.yaml", "input.config", "r/p.yaml:3:9: error: missing key 'id'")),
            "r/p.yaml:3:9: error: missing key 'id' [input.config]\n");
  EXPECT_EQ(render_text(located_text("t.yaml", "input.config", "t.yaml:4: unknown key")),
            "t.yaml:4: error: unknown key [input.config]\n");
  EXPECT_EQ(render_text(located_text("t.yaml", "input.config", "t.yaml: error: missing sequence 'propositions'")),
            "t.yaml: error: missing sequence 'propositions' [input.config]\n");
  EXPECT_EQ(render_text(located_text("t.yaml", "input.config", "P2: the encoder did not discharge P2.a")),
            "t.yaml: error: P2: the encoder did not discharge P2.a [input.config]\n");
  // A file name that is a prefix of another is not its location.
  EXPECT_EQ(render_text(located_text("t.yaml", "input.config", "t.yaml.bak:1:1: x")),
            "t.yaml: error: t.yaml.bak:1:1: x [input.config]\n");
}

TEST(TextForm, AWriteFailureIsAtThePathItsErrorNames) {
  EXPECT_EQ(render_text(unwritable_cause("out/c.smt2.tmp: cannot open for writing: Permission denied", "out")),
            "out/c.smt2.tmp: error: cannot write: Permission denied [output.unwritable]\n");
  EXPECT_EQ(render_text(unwritable_cause("write failed", "out/x")),
            "out/x: error: cannot write: write failed [output.unwritable]\n");
}

// SARIF (issue #13): a diagnostic about no file has no physical location.
// The result leaves out `locations`; a note about no place keeps only its
// message. Before, both named the working folder (`"uri": "."`).
TEST(Sarif, ADiagnosticAboutNoFileHasNoLocations) {
  fusecert::diag::sarif::Run run;
  run.tool_version = "0";
  Diagnostic d = error({}, "usage", "a bad option");
  d.note({}, "run --help");
  d.note({"in/x.mlir", 2, 1}, "here");
  run.diagnostics = {d};
  const auto log = fusecert::diag::sarif::render(run);
  const auto& r = log["runs"][0]["results"][0];
  EXPECT_FALSE(r.contains("locations")) << r.dump();
  ASSERT_EQ(r["relatedLocations"].size(), 2u);
  EXPECT_FALSE(r["relatedLocations"][0].contains("physicalLocation")) << r.dump();
  EXPECT_EQ(r["relatedLocations"][0]["message"]["text"], "run --help");
  EXPECT_EQ(r["relatedLocations"][1]["physicalLocation"]["artifactLocation"]["uri"], "in/x.mlir");
  EXPECT_TRUE(r.contains("partialFingerprints"));
}
