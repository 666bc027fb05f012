// One encoder per proposition (one file each). Each builds its Z3
// obligations, solves them (verifier/smt), decides the verdict from the
// answers, replays counterexamples in C++ and runs its witness protocol.
#pragma once
#include "verifier/model/hyper.h"
#include "verifier/prover.h"

namespace fusecert::verifier::props {

#define FUSECERT_ENCODER(name)                                                               \
  void name(const PropositionSpec& spec, const std::map<std::string, Param>& params,      \
            const ProveOptions& opt, PropositionResult& out)

FUSECERT_ENCODER(encode_P1);   // tiling independence (binary32), split-K and tied-weight counterexamples
FUSECERT_ENCODER(encode_P2);   // clip identity + impossibility of O(1) recovery
FUSECERT_ENCODER(encode_P2a);  // clip-the-update leaves v unclipped
FUSECERT_ENCODER(encode_P2b);  // delayed norm is no clipping on the spike step
FUSECERT_ENCODER(encode_P2c);  // clipping is exact under SGD (reals), ulp gap in binary32
FUSECERT_ENCODER(encode_P3);   // affine reduce-into-state, owner uniqueness, AdamW negative
FUSECERT_ENCODER(encode_P4);   // micro-batch accumulation into momentum: affine only
FUSECERT_ENCODER(encode_P5);   // β-folded decay vs conditional routing
FUSECERT_ENCODER(encode_P6);   // precision gain bound by state dtype
FUSECERT_ENCODER(encode_P7);   // in-place order: value semantics vs write-after-read after bufferization
FUSECERT_ENCODER(encode_P8);   // residency = tile without gradient-shaped allocation or escape
FUSECERT_ENCODER(encode_P9);   // read locality vs tile partition (integer arithmetic, symbolic tiles)

/// The C++ replays of P2's and P5's counterexamples, on a sat obligation's
/// model (exposed so a test can hand them a model that is no counterexample:
/// the replay must then not confirm it).
Counterexample replay_recovery(const Obligation& ob, const model::Hyper& h, double c);
Counterexample replay_routed(const Obligation& ob, double beta1, long n);

/// The encoder table, in the order `fusecert prove` reports.
struct EncoderEntry {
  const char* id;
  Encoder fn;
};
inline constexpr EncoderEntry kEncoders[] = {
    {"P1", encode_P1},  {"P2", encode_P2}, {"P2a", encode_P2a}, {"P2b", encode_P2b}, {"P2c", encode_P2c},
    {"P3", encode_P3},  {"P4", encode_P4}, {"P5", encode_P5},   {"P6", encode_P6},
    {"P7", encode_P7},  {"P8", encode_P8}, {"P9", encode_P9},
};

}  // namespace fusecert::verifier::props
