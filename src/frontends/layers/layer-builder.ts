import type { LayerEntry, LayerSpec, ModelDims, RecipeSpec } from './layer-spec.js';
import { parseLayerSpec } from './layer-spec.js';

/**
 * The fields of a layer entry of kind `K`, without `kind` (what the builder methods take).
 *
 * @group Files
 */
export type LayerEntryFields<K extends LayerEntry['kind']> = Omit<Extract<LayerEntry, { kind: K }>, 'kind'>;

/**
 * Builds a layer spec in code; `build()` checks it exactly as a spec file is checked.
 *
 * @example
 * ```ts
 * import { LayerSpecBuilder, init } from 'tensorplan';
 *
 * // Llama 3 8B shapes, MXFP8, tensor parallel 8 with sequence parallelism.
 * const spec = new LayerSpecBuilder({ hidden: 4096, ffn: 14336, heads: 32, kvHeads: 8, sequence: 8192, microBatch: 1 })
 *   .recipe('mxfp8').parallel(8, true).transformer({ repeat: 32, activation: 'swiglu', normalization: 'rmsnorm' })
 *   .build();
 * // spec.format === 'tensorplan.layers'
 *
 * const tp = await init();
 * const plan = tp.plan(tp.layerGraph(spec).graph, { timeLimitSeconds: 1 });
 * // tp.validate(plan).length === 0
 * ```
 *
 * @group Files
 */
export class LayerSpecBuilder {
  private readonly spec: LayerSpec;

  constructor(model: ModelDims, name?: string) {
    this.spec = { format: 'tensorplan.layers', version: 1, ...(name !== undefined ? { name } : {}), model: { ...model }, layers: [] };
  }

  /** The recipe for every role, or per role. */
  recipe(recipe: RecipeSpec): this {
    this.spec.recipe = recipe;
    return this;
  }

  /** Target GPU class. */
  arch(arch: 'hopper' | 'blackwell'): this {
    this.spec.arch = arch;
    return this;
  }

  /** Tensor-parallel size and sequence parallelism. */
  parallel(tp: number, sequenceParallel = false): this {
    this.spec.parallel = { tp, sequenceParallel };
    return this;
  }

  /** How weight gradients are allocated. */
  weightGradients(mode: 'separate' | 'bulk' | 'packed'): this {
    this.spec.weightGradients = mode;
    return this;
  }

  /**
   * How quantized weights are held: a per-step copy (`perStep`, default), a
   * workspace cached across micro-batches (`cached`, TE with `is_first_microbatch`
   * given), or quantized primary weights (`primary`, TE `fp8_model_params`).
   */
  quantizedWeights(mode: 'perStep' | 'cached' | 'primary'): this {
    this.spec.quantizedWeights = mode;
    return this;
  }

  /**
   * TE's cuDNN normalization kernels (`NVTE_NORM_FWD_USE_CUDNN`): with MXFP8 and
   * 128-multiple dimensions the norm writes its quantized output without a
   * high-precision temporary.
   */
  cudnnNorms(on = true): this {
    this.spec.cudnnNorms = on;
    return this;
  }

  /** Persistent optimizer state. */
  optimizer(options: { masterWeights?: boolean; statesPerParameter?: number }): this {
    this.spec.optimizer = { ...options };
    return this;
  }

  /** Appends a TE Linear. */
  linear(entry: LayerEntryFields<'linear'>): this {
    return this.add({ kind: 'linear', ...entry });
  }

  /** Appends a TE LayerNormLinear. */
  layernormLinear(entry: LayerEntryFields<'layernormLinear'>): this {
    return this.add({ kind: 'layernormLinear', ...entry });
  }

  /** Appends a TE LayerNormMLP. */
  layernormMLP(entry: LayerEntryFields<'layernormMLP'> = {}): this {
    return this.add({ kind: 'layernormMLP', ...entry });
  }

  /** Appends multi-head attention with its input norm. */
  attention(entry: LayerEntryFields<'attention'> = {}): this {
    return this.add({ kind: 'attention', ...entry });
  }

  /** Appends TE TransformerLayers. */
  transformer(entry: LayerEntryFields<'transformer'> = {}): this {
    return this.add({ kind: 'transformer', ...entry });
  }

  /** Appends a MoE block. */
  moe(entry: LayerEntryFields<'moe'>): this {
    return this.add({ kind: 'moe', ...entry });
  }

  /** Appends a TE GroupedLinear. */
  groupedLinear(entry: LayerEntryFields<'groupedLinear'>): this {
    return this.add({ kind: 'groupedLinear', ...entry });
  }

  /** The checked spec; throws a TensorplanError naming the first problem. */
  build(): LayerSpec {
    // Checked before it is copied: what the schema refuses is named, and the copy cannot fail.
    return structuredClone(parseLayerSpec(this.spec, typeof this.spec.name === 'string' ? this.spec.name : 'layer spec'));
  }

  private add(entry: LayerEntry): this {
    this.spec.layers.push(entry);
    return this;
  }
}
