// The IR the P3 checker section of `fusecert kernels evidence --distributed`
// certifies: the two reduce-into-state steps the hardware evidence runs,
// written as fixtures (fixtures/ir/) and embedded at configure time
// (p3_checker_inputs.cpp.in), so the binary checks them wherever it runs.
#pragma once

namespace fusecert::cli {

struct P3CheckerInput {
  const char* name;      ///< "<embedded>/fixtures/ir/<file>.mlir"
  const char* expected;  ///< "legal" (affine state reduced) or "illegal" (refused)
  const char* what;      ///< the step, in words
  const char* text;      ///< the module
};

/// Momentum's B (and AdamW's m) reduced: legal; AdamW's v reduced: refused.
extern const P3CheckerInput kP3CheckerInputs[2];

}  // namespace fusecert::cli
