#include "verifier/ir/scalar_fn.h"

namespace fusecert::ir {
namespace {
struct Spelling {
  ScalarFn fn;
  const char* name;
};
constexpr Spelling kSpellings[] = {
    {ScalarFn::Add, "add"},       {ScalarFn::Sub, "sub"},         {ScalarFn::Mul, "mul"},
    {ScalarFn::Div, "div"},       {ScalarFn::Neg, "neg"},         {ScalarFn::Max, "max"},
    {ScalarFn::Min, "min"},       {ScalarFn::MaxNum, "maxnum"},   {ScalarFn::MinNum, "minnum"},
    {ScalarFn::Sqrt, "sqrt"},     {ScalarFn::Rsqrt, "rsqrt"},     {ScalarFn::Convert, "convert"},
    {ScalarFn::And, "and"},       {ScalarFn::Or, "or"},           {ScalarFn::Xor, "xor"},
};
}  // namespace

const char* to_string(ScalarFn f) {
  for (const auto& s : kSpellings)
    if (s.fn == f) return s.name;
  return "unknown";
}

std::optional<ScalarFn> scalar_fn_of(const std::string& s) {
  for (const auto& k : kSpellings)
    if (s == k.name) return k.fn;
  return std::nullopt;
}

std::string scalar_fn_spellings() {
  std::string out;
  for (const auto& k : kSpellings) out += (out.empty() ? "" : ", ") + std::string(k.name);
  return out;
}

}  // namespace fusecert::ir
