/**
 * Which TransformerEngine behaviour puts a tensor of a layer graph in memory,
 * so that a plan can say, per layer and role, which TE behaviour put each byte
 * there. Every source is a place in TE d0067d0da6cb01811b8072a7d304f0e00344ce2b
 * (paths under transformer_engine/pytorch/, line areas at that commit), read,
 * not copied. Behaviours that are plain PyTorch eager semantics say so.
 */

/**
 * The id of a behaviour that keeps bytes in memory.
 *
 * @group Planning
 */
export type TeBehaviourId =
  | 'modelInput' | 'forwardOutput' | 'savedLinearInput' | 'savedQuantizedWeight' | 'lnOutBothUsages'
  | 'actOutBothUsages' | 'actOutColumnwiseInBackward' | 'savedNormInput' | 'savedActivationInput'
  | 'savedAttention' | 'savedForBackward' | 'heldUntilNodeEnd' | 'fc1OutUntilDactQuantized'
  | 'normQuantizeTemporary' | 'activationQuantizeTemporary' | 'dactTemporary' | 'spAllGather'
  | 'highPrecisionGather' | 'gradient' | 'weightGradient' | 'cachedWeightWorkspace'
  | 'primaryQuantizedWeight' | 'weight' | 'masterWeight' | 'optimizerState' | 'workspace' | 'unattributed';

/**
 * One behaviour: what it keeps, and where TE does it.
 *
 * @group Planning
 */
export interface TeBehaviour {
  id: TeBehaviourId;
  /** One sentence. */
  what: string;
  /** TE file and function (line area at d0067d0da6), or why there is none. */
  source: string;
}

const b = (id: TeBehaviourId, what: string, source: string): [TeBehaviourId, TeBehaviour] =>
  [id, { id, what, source }];

/**
 * The behaviours, by id (TE d0067d0da6).
 *
 * @group Planning
 */
export const TE_BEHAVIOURS: Readonly<Record<TeBehaviourId, TeBehaviour>> = Object.freeze(Object.fromEntries([
  b('modelInput', 'The step\'s input activations, alive until their last reader.',
    'graph input (no TE rule)'),
  b('forwardOutput', 'A forward output (or its quantized copy) awaiting its forward reader; nothing keeps it for backward.',
    'PyTorch eager: freed with its last reference (no TE rule)'),
  b('savedLinearInput', 'A GEMM input saved for wgrad: the columnwise buffers of the quantized input (rowwise for FP8 per-tensor with SP), or the high-precision input.',
    'module/linear.py _linear_forward_impl (≈L616 update_usage(rowwise_usage=False)); layernorm_linear.py _LayerNormLinear.forward (≈L487); grouped_linear.py _GroupedLinear.forward (≈L930)'),
  b('savedQuantizedWeight', 'The per-step quantized weight, saved with both usages although backward reads only the columnwise one.',
    'module/linear.py _linear_forward_impl (≈L490, wt_save ≈L643); layernorm_linear.py (≈L518); layernorm_mlp.py (≈L544-545, ≈L807); grouped_linear.py (≈L729, ≈L930)'),
  b('lnOutBothUsages', 'LayerNormMLP\'s ln_out, saved rowwise and columnwise until FC1 wgrad (no update_usage(rowwise_usage=False)).',
    'module/layernorm_mlp.py _LayerNormMLP._forward (≈L402), backward clear_tensor_data(ln_out_total) (≈L1708)'),
  b('actOutBothUsages', 'LayerNormMLP\'s act_out, saved with every usage made in forward (columnwise too for MXFP8, NVFP4, block FP8) until FC2 wgrad.',
    'module/layernorm_mlp.py _LayerNormMLP._get_quantizers (fc2_input_quantizer.set_usage), backward clear_tensor_data(act_out) (≈L1425)'),
  b('actOutColumnwiseInBackward', 'FP8 per-tensor act_out\'s columnwise usage, built in backward before FC2 wgrad (a transpose on Hopper).',
    'module/layernorm_mlp.py _LayerNormMLP.backward act_out.update_usage(columnwise_usage=True) (≈L1353)'),
  b('savedNormInput', 'A norm\'s input and its mu/rsigma, saved for the norm backward.',
    'module/layernorm_linear.py _LayerNormLinear.forward prepare_for_saving(inputmat, ..., mu, rsigma) (≈L526); layernorm_mlp.py (≈L807)'),
  b('savedActivationInput', 'The activation\'s input (fc1_out), saved for the activation backward.',
    'module/layernorm_mlp.py _LayerNormMLP._forward prepare_for_saving(..., fc1_out, ...) (≈L807)'),
  b('savedAttention', 'Q, K, V, the attention output and the softmax statistics, saved for the attention backward.',
    'attention/dot_product_attention/backends.py FusedAttnFunc.forward prepare_for_saving (≈L1655)'),
  b('savedForBackward', 'A forward tensor another backward reads (router, permutation, unfused attention, residual inputs).',
    'PyTorch autograd save_for_backward of the op that reads it (no TE rule)'),
  b('heldUntilNodeEnd', 'A saved tensor whose last backward reader is done, kept until its autograd node returns (after wgrad, after the norm backward).',
    'module/linear.py _Linear.backward (ctx saved tensors released on return); layernorm_linear.py _LayerNormLinear.backward; layernorm_mlp.py _LayerNormMLP.backward (≈L1757)'),
  b('fc1OutUntilDactQuantized', 'fc1_out, the activation\'s saved input, cleared only after the activation gradient is quantized.',
    'module/layernorm_mlp.py _LayerNormMLP.backward clear_tensor_data(fc1_out, fc1_out_without_bias) (≈L1498)'),
  b('normQuantizeTemporary', 'The high-precision output of an unfused norm-then-quantize, alive across that op pair.',
    'csrc/extensions/normalization.cpp layernorm_fwd / rmsnorm_fwd (UNFUSED and FUSED_NORM_AMAX paths)'),
  b('activationQuantizeTemporary', 'The high-precision output of an unfused activation-then-quantize, alive across that op pair.',
    'csrc/extensions/activation.cpp activation_helper; module/layernorm_mlp.py _LayerNormMLP._forward (≈L635-650)'),
  b('dactTemporary', 'The high-precision activation gradient dact [M, in] of the MLP backward, quantized after.',
    'module/layernorm_mlp.py _LayerNormMLP.backward (≈L1441-1470, dact then fc1_grad_output_quantizer)'),
  b('spAllGather', 'A sequence-parallel all-gather (or re-gather for wgrad) buffer of an input or gradient.',
    'distributed.py gather_along_first_dim (≈L1668); module/linear.py _linear_forward_impl (≈L408), _linear_backward (≈L993, ≈L1156)'),
  b('highPrecisionGather', 'Dequantized and high-precision gathered copies where is_quantizable refuses a quantized all-gather.',
    'distributed.py _all_gather_fp8_blockwise, _all_gather_nvfp4 (≈L1332), _all_gather_mxfp8 (≈L1527)'),
  b('gradient', 'An activation gradient (or its quantized copy) awaiting its backward reader.',
    'PyTorch autograd: freed with its last reference (no TE rule)'),
  b('weightGradient', 'A weight gradient, a step output kept for the optimizer.',
    'module/linear.py _linear_backward wgrad general_gemm (≈L1285); main_grad accumulation when fused'),
  b('cachedWeightWorkspace', 'A quantized weight workspace cached across micro-batches with both usages (persistent).',
    'module/linear.py Linear.forward cache_name (≈L1958), self._fp8_workspaces; base.py quantize_weight (≈L792, internal=False ≈L882)'),
  b('primaryQuantizedWeight', 'The persistent quantized weight itself (fp8_model_params).',
    'module/base.py quantize_weight (quantized primary weights, no per-step copy)'),
  b('weight', 'A model parameter (persistent).', 'module parameters (no TE rule)'),
  b('masterWeight', 'The fp32 master copy of a parameter (persistent).', 'optimizers/fused_adam.py FusedAdam master_weights'),
  b('optimizerState', 'Optimizer moments of a parameter (persistent).', 'optimizers/fused_adam.py FusedAdam exp_avg, exp_avg_sq'),
  b('workspace', 'Scratch memory of the op running at the peak (e.g. the attention workspace).', 'op workspace (no TE rule)'),
  b('unattributed', 'A storage whose tensor info was not written by tp.layerGraph.', 'none'),
]) as Record<TeBehaviourId, TeBehaviour>);
