#include "tools/fusecert/version.h"

#include <z3.h>

#include <cstdio>
#include <functional>
#include <re2/re2.h>

#ifndef FUSECERT_MLIR_VERSION
#error "FUSECERT_MLIR_VERSION must be defined by the build"
#endif

namespace fusecert::cli {

namespace {

std::string z3_full_version() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  Z3_get_version(&a, &b, &c, &d);
  return std::to_string(a) + "." + std::to_string(b) + "." + std::to_string(c);
}

}  // namespace

std::string cvc5_version() {
  // `timeout` bounds a solver that does not answer; its output is only read,
  // never run or trusted beyond the version pattern.
  FILE* p = popen("timeout -k 1 5 cvc5 --version 2>/dev/null", "r");
  if (!p) return "";
  std::string out;
  char buf[512];
  while (out.size() < 4096) {
    const size_t n = std::fread(buf, 1, sizeof buf, p);
    if (n == 0) break;
    out.append(buf, n);
  }
  pclose(p);
  static const RE2 kVersion(R"(cvc5 version ([0-9][0-9A-Za-z.\-+]*))");
  std::string v;
  return RE2::PartialMatch(out, kVersion, &v) ? v : "";
}

std::string version_text() {
  const std::string cvc5 = cvc5_version();
  return std::string("fusecert ") + FUSECERT_VERSION + "\n" +
         "  Z3    " + z3_full_version() + " (linked library: prove, certify, validate, check-cert --solver z3)\n" +
         "  cvc5  " + (cvc5.empty() ? std::string("not found on PATH (check-cert --solver cvc5 needs it)")
                                    : cvc5 + " (cvc5 on PATH: check-cert --solver cvc5)") + "\n" +
         "  MLIR  " + FUSECERT_MLIR_VERSION + " (the MLIR/LLVM libraries fusecert was built against)";
}

void add_version_flags(CLI::App& app) {
  const std::function<void(CLI::App&)> add = [&add](CLI::App& a) {
    a.set_version_flag("--version", std::function<std::string()>(version_text), "print fusecert's, Z3's, cvc5's and MLIR's versions and exit");
    for (CLI::App* sub : a.get_subcommands([](CLI::App*) { return true; })) add(*sub);
  };
  add(app);
}

}  // namespace fusecert::cli
