// bench_baselines.cpp — reading and checking the baseline documents.
#include "fusecert/kernels/bench_baselines.h"

#include <fstream>
#include <set>
#include <stdexcept>
#include <tuple>

namespace fusecert::kernels {
namespace {

using Json = nlohmann::ordered_json;

const char* time_key(BaselineKind kind) {
  return kind == BaselineKind::bench ? "unfused_us" : "mm_plus_adamw_fused_us";
}

bool positive_int(const Json& c, const char* key) {
  return c.contains(key) && c[key].is_number_integer() && c[key].get<long long>() > 0 &&
         c[key].get<long long>() <= (1LL << 30);
}

}  // namespace

std::string check_baseline_document(const Json& doc, BaselineKind kind) {
  if (!doc.is_object()) return "not a JSON object";
  if (!doc.contains("cases") || !doc["cases"].is_array()) return "no \"cases\" array";
  std::set<std::tuple<long long, long long, long long, std::string>> seen;
  const char* tk = time_key(kind);
  for (std::size_t i = 0; i < doc["cases"].size(); ++i) {
    const Json& c = doc["cases"][i];
    const std::string where = "cases[" + std::to_string(i) + "]";
    if (!c.is_object()) return where + " is not an object";
    for (const char* k : {"N", "H", "BT"})
      if (!positive_int(c, k)) return where + "." + k + " is not a positive integer";
    if (!c.contains("state") || !c["state"].is_string() ||
        (c["state"] != "bf16" && c["state"] != "f32"))
      return where + ".state is not \"bf16\" or \"f32\"";
    if (!c.contains(tk) || !c[tk].is_number() || !(c[tk].get<double>() > 0))
      return where + "." + tk + " is not a positive number";
    if (!seen.emplace(c["N"].get<long long>(), c["H"].get<long long>(), c["BT"].get<long long>(),
                      c["state"].get<std::string>())
             .second)
      return where + " repeats an earlier case's N, H, BT and state";
  }
  return "";
}

std::optional<double> baseline_us(const Json& doc, BaselineKind kind, int N, int H, int BT,
                                  const std::string& state) {
  for (const Json& c : doc["cases"])
    if (c["N"] == N && c["H"] == H && c["BT"] == BT && c["state"] == state)
      return c[time_key(kind)].get<double>();
  return std::nullopt;
}

Json read_baseline_document(const std::string& path, BaselineKind kind) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error(path + ": cannot be read");
  Json doc = Json::parse(f, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) throw std::runtime_error(path + ": not valid JSON");
  const std::string why = check_baseline_document(doc, kind);
  if (!why.empty())
    throw std::runtime_error(path + ": not a " +
                             (kind == BaselineKind::bench ? std::string("benchmark")
                                                          : std::string("PyTorch baseline")) +
                             " document: " + why);
  return doc;
}

}  // namespace fusecert::kernels
