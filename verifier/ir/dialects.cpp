// Kept apart from frontend.cpp: InitAllDialects.h pulls in every dialect's
// headers, so this file is slow to compile and rarely changes.
#include "verifier/ir/dialects.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"

namespace fusecert::ir {

void register_dialects(mlir::DialectRegistry& registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
}

}  // namespace fusecert::ir
