// A weight-gradient -> optimizer pair, illegal under P2 (global clip).
func.func @clip(%X: tensor<64x256xf32>, %dY: tensor<64x128xf32>, %W: tensor<256x128xf32>) -> tensor<256x128xf32> {
  %g = "tessera.matmul"(%X, %dY) {transposeA = true, tessera.full_k, numeric_policy = {accum = "f32", storage = "f32"}} : (tensor<64x256xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  %W1 = "tessera.sgd"(%W, %g) {grad_clip_scope = "global", routing = "dense", state_locality = "coordinate", lr = 1.0e-02 : f32} : (tensor<256x128xf32>, tensor<256x128xf32>) -> tensor<256x128xf32>
  return %W1 : tensor<256x128xf32>
}
