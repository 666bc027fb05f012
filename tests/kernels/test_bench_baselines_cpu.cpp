// The baseline documents the benchmark reads (bench_baselines.h): the real
// files of docs/kernels/ are accepted and give their recorded times; every
// malformed document is refused with the case and field named (they come
// from files, so nothing in them is trusted).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>

#include "fusecert/kernels/bench_baselines.h"

namespace fk = fusecert::kernels;
using Json = nlohmann::ordered_json;

namespace {

Json bench_case(int N, int H, int BT, const char* state, Json unfused) {
  return {{"N", N}, {"H", H}, {"BT", BT}, {"state", state}, {"unfused_us", unfused}};
}
Json doc_of(Json cases) { return {{"kind", "fusecert-kernels bench"}, {"cases", cases}}; }

TEST(BenchBaselines, TheRecordedBenchmarkDocumentIsAcceptedWithItsTimes) {
  const Json d = fk::read_baseline_document(FK_DOCS_KERNELS_DIR "/bench-2026-11-30.json", fk::BaselineKind::bench);
  // docs/kernels/bench-2026-11-30.json: 4096x4096, BT 512, bf16 states, unfused 95.712 us.
  EXPECT_DOUBLE_EQ(*fk::baseline_us(d, fk::BaselineKind::bench, 4096, 4096, 512, "bf16"), 95.712);
  EXPECT_FALSE(fk::baseline_us(d, fk::BaselineKind::bench, 4096, 4096, 640, "bf16"));
}

TEST(BenchBaselines, TheRecordedPyTorchDocumentIsAcceptedForBf16StatesOnly) {
  const Json d =
      fk::read_baseline_document(FK_DOCS_KERNELS_DIR "/torch_baseline-2026-11-30.json", fk::BaselineKind::torch);
  const auto t = fk::baseline_us(d, fk::BaselineKind::torch, 4096, 4096, 512, "bf16");
  ASSERT_TRUE(t);
  EXPECT_NEAR(*t, 102.72, 0.01);
  EXPECT_FALSE(fk::baseline_us(d, fk::BaselineKind::torch, 4096, 4096, 512, "f32"));
}

TEST(BenchBaselines, MalformedDocumentsAreRefusedNamingTheField) {
  const auto why = [](const Json& d) { return fk::check_baseline_document(d, fk::BaselineKind::bench); };
  EXPECT_EQ(why(doc_of({bench_case(4096, 4096, 512, "bf16", 95.7)})), "");
  EXPECT_EQ(why(Json::array({1, 2, 3})), "not a JSON object");
  EXPECT_EQ(why(Json{{"kind", "x"}}), "no \"cases\" array");
  EXPECT_EQ(why(Json{{"cases", Json::array({1})}}), "cases[0] is not an object");
  Json n_string = doc_of({bench_case(4096, 4096, 512, "bf16", 95.7)});
  n_string["cases"][0]["N"] = "4096";
  EXPECT_EQ(why(n_string), "cases[0].N is not a positive integer");
  EXPECT_EQ(why(doc_of({bench_case(4096, 0, 512, "bf16", 95.7)})),
            "cases[0].H is not a positive integer");
  EXPECT_EQ(why(doc_of({bench_case(4096, 4096, 512, "fp8", 95.7)})),
            "cases[0].state is not \"bf16\" or \"f32\"");
  EXPECT_EQ(why(doc_of({bench_case(4096, 4096, 512, "bf16", -1.0)})),
            "cases[0].unfused_us is not a positive number");
  // A NaN time is written as null by nlohmann-json: refused, never read as 0.
  EXPECT_EQ(why(doc_of({bench_case(4096, 4096, 512, "bf16", Json(nullptr))})),
            "cases[0].unfused_us is not a positive number");
  EXPECT_EQ(why(doc_of({bench_case(4096, 4096, 512, "bf16", 95.7),
                        bench_case(4096, 4096, 512, "bf16", 96.0)})),
            "cases[1] repeats an earlier case's N, H, BT and state");
  // A PyTorch document is not a benchmark document (no unfused_us) and back.
  const Json torch = {{"cases", {{{"N", 4096}, {"H", 4096}, {"BT", 512}, {"state", "bf16"},
                                  {"mm_plus_adamw_fused_us", 102.7}}}}};
  EXPECT_EQ(fk::check_baseline_document(torch, fk::BaselineKind::torch), "");
  EXPECT_EQ(why(torch), "cases[0].unfused_us is not a positive number");
}

TEST(BenchBaselines, UnreadableOrInvalidFilesThrowNamingTheFile) {
  EXPECT_THROW(fk::read_baseline_document("/nonexistent/bench.json", fk::BaselineKind::bench),
               std::runtime_error);
  const std::string path = ::testing::TempDir() + "fk_baseline_invalid.json";
  {
    std::ofstream f(path);
    f << "{\"cases\": [ {\"N\": nan} ]}";  // what %.6g used to print for a NaN
  }
  try {
    fk::read_baseline_document(path, fk::BaselineKind::bench);
    ADD_FAILURE() << "an invalid JSON file was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": not valid JSON");
  }
  std::remove(path.c_str());
}

TEST(BenchBaselines, NonFiniteNumbersAreWrittenAsNull) {
  // The runner's documents are nlohmann-json: NaN and infinity become null,
  // so the output stays valid JSON.
  EXPECT_EQ(Json(std::numeric_limits<double>::quiet_NaN()).dump(), "null");
  EXPECT_EQ(Json(std::numeric_limits<double>::infinity()).dump(), "null");
}

}  // namespace
