// mlir_fuzz, 2026-12-03: a linalg.transpose whose permutation list is
// malformed (here `[1, x]`; the fuzzer's was `[1,` then a comment and another
// module) made MLIR 19's parser store a null attribute and crash (SIGSEGV in
// mlir::Attribute::getContext from NamedAttrList::set). Expected: refused
// before parsing, input.bounds, exit 2; no crash.
func.func @f(%x: tensor<2x3xf32>, %y: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %t = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%y : tensor<3x2xf32>) permutation = [1, x]
  return %t : tensor<3x2xf32>
}
