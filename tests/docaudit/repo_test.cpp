// Repo's path arithmetic: normal(), join() and sibling() work on strings (a
// run normalizes every link and code span it reads), so they are checked
// against what std::filesystem's lexically_normal gives for the same paths.
#include <gtest/gtest.h>

#include "docaudit/repo.h"

namespace fusecert::docaudit {
namespace {

/// The reference: std::filesystem's lexical normal form, no trailing
/// separator, of the path's string (parsed afresh: libstdc++ keeps the root
/// of `fs::path("//") / "a"` as `//`, though it reads "//a" as "/a").
std::string reference(const fs::path& p) {
  std::string s = fs::path(p.native()).lexically_normal().generic_string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

const char* const kAbsolute[] = {
    "/", "//", "///a", "/a//b", "/a/./b/", "/a/b/..", "/a/b/../", "/..", "/../a", "/a/../../b", "/a/b/../../..",
    "/.", "/./", "/a/.", "/a/...", "/a/.../b", "/a/..b/c", "/a/b./../c", "/x/\xff/../y", "/a/b/c/../../d/./e//",
    "/tmp/repo/docs/audit/area_001/../generated/status.md",
};
const char* const kRelative[] = {
    "", ".", "..", "../..", "../../..", "a", "a/", "./a", "a/./b", "a/../b", "../generated/status.md", "x//y", "/abs/p",
    "/", "a/b/../../..", "...", ".hidden/x",
};

TEST(RepoPaths, NormalMatchesLexicallyNormalOnAbsolutePaths) {
  for (const char* p : kAbsolute) EXPECT_EQ(Repo::normal(p).native(), reference(p)) << p;
  EXPECT_EQ(Repo::normal("/a//b/./c/../d/").native(), "/a/b/d");
  EXPECT_EQ(Repo::normal("/../..").native(), "/");
}

TEST(RepoPaths, JoinAndSiblingMatchNormalOfTheSlashOperator) {
  for (const char* dir : kAbsolute)
    for (const char* rel : kRelative) {
      EXPECT_EQ(Repo::join(dir, rel), reference(fs::path(dir) / rel)) << dir << " + " << rel;
      EXPECT_EQ(Repo::sibling(dir, rel), reference(fs::path(dir).parent_path() / rel)) << dir << " ~ " << rel;
    }
  EXPECT_EQ(Repo::join("/r/docs", "/etc/x"), "/etc/x");  // an absolute part is taken as it is
  EXPECT_EQ(Repo::sibling("/r/docs/a/README.md", "../b/x.md"), "/r/docs/b/x.md");
  EXPECT_EQ(Repo::sibling("/README.md", "x.md"), "/x.md");
}

TEST(RepoPaths, RelativePathsAreTakenFromTheCurrentFolder) {
  const fs::path cwd = fs::current_path();
  EXPECT_EQ(Repo::normal("a/../b").native(), reference(cwd / "b"));
  EXPECT_EQ(Repo::join("a", "b/../c"), reference(cwd / "a/c"));
}

// is_under compares whole segments of the strings (it used to compare
// fs::path components): a name that only starts with the folder's is not in it.
TEST(RepoPaths, IsUnderComparesWholeSegments) {
  EXPECT_TRUE(Repo::is_under("/r/docs/audit", "/r/docs/audit"));
  EXPECT_TRUE(Repo::is_under("/r/docs/audit/x.md", "/r/docs/audit"));
  EXPECT_FALSE(Repo::is_under("/r/docs/auditx/x.md", "/r/docs/audit"));
  EXPECT_FALSE(Repo::is_under("/r/docs", "/r/docs/audit"));
  EXPECT_TRUE(Repo::is_under("/anything", "/"));
  EXPECT_TRUE(Repo::is_under("/", "/"));
  for (const char* a : kAbsolute)
    for (const char* d : kAbsolute) {
      const fs::path pa = Repo::normal(a), pd = Repo::normal(d);
      // The reference: fs::path's component comparison.
      bool ref = true;
      auto i = pa.begin();
      for (auto j = pd.begin(); j != pd.end(); ++j, ++i)
        if (i == pa.end() || *i != *j) {
          ref = false;
          break;
        }
      EXPECT_EQ(Repo::is_under(pa.native(), pd.native()), ref) << a << " under " << d;
    }
}

}  // namespace
}  // namespace fusecert::docaudit
