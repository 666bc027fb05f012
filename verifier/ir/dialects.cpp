// Kept apart from frontend.cpp: InitAllDialects.h pulls in every dialect's
// headers, so this file is slow to compile and rarely changes.
#include "verifier/ir/dialects.h"

#include <algorithm>
#include <string>
#include <vector>

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"

namespace fusecert::ir {

void register_dialects(mlir::DialectRegistry& registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
}

bool is_registered_dialect(const std::string& name) {
  static const std::vector<std::string> names = [] {
    mlir::DialectRegistry r;
    register_dialects(r);
    std::vector<std::string> v;
    for (llvm::StringRef n : r.getDialectNames()) v.push_back(n.str());
    return v;
  }();
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace fusecert::ir
