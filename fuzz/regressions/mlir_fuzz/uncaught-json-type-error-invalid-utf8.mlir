// tessera.sgd and tessera.momentum on tessera.matmul weight gradients: both legal.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %fusecert certify %s --out %t/c > %t/out.txt; test $? -eq 0
// RUN: FileCheck %s < %t/out.txt
// RUN: %fusecert check-cert %t/c/*.json --ir %s --solver z3 | FileCheck %s --check-prefix=RECHECK
// RUN: %fusecert check-cert %t/c/*.json --ir %s --solver cvc5 | FileCheck %s --check-prefix=RECHECK
// RUN: %validate-certs %t/c

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @step(%X: tensor<64x256xf32>, %dY: tensor<64x128xf32>, %W: tensor<256x128xf32>, %W2: tensor<256x128xf32>, %B: tensor<256x128xf32>) -> (tensor<256x128xf32>, tensor<256x128xf32>, tensor<256x128xf32>) {
  %g1 = "tessera.matmul"(%X, %dY) {transposeA = true, tessera.full_k, numeric_policy = {accum = "f32", storage = "f32"}} : (tensor<64x256xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  %W1 = "tessera.sgd"(%W, %g1) {grad_clip_scope = "none", routing = "dense", state_locality = "coordinate", lr = 1.0e-02 : f32} : (tensor<256x128xf32>, tensor<256x128xf32>) -> tensor<256x128xf32>
  %g2 = "tessera.matmul"(%X, %dY) {transposeA = true, tessera.full_k, numeric_policy = {accum = "f32", storage = "f32"}} : (tensor<64x256xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  %W2n, %B1 = "teÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚÚssera.momentum"(%W2, %g2, %B) {grad_clip_scope = "none", routing = "dense", state_locality = "coordinate", state_dtype = "f32", lr = 1.0e-02 : f32, momentum = 0.9 : f32} : (tensor<256x128xf32>, tensor<256x128xf32>, tensor<256x128xf32>) -> (tensor<256x128xf32>, tensor<256x128xf32>)
  return %W1, %W2n, %B1 : tensor<256x128xf32>, tensor<256x128xf32>, tensor<256x128xf32>
}

// CHECK: {{.*}}sgd_momentum_tessera.mlir:11:9: legal: tessera.matmul -> tessera.sgd (sgd) [{{.*}}residency tile]
// CHECK-NEXT: {{.*}}sgd_momentum_tessera.mlir:13:9: legal: tessera.matmul -> tessera.momentum (momentum) [{{.*}}residency tile]
// RECHECK: .cert.json: valid (
// RECHECK-NOT: invalid
