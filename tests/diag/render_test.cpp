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
