import { TensorplanError, guarded } from '../../errors.js';
import { checkJsonData, checkSource } from '../../json-data.js';
import { describeSchemaError, schemaErrors } from '../../graph/parse-graph.js';
import { LAYER_SPEC_SCHEMA_V1 } from './layer-schema.js';
import { checkLayerSpecLimits } from './layer-limits.js';
import { archRefusal } from './layer-arch.js';

/**
 * A per-role recipe: `'none'` (or `'bf16'`) keeps the model dtype; the others are TE recipes (FORMATS.md §2).
 *
 * @group Files
 */
export type RoleRecipe = 'none' | 'bf16' | 'fp8_delayed' | 'fp8_current' | 'mxfp8' | 'nvfp4' | 'fp8_block_1d' | 'fp8_block_2d';

/**
 * The recipe of a model: one name for every role (`'fp8_block'` is TE's
 * Float8BlockScaling: 1D inputs and gradients, 2D weights), or one per role.
 *
 * @group Files
 */
export type RecipeSpec = RoleRecipe | 'fp8_block' | { inputs?: RoleRecipe; weights?: RoleRecipe; gradients?: RoleRecipe };

/**
 * Model dimensions.
 *
 * @group Files
 */
export interface ModelDims {
  hidden: number;
  /** FFN width (per expert for MoE). */
  ffn: number;
  heads: number;
  /** Key/value heads (GQA); default `heads`. */
  kvHeads?: number;
  /** Default `hidden / heads`. */
  headDim?: number;
  sequence: number;
  microBatch: number;
  /** Parameter and activation dtype (default bf16). */
  dtype?: 'bf16' | 'fp16' | 'fp32';
}

/**
 * Settings every layer kind shares.
 *
 * @group Files
 */
export interface LayerCommon {
  /** Used in tensor names (default: the kind). */
  name?: string;
  /** Repeat this entry (default 1); each copy is its own layer `L<i>`. */
  repeat?: number;
  /** Activation recomputation (TE `checkpoint`): keep only the layer input, re-run the forward in backward. */
  recompute?: boolean;
}

/**
 * Normalization of LayerNorm* modules.
 *
 * @group Files
 */
export type Normalization = 'layernorm' | 'rmsnorm';
/**
 * MLP activation; the gated ones double the FC1 width.
 *
 * @group Files
 */
export type Activation = 'gelu' | 'relu' | 'swiglu' | 'geglu';

/**
 * Attention settings.
 *
 * @group Files
 */
export interface AttentionSettings {
  /** Fused (flash/cuDNN) attention; default true. Unfused materialises QK^T and softmax. */
  fused?: boolean;
  /** Scratch bytes of the fused kernel, forward and backward (default 0). */
  workspaceBytes?: number;
}

/**
 * Mixture of experts.
 *
 * @group Files
 */
export interface MoeSettings {
  experts: number;
  topK: number;
  /** Tokens each expert receives on this rank (sum = tokens · topK); default: an even split. */
  tokensPerExpert?: number[];
}

/**
 * TE `Linear`.
 *
 * @group Files
 */
export interface LinearLayer extends LayerCommon {
  kind: 'linear';
  outFeatures: number;
  /** Tensor-parallel mode (default `'none'`). */
  parallel?: 'column' | 'row' | 'none';
  bias?: boolean;
}
/**
 * TE `LayerNormLinear`.
 *
 * @group Files
 */
export interface LayerNormLinearLayer extends LayerCommon {
  kind: 'layernormLinear';
  outFeatures: number;
  parallel?: 'column' | 'none';
  normalization?: Normalization;
  bias?: boolean;
}
/**
 * TE `LayerNormMLP` (FC1 column-parallel, FC2 row-parallel).
 *
 * @group Files
 */
export interface LayerNormMlpLayer extends LayerCommon {
  kind: 'layernormMLP';
  activation?: Activation;
  normalization?: Normalization;
  /** Default: the model's `ffn`. */
  ffn?: number;
}
/**
 * TE `MultiheadAttention` with its input norm: QKV LayerNormLinear, core attention, output projection.
 *
 * @group Files
 */
export interface AttentionLayer extends LayerCommon, AttentionSettings {
  kind: 'attention';
  normalization?: Normalization;
}
/**
 * TE `TransformerLayer`: attention and MLP (dense, or MoE when `moe` is set), each with a residual add.
 *
 * @group Files
 */
export interface TransformerLayerSpec extends LayerCommon {
  kind: 'transformer';
  normalization?: Normalization;
  activation?: Activation;
  attention?: AttentionSettings;
  moe?: MoeSettings;
}
/**
 * A MoE block: norm, router, token permutation, two `GroupedLinear`s, unpermutation.
 *
 * @group Files
 */
export interface MoeLayer extends LayerCommon, MoeSettings {
  kind: 'moe';
  activation?: Activation;
  normalization?: Normalization;
  ffn?: number;
}
/**
 * TE `GroupedLinear` over the tokens of the stream split into groups.
 *
 * @group Files
 */
export interface GroupedLinearLayer extends LayerCommon {
  kind: 'groupedLinear';
  groups: number;
  outFeatures: number;
  /** Rows per group (sum = tokens on this rank); default an even split. */
  tokensPerGroup?: number[];
}

/**
 * One entry of the layer stack.
 *
 * @group Files
 */
export type LayerEntry = LinearLayer | LayerNormLinearLayer | LayerNormMlpLayer | AttentionLayer | TransformerLayerSpec | MoeLayer | GroupedLinearLayer;

/**
 * A layer spec (format `tensorplan.layers`, version 1): a short description of
 * a model that `tp.layerGraph(spec)` turns into one joint forward+backward graph.
 *
 * @group Files
 */
export interface LayerSpec {
  format: 'tensorplan.layers';
  version: 1;
  name?: string;
  model: ModelDims;
  /** Default `'none'` (the model dtype everywhere). */
  recipe?: RecipeSpec;
  /**
   * Default: `'blackwell'` when a role uses MXFP8 or NVFP4 (TE refuses them
   * below compute capability 10.0), else `'hopper'` (FP8 per-tensor keeps a
   * transpose buffer there).
   */
  arch?: 'hopper' | 'blackwell';
  parallel?: {
    /** Tensor-parallel size (default 1). */
    tp?: number;
    /** Sequence parallelism (Megatron/TE): the residual stream is split over tokens. */
    sequenceParallel?: boolean;
  };
  /**
   * How weight gradients are allocated: each on its own (`'separate'`, default),
   * one TE bulk_allocate per layer with 256 B alignment (`'bulk'`), or one
   * packed buffer per layer without padding (`'packed'`, TE's grouped wgrad buffer).
   */
  weightGradients?: 'separate' | 'bulk' | 'packed';
  /**
   * Quantized weights: a copy cast from the high-precision weight every step
   * and kept for backward (`'perStep'`, default); a quantized workspace per
   * weight cached across micro-batches, persistent, both usages (`'cached'`:
   * TE with `is_first_microbatch` given, as Megatron-LM's TE wrappers pass it);
   * or the persistent weight is itself quantized (`'primary'`, TE
   * `fp8_model_params`; no per-step copy).
   */
  quantizedWeights?: 'perStep' | 'cached' | 'primary';
  /**
   * TE's cuDNN normalization kernels (`NVTE_NORM_FWD_USE_CUDNN=1`, default
   * false). With MXFP8 inputs and both norm dimensions multiples of 128 the
   * cuDNN kernel writes the quantized output directly; otherwise TE norms
   * write a high-precision temporary and quantize it (normalization.cpp).
   */
  cudnnNorms?: boolean;
  /** Dtype of weight gradients (default: the model dtype). */
  weightGradientDtype?: 'bf16' | 'fp16' | 'fp32';
  /** Optimizer state, persistent: fp32 master weights (default true unless the model is fp32) and fp32 states per parameter (default 2: Adam). */
  optimizer?: { masterWeights?: boolean; statesPerParameter?: number };
  layers: LayerEntry[];
}

function fail(source: string, message: string): never {
  throw new TensorplanError('INVALID_ARGUMENT', `${source}: ${message}`);
}

/**
 * Checks a layer spec against its JSON Schema and the rules the schema cannot
 * state (divisibility by the TP size, token splits that add up); returns it typed.
 *
 * @group Files
 */
export function parseLayerSpec(input: unknown, source = 'layer spec'): LayerSpec {
  return guarded('parseLayerSpec', [input, source], () => parseLayerSpecChecked(input, source));
}

function parseLayerSpecChecked(input: unknown, source: string): LayerSpec {
  checkJsonData(input, checkSource(source));
  const errors = schemaErrors(LAYER_SPEC_SCHEMA_V1, input);
  if (errors.length > 0) fail(source, describeSchemaError(input, errors));
  const spec = input as LayerSpec;
  // Before anything else is computed from the counts (resource limits, layer-limits.ts).
  checkLayerSpecLimits(spec, source);
  const m = spec.model;
  const tp = spec.parallel?.tp ?? 1;
  const kv = m.kvHeads ?? m.heads;
  const tokens = m.sequence * m.microBatch;
  if (m.headDim === undefined && m.hidden % m.heads !== 0) fail(source, `model.hidden = ${m.hidden}: must be a multiple of model.heads = ${m.heads} (or give model.headDim)`);
  if (m.heads % kv !== 0) fail(source, `model.kvHeads = ${kv}: must divide model.heads = ${m.heads}`);
  if (m.heads % tp !== 0) fail(source, `parallel.tp = ${tp}: must divide model.heads = ${m.heads}`);
  if (kv % tp !== 0 && tp % kv !== 0) fail(source, `parallel.tp = ${tp}: must divide model.kvHeads = ${kv} or be a multiple of it`);
  if (m.ffn % tp !== 0) fail(source, `parallel.tp = ${tp}: must divide model.ffn = ${m.ffn}`);
  if (spec.parallel?.sequenceParallel && tokens % tp !== 0) {
    fail(source, `parallel.tp = ${tp}: sequence parallelism needs it to divide model.sequence * model.microBatch = ${tokens}`);
  }
  const refusal = archRefusal(spec);
  if (refusal) fail(source, refusal);
  spec.layers.forEach((layer, i) => {
    const at = `layers[${i}]`;
    if ((layer.kind === 'linear' || layer.kind === 'layernormLinear') && (layer.parallel ?? 'none') !== 'none' && layer.outFeatures % tp !== 0 && layer.parallel === 'column') {
      fail(source, `${at}.outFeatures = ${layer.outFeatures}: must be a multiple of parallel.tp = ${tp} for a column-parallel layer`);
    }
    if ((layer.kind === 'layernormMLP' || layer.kind === 'moe') && layer.ffn !== undefined && layer.ffn % tp !== 0) {
      fail(source, `${at}.ffn = ${layer.ffn}: must be a multiple of parallel.tp = ${tp}`);
    }
    const moe = layer.kind === 'moe' ? layer : layer.kind === 'transformer' ? layer.moe : undefined;
    if (moe) {
      const where = layer.kind === 'moe' ? at : `${at}.moe`;
      if (moe.topK > moe.experts) fail(source, `${where}.topK = ${moe.topK}: must be <= experts = ${moe.experts}`);
      if (moe.tokensPerExpert) {
        if (moe.tokensPerExpert.length !== moe.experts) fail(source, `${where}.tokensPerExpert: has ${moe.tokensPerExpert.length} entries, expected experts = ${moe.experts}`);
        const sum = moe.tokensPerExpert.reduce((a, b) => a + b, 0);
        if (sum !== tokens * moe.topK) fail(source, `${where}.tokensPerExpert: adds up to ${sum}, expected tokens * topK = ${tokens * moe.topK}`);
      }
    }
    if (layer.kind === 'groupedLinear' && layer.tokensPerGroup) {
      if (layer.tokensPerGroup.length !== layer.groups) fail(source, `${at}.tokensPerGroup: has ${layer.tokensPerGroup.length} entries, expected groups = ${layer.groups}`);
    }
  });
  return spec;
}
