// Numeric witness protocols: deterministic C++ experiments (fixed seeds) that
// reproduce the figures the FORGE assessment quotes. Each returns its
// protocol description and named figures. Parameters come from
// rules/propositions.yaml (witness_* and protocol keys) and may be overridden.
#pragma once
#include <map>
#include <string>

#include "verifier/core/spec.h"

namespace fusecert::witness {

struct WitnessRun {
  std::string protocol;
  std::map<std::string, double> figures;
};

/// P1: fusing a tied weight anyway (each path steps AdamW in turn) vs one
/// step on g1+g2. Figure tied_weight_rel_error = ‖W_fused−W_ref‖_F / ‖W_ref‖_F.
WitnessRun tied_weight(const std::map<std::string, verifier::Param>& p);

/// P2a/P2b: the spike protocol (W 96×64, N(0,1) gradients, one 50× spike at
/// step 300 of 320, τ = 1.15·√(96·64), AdamW defaults). `policy` is
/// "clip_update" (P2a) or "delayed" (P2b). Figures: spike_displacement_ratio
/// (max|ΔW| on the spike step, policy / exact), vbar_ratio_10_steps
/// (√mean(v) ten steps later, policy / exact), vbar_rel_diff_vs_none.
WitnessRun spike(const std::map<std::string, verifier::Param>& p, const std::string& policy);

/// P3: adamw_partials_v_rel_error (v stepped on per-rank partials vs on the
/// sum, R ranks, ‖·‖_F relative) and affine_state_rel_error (momentum reduced
/// from per-rank state contributions in binary32 vs the single-device step on
/// the summed gradient, max-abs relative).
WitnessRun reduce_into_state(const std::map<std::string, verifier::Param>& p);

/// P5: β-folded decay vs correct decay for routed experts (Bernoulli routing,
/// g = 1 when routed). Figures folded_over_correct_ratio, closed_form_ratio.
WitnessRun routed_decay(const std::map<std::string, verifier::Param>& p);

/// P6: fp32 accumulator vs bf16-rounded gradient over AdamW steps against a
/// float64 reference, for (fp32 W, fp32 state), (fp32 W, bf16 state),
/// (bf16 W, bf16 state). Figures gain_fp32_state, gain_fp32_master_bf16_state,
/// gain_bf16_everything (error ratio bf16-gradient / fp32-gradient).
WitnessRun precision(const std::map<std::string, verifier::Param>& p);

}  // namespace fusecert::witness
