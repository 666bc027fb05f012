// The embedded default input of `fusecert certify`: one training step of a
// two-layer MLP (relu hidden layer) in upstream MLIR on tensors — forward,
// backward (two weight-gradient GEMMs dW = hᵀ·dY, the ΔX GEMM dh = dY·W2ᵀ, the
// relu mask) and an AdamW update per weight as a linalg.generic whose body is
// the AdamW step (recognised by proof, hyper-parameters declared on the op).
#include "verifier/cert/certify.h"

namespace fusecert::cert {

const std::string& embedded_training_step() {
  static const std::string text = R"MLIR(// Two-layer MLP, one training step (batch 64, 256 -> 512 -> 128), AdamW.
#id = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @mlp_train_step(%X: tensor<64x256xf32>, %dY: tensor<64x128xf32>,
                            %W1: tensor<256x512xf32>, %m1: tensor<256x512xf32>, %v1: tensor<256x512xf32>,
                            %W2: tensor<512x128xf32>, %m2: tensor<512x128xf32>, %v2: tensor<512x128xf32>)
      -> (tensor<256x512xf32>, tensor<256x512xf32>, tensor<256x512xf32>,
          tensor<512x128xf32>, tensor<512x128xf32>, tensor<512x128xf32>) {
    %zero = arith.constant 0.0 : f32
    // Forward: z = X·W1, h = relu(z). (The loss gradient dY is an argument.)
    %ez = tensor.empty() : tensor<64x512xf32>
    %z0 = linalg.fill ins(%zero : f32) outs(%ez : tensor<64x512xf32>) -> tensor<64x512xf32>
    %z = linalg.matmul ins(%X, %W1 : tensor<64x256xf32>, tensor<256x512xf32>) outs(%z0 : tensor<64x512xf32>) -> tensor<64x512xf32>
    %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%z : tensor<64x512xf32>) outs(%ez : tensor<64x512xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = arith.maximumf %a, %zero : f32
      linalg.yield %r : f32
    } -> tensor<64x512xf32>
    // Backward, layer 2: dW2 = hᵀ·dY (weight gradient), dh = dY·W2ᵀ (ΔX GEMM).
    %eg2 = tensor.empty() : tensor<512x128xf32>
    %g20 = linalg.fill ins(%zero : f32) outs(%eg2 : tensor<512x128xf32>) -> tensor<512x128xf32>
    %dW2 = linalg.matmul_transpose_a ins(%h, %dY : tensor<64x512xf32>, tensor<64x128xf32>) outs(%g20 : tensor<512x128xf32>) -> tensor<512x128xf32>
    %dh = linalg.matmul_transpose_b ins(%dY, %W2 : tensor<64x128xf32>, tensor<512x128xf32>) outs(%z0 : tensor<64x512xf32>) -> tensor<64x512xf32>
    // relu backward: dz = dh where z > 0.
    %dz = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%dh, %z : tensor<64x512xf32>, tensor<64x512xf32>) outs(%ez : tensor<64x512xf32>) {
    ^bb0(%d: f32, %zz: f32, %o: f32):
      %pos = arith.cmpf ogt, %zz, %zero : f32
      %r = arith.select %pos, %d, %zero : f32
      linalg.yield %r : f32
    } -> tensor<64x512xf32>
    // Backward, layer 1: dW1 = Xᵀ·dz.
    %eg1 = tensor.empty() : tensor<256x512xf32>
    %g10 = linalg.fill ins(%zero : f32) outs(%eg1 : tensor<256x512xf32>) -> tensor<256x512xf32>
    %dW1 = linalg.matmul_transpose_a ins(%X, %dz : tensor<64x256xf32>, tensor<64x512xf32>) outs(%g10 : tensor<256x512xf32>) -> tensor<256x512xf32>
    // AdamW (step 1) on W1 and W2: the consumers fusecert certifies.
    %u1:3 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%W1, %dW1, %m1, %v1 : tensor<256x512xf32>, tensor<256x512xf32>, tensor<256x512xf32>, tensor<256x512xf32>)
        outs(%eg1, %eg1, %eg1 : tensor<256x512xf32>, tensor<256x512xf32>, tensor<256x512xf32>)
        attrs = {optimizer = "adamw", lr = 1.0e-03 : f32, beta1 = 0.9 : f32, beta2 = 0.999 : f32, eps = 1.0e-08 : f32,
                 weight_decay = 1.0e-02 : f32, step = 1 : i64, grad_clip_scope = "none", routing = "dense"} {
    ^bb0(%w: f32, %g: f32, %m: f32, %v: f32, %o0: f32, %o1: f32, %o2: f32):
      %b1 = arith.constant 0.9 : f32
      %c1 = arith.constant 0.1 : f32
      %b2 = arith.constant 0.999 : f32
      %c2 = arith.constant 1.0e-03 : f32
      %bc1 = arith.constant 0.1 : f32
      %bc2 = arith.constant 1.0e-03 : f32
      %eps = arith.constant 1.0e-08 : f32
      %lr = arith.constant 1.0e-03 : f32
      %dec = arith.constant 0.99999 : f32
      %t0 = arith.mulf %b1, %m : f32
      %t1 = arith.mulf %c1, %g : f32
      %mn = arith.addf %t0, %t1 : f32
      %t2 = arith.mulf %b2, %v : f32
      %gg = arith.mulf %g, %g : f32
      %t3 = arith.mulf %c2, %gg : f32
      %vn = arith.addf %t2, %t3 : f32
      %mh = arith.divf %mn, %bc1 : f32
      %vh = arith.divf %vn, %bc2 : f32
      %sq = math.sqrt %vh : f32
      %den = arith.addf %sq, %eps : f32
      %q = arith.divf %mh, %den : f32
      %st = arith.mulf %lr, %q : f32
      %wd = arith.mulf %w, %dec : f32
      %wn = arith.subf %wd, %st : f32
      linalg.yield %wn, %mn, %vn : f32, f32, f32
    } -> (tensor<256x512xf32>, tensor<256x512xf32>, tensor<256x512xf32>)
    %u2:3 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%W2, %dW2, %m2, %v2 : tensor<512x128xf32>, tensor<512x128xf32>, tensor<512x128xf32>, tensor<512x128xf32>)
        outs(%eg2, %eg2, %eg2 : tensor<512x128xf32>, tensor<512x128xf32>, tensor<512x128xf32>)
        attrs = {optimizer = "adamw", lr = 1.0e-03 : f32, beta1 = 0.9 : f32, beta2 = 0.999 : f32, eps = 1.0e-08 : f32,
                 weight_decay = 1.0e-02 : f32, step = 1 : i64, grad_clip_scope = "none", routing = "dense"} {
    ^bb0(%w: f32, %g: f32, %m: f32, %v: f32, %o0: f32, %o1: f32, %o2: f32):
      %b1 = arith.constant 0.9 : f32
      %c1 = arith.constant 0.1 : f32
      %b2 = arith.constant 0.999 : f32
      %c2 = arith.constant 1.0e-03 : f32
      %bc1 = arith.constant 0.1 : f32
      %bc2 = arith.constant 1.0e-03 : f32
      %eps = arith.constant 1.0e-08 : f32
      %lr = arith.constant 1.0e-03 : f32
      %dec = arith.constant 0.99999 : f32
      %t0 = arith.mulf %m, %b1 : f32
      %t1 = arith.mulf %g, %c1 : f32
      %mn = arith.addf %t1, %t0 : f32
      %t2 = arith.mulf %v, %b2 : f32
      %gg = arith.mulf %g, %g : f32
      %t3 = arith.mulf %gg, %c2 : f32
      %vn = arith.addf %t3, %t2 : f32
      %mh = arith.divf %mn, %bc1 : f32
      %vh = arith.divf %vn, %bc2 : f32
      %sq = math.sqrt %vh : f32
      %den = arith.addf %eps, %sq : f32
      %q = arith.divf %mh, %den : f32
      %st = arith.mulf %q, %lr : f32
      %wd = arith.mulf %dec, %w : f32
      %wn = arith.subf %wd, %st : f32
      linalg.yield %wn, %mn, %vn : f32, f32, f32
    } -> (tensor<512x128xf32>, tensor<512x128xf32>, tensor<512x128xf32>)
    return %u1#0, %u1#1, %u1#2, %u2#0, %u2#1, %u2#2
        : tensor<256x512xf32>, tensor<256x512xf32>, tensor<256x512xf32>, tensor<512x128xf32>, tensor<512x128xf32>, tensor<512x128xf32>
  }
}
)MLIR";
  return text;
}

}  // namespace fusecert::cert
