// Every upstream MLIR 19 dialect, so the pretty syntax real pipelines print
// (scf, vector, gpu, llvm, math, bufferization, ...) parses; dialects load
// on first use by the parser. Only frontend.cpp (MLIR, -fno-rtti) uses it.
#pragma once
#include <string>

namespace mlir {
class DialectRegistry;
}

namespace fusecert::ir {

/// Inserts every dialect of libMLIR.so (mlir::registerAllDialects) and the
/// dialect extensions (interface models some dialects promise and verifiers
/// use) into `registry`.
void register_dialects(mlir::DialectRegistry& registry);

/// Whether `name` is the namespace of a dialect MLIR registers (linalg,
/// arith, ...): their ops' semantics come from MLIR's typed ops, never from
/// a table, so a --dialect table for one is refused.
bool is_registered_dialect(const std::string& name);

}  // namespace fusecert::ir
