// Replays fuzz/regressions/<harness>/* — every input a fuzzer (or the bad
// corpus) found to crash, hang or break a contract — through the very same
// harness code, compiled here into the normal (gcc, optionally ASan) build.
// Each harness file is included with its entry point renamed; a regression
// fails this test by crashing, aborting (a contract check) or throwing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#define LLVMFuzzerTestOneInput docs_fuzz_one
#include "fuzz/docs_fuzz.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput docconfig_fuzz_one
#include "fuzz/docconfig_fuzz.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput mlir_fuzz_one
#include "fuzz/mlir_fuzz.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput cert_fuzz_one
#include "fuzz/cert_fuzz.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput param_fuzz_one
#include "fuzz/param_fuzz.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput shell_fuzz_one
#include "fuzz/shell_fuzz.cpp"
#undef LLVMFuzzerTestOneInput
#define Bytes affine_bytes
#define LLVMFuzzerTestOneInput affine_fuzz_one
#include "fuzz/affine_fuzz.cpp"
#undef LLVMFuzzerTestOneInput
#undef Bytes
#define LLVMFuzzerTestOneInput literal_fuzz_one
#include "fuzz/literal_fuzz.cpp"
#undef LLVMFuzzerTestOneInput
#define Bytes certstruct_bytes
#define LLVMFuzzerTestOneInput certstruct_fuzz_one
#include "fuzz/certstruct_fuzz.cpp"
#undef LLVMFuzzerTestOneInput
#undef Bytes

namespace {

using Entry = int (*)(const uint8_t*, size_t);

/// Feeds each file of `files`, in sorted order, to `entry`; returns how many ran.
size_t run_files(std::vector<std::filesystem::path> files, Entry entry) {
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string bytes = ss.str();
    EXPECT_NO_THROW(entry(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  }
  return files.size();
}

/// Runs every file of fuzz/regressions/`harness`; returns how many ran.
size_t replay(const std::string& harness, Entry entry) {
  std::filesystem::path dir = std::filesystem::path(FUSECERT_SOURCE_DIR) / "fuzz/regressions" / harness;
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.is_regular_file()) files.push_back(e.path());
  return run_files(std::move(files), entry);
}

/// Runs every regular file under the source-relative `dirs` (recursively,
/// files under 1 MB) through `entry`: the harness's seed corpus, so each
/// harness's contract is exercised on real inputs in every build, not only on
/// past findings. Returns how many ran.
size_t replay_seeds(const std::vector<std::string>& dirs, Entry entry) {
  std::vector<std::filesystem::path> files;
  for (const auto& d : dirs) {
    std::filesystem::path dir = std::filesystem::path(FUSECERT_SOURCE_DIR) / d;
    if (!std::filesystem::is_directory(dir)) continue;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
      if (e.is_regular_file() && e.file_size() < (1u << 20)) files.push_back(e.path());
  }
  return run_files(std::move(files), entry);
}

}  // namespace

// The seed corpora fuzz/run.sh starts from (fuzz/README.md's table).
TEST(FuzzSeeds, Docs) { EXPECT_GT(replay_seeds({"fixtures/docs", "docs"}, docs_fuzz_one), 100u); }
TEST(FuzzSeeds, DocConfig) { EXPECT_GT(replay_seeds({"fuzz/seeds/docconfig"}, docconfig_fuzz_one), 5u); }
TEST(FuzzSeeds, Cert) { EXPECT_GT(replay_seeds({"fuzz/seeds/cert"}, cert_fuzz_one), 3u); }
TEST(FuzzSeeds, Param) { EXPECT_GT(replay_seeds({"fuzz/seeds/param"}, param_fuzz_one), 5u); }
TEST(FuzzSeeds, Shell) { EXPECT_GT(replay_seeds({"fuzz/seeds/shell"}, shell_fuzz_one), 3u); }
TEST(FuzzSeeds, Affine) { EXPECT_GT(replay_seeds({"fuzz/seeds/affine"}, affine_fuzz_one), 3u); }
TEST(FuzzSeeds, Literal) { EXPECT_GT(replay_seeds({"fuzz/seeds/literal"}, literal_fuzz_one), 3u); }
TEST(FuzzSeeds, CertStructure) { EXPECT_GT(replay_seeds({"fuzz/seeds/certstruct"}, certstruct_fuzz_one), 3u); }

TEST(FuzzRegressions, Docs) { replay("docs_fuzz", docs_fuzz_one); }
TEST(FuzzRegressions, DocConfig) { replay("docconfig_fuzz", docconfig_fuzz_one); }
TEST(FuzzRegressions, Mlir) { EXPECT_GT(replay("mlir_fuzz", mlir_fuzz_one), 0u); }
TEST(FuzzRegressions, Cert) { replay("cert_fuzz", cert_fuzz_one); }
TEST(FuzzRegressions, Param) { replay("param_fuzz", param_fuzz_one); }
TEST(FuzzRegressions, Shell) { replay("shell_fuzz", shell_fuzz_one); }
TEST(FuzzRegressions, Affine) { EXPECT_GT(replay("affine_fuzz", affine_fuzz_one), 0u); }
TEST(FuzzRegressions, Literal) { EXPECT_GT(replay("literal_fuzz", literal_fuzz_one), 0u); }
TEST(FuzzRegressions, CertStructure) { EXPECT_GT(replay("certstruct_fuzz", certstruct_fuzz_one), 0u); }
