import type { CoreBinding } from '../../abi/core-binding.js';
import type { DType } from '../../formats/dtype.js';
import { TensorplanError } from '../../errors.js';
import { splitQuantizeLayout } from '../../formats/grouped.js';
import type { Recipe, TensorFormat } from '../../formats/tensor-format.js';
import { activationHasTemporary, dactHasTemporary, normHasTemporary } from './te-transients.js';
import { tensorSpecBuffers } from '../../formats/tensor-spec.js';
import type { TensorSize } from '../../graph/graph-builder.js';
import type { GraphAlias, GraphDocument, GraphOp, GraphTensor, OpAttributeValue } from '../../graph/graph-document.js';
import { parseGraph } from '../../graph/parse-graph.js';
import type {
  Activation, AttentionSettings, LayerEntry, LayerSpec, MoeSettings, Normalization, RoleRecipe,
} from './layer-spec.js';
import { parseLayerSpec } from './layer-spec.js';
import { dtypeFacts, recipeFacts } from './core-facts.js';
import { layerArch } from './layer-arch.js';
import type { TeBehaviourId } from './te-behaviours.js';

/**
 * What a tensor of a layer graph is, for attribution.
 *
 * @group Planning
 */
export type LayerTensorRole =
  | 'input' | 'activation' | 'quantizedActivation' | 'communication' | 'gradient' | 'quantizedGradient'
  | 'quantizedWeight' | 'weightGradient' | 'weight' | 'masterWeight' | 'optimizerState';

/**
 * Where a tensor of a layer graph comes from.
 *
 * @group Planning
 */
export interface LayerTensorInfo {
  /** `L<i>` for the i-th layer after repeats; `model` for the graph input and the loss. */
  layer: string;
  /** The module inside the layer, e.g. `fc1`, `attn`, `ln1`. */
  module: string;
  role: LayerTensorRole;
  /** Made in forward (or recomputation) and read in backward. */
  saved: boolean;
  /** For a quantized buffer: the TE attribute (e.g. `_columnwise_data`) and the recipe. */
  buffer?: string;
  recipe?: Recipe;
  /** The TE behaviour that puts it in memory (te-behaviours.ts, issue #15). */
  because: TeBehaviourId;
  /**
   * Set when TE keeps it past its last reader (holdUntil): `lastReader` is the
   * last op that really reads it (in build order), `until` the op it is kept
   * alive until, `because` the behaviour that keeps it there.
   */
  held?: { lastReader: string | null; until: string; because: TeBehaviourId };
}

/** The behaviour a tensor has unless its builder says otherwise. */
const BECAUSE_BY_ROLE: Record<LayerTensorRole, TeBehaviourId> = {
  input: 'modelInput', activation: 'forwardOutput', quantizedActivation: 'forwardOutput', communication: 'spAllGather',
  gradient: 'gradient', quantizedGradient: 'gradient', quantizedWeight: 'savedQuantizedWeight', weightGradient: 'weightGradient',
  weight: 'weight', masterWeight: 'masterWeight', optimizerState: 'optimizerState',
};

/**
 * Phase of an op of a layer graph.
 *
 * @group Planning
 */
export type LayerOpPhase = 'forward' | 'loss' | 'backward' | 'recompute';

/**
 * A layer spec turned into a graph, with what every tensor and op is.
 *
 * @group Planning
 */
export interface LayerGraph {
  /** The joint forward+backward graph (graph format v1). */
  graph: GraphDocument;
  /** The spec it came from, checked. */
  spec: LayerSpec;
  tensors: Record<string, LayerTensorInfo>;
  ops: Record<string, LayerOpPhase>;
  /** Names of the layers in order (`L0`, `L1`, ...) with their kind. */
  layers: { layer: string; kind: LayerEntry['kind']; name: string; recompute: boolean }[];
}

type Usage = 'rowwise' | 'columnwise';

/** A quantized tensor: its inner buffers as graph tensors. */
interface QT {
  buffers: { tensor: string; name: string; usages: Usage[] }[];
  shape: number[];
  /** TE's `is_quantizable`: whether a quantized all-gather of it is possible (else TE gathers in high precision). */
  quantizable: boolean;
}

/** An activation passed between modules: a high-precision tensor, a quantized one, or both. */
interface Act {
  name?: string;
  q?: QT;
  rows: number;
  cols: number;
}

interface Roles { inputs: Recipe; weights: Recipe; gradients: Recipe }

const ROLE_RECIPES: Record<string, Recipe> = {
  none: 'none', bf16: 'none', fp8_delayed: 'fp8_delayed', fp8_current: 'fp8_current', mxfp8: 'mxfp8', nvfp4: 'nvfp4',
  fp8_block_1d: 'fp8_block_1d', fp8_block_2d: 'fp8_block_2d',
};

function resolveRecipe(spec: LayerSpec): Roles {
  const r = spec.recipe ?? 'none';
  if (typeof r === 'string') {
    if (r === 'fp8_block') return { inputs: 'fp8_block_1d', weights: 'fp8_block_2d', gradients: 'fp8_block_1d' };
    const one = ROLE_RECIPES[r];
    return { inputs: one, weights: one, gradients: one };
  }
  const pick = (v: RoleRecipe | undefined) => ROLE_RECIPES[v ?? 'none'];
  return { inputs: pick(r.inputs), weights: pick(r.weights), gradients: pick(r.gradients) };
}

function invalid(message: string): never {
  throw new TensorplanError('INVALID_ARGUMENT', message);
}

/** The graph being written (names are unique by construction; parseGraph checks the result). */
class Doc {
  readonly tensors: GraphTensor[] = [];
  readonly ops: GraphOp[] = [];
  readonly aliases: GraphAlias[] = [];
  readonly inputs: string[] = [];
  readonly outputs: string[] = [];
  readonly persistents: string[] = [];
  constructor(readonly name: string) {}
  tensor(name: string, size: TensorSize): void {
    this.tensors.push({ name, ...size });
  }
  op(name: string, op: string, inputs: string[], outputs: string[], extra: Partial<GraphOp>): void {
    this.ops.push({ name, op, inputs, outputs, ...extra });
  }
  view(tensor: string, base: string, offset: number): void {
    this.aliases.push({ kind: 'view', tensor, base, offset });
  }
  inPlace(output: string, input: string): void {
    this.aliases.push({ kind: 'inPlace', output, input });
  }
  group(members: string[]): void {
    this.aliases.push({ kind: 'group', members });
  }
  input(name: string): void {
    this.inputs.push(name);
  }
  output(name: string): void {
    this.outputs.push(name);
  }
  persistent(name: string): void {
    this.persistents.push(name);
  }
  build(): GraphDocument {
    return parseGraph({
      format: 'tensorplan.graph', version: 1, name: this.name, tensors: this.tensors, ops: this.ops, aliases: this.aliases,
      inputs: this.inputs, outputs: this.outputs, persistent: this.persistents,
    }, this.name);
  }
}

class Gen {
  readonly b: Doc;
  readonly tensors: Record<string, LayerTensorInfo> = {};
  readonly ops: Record<string, LayerOpPhase> = {};
  private readonly reads = new Map<string, LayerOpPhase[]>();
  /** The last op that really reads each tensor (holdUntil does not count). */
  private readonly lastReader = new Map<string, string>();
  private readonly producers = new Map<string, LayerOpPhase>();
  private readonly params = new Set<string>();
  readonly wgrads = new Map<string, string[]>();
  readonly roles: Roles;
  readonly dtype: DType;
  readonly wgradDtype: DType;
  readonly tp: number;
  readonly sp: boolean;
  readonly arch: 'hopper' | 'blackwell';
  readonly master: boolean;
  readonly states: number;
  readonly tokens: number;
  readonly d: number;
  phase: LayerOpPhase = 'forward';
  after: string[] = [];
  layer = 'model';
  prefix = '';
  private qCache = new Map<string, ReturnType<typeof tensorSpecBuffers>>();

  constructor(readonly core: CoreBinding, readonly spec: LayerSpec) {
    this.b = new Doc(spec.name ?? 'layer spec');
    this.roles = resolveRecipe(spec);
    this.dtype = spec.model.dtype ?? 'bf16';
    this.wgradDtype = spec.weightGradientDtype ?? this.dtype;
    this.tp = spec.parallel?.tp ?? 1;
    this.sp = (spec.parallel?.sequenceParallel ?? false) && this.tp > 1;
    this.arch = layerArch(spec);
    this.master = spec.optimizer?.masterWeights ?? this.dtype !== 'fp32';
    this.states = spec.optimizer?.statesPerParameter ?? 2;
    this.tokens = spec.model.sequence * spec.model.microBatch;
    this.d = spec.model.headDim ?? spec.model.hidden / spec.model.heads;
  }

  /** Adds a tensor named `prefix + name` (or `name` as is when `absolute`). */
  t(name: string, size: TensorSize, module: string, role: LayerTensorRole, absolute = false, extra: Partial<LayerTensorInfo> = {}): string {
    const full = absolute ? name : this.prefix + name;
    this.b.tensor(full, size);
    this.tensors[full] = { layer: this.layer, module, role, saved: false, because: BECAUSE_BY_ROLE[role], ...extra };
    return full;
  }

  /** Sets the TE behaviour of tensors already added. */
  tag(names: readonly string[], because: TeBehaviourId): void {
    for (const name of names) this.tensors[name].because = because;
  }

  hp(name: string, rows: number, cols: number, module: string, role: LayerTensorRole, dtype: DType = this.dtype): string {
    return this.t(name, { shape: [rows, cols], dtype }, module, role);
  }

  op(name: string, type: string, inputs: (string | undefined)[], outputs: string[], workspaceBytes = 0,
    attributes?: Record<string, OpAttributeValue>): string {
    const full = this.prefix + name;
    const ins = [...new Set(inputs.filter((x): x is string => x !== undefined))];
    outputs = [...new Set(outputs)];
    this.b.op(full, type, ins, outputs, {
      ...(workspaceBytes > 0 ? { workspaceBytes } : {}),
      ...(attributes ? { attributes } : {}),
      ...(this.after.length > 0 ? { after: [...this.after] } : {}),
    });
    this.ops[full] = this.phase;
    for (const t of ins) {
      const list = this.reads.get(t) ?? [];
      list.push(this.phase);
      this.reads.set(t, list);
      this.lastReader.set(t, full);
    }
    for (const t of outputs) this.producers.set(t, this.phase);
    return full;
  }

  /**
   * Keeps tensors alive until an op that already exists (its short name under
   * the current prefix) by adding them to its inputs: TE's autograd ctx holds
   * its saved tensors until the node's backward returns, whether or not the
   * last op of that backward reads them. `because` is what the summary names
   * when a tensor is alive only for that reason (rule 3 unless told).
   */
  holdUntil(opName: string, tensors: string[], because: TeBehaviourId = 'heldUntilNodeEnd'): void {
    if (tensors.length === 0) return;
    const full = this.prefix + opName;
    const op = this.b.ops.find((o) => o.name === full);
    if (!op) invalid(`${full}: no such op to hold saved tensors until`);
    for (const t of tensors) {
      if (op.inputs.includes(t)) continue;
      op.inputs.push(t);
      this.tensors[t].held = { lastReader: this.lastReader.get(t) ?? null, until: full, because };
      const list = this.reads.get(t) ?? [];
      list.push(this.ops[full]);
      this.reads.set(t, list);
    }
  }

  view(name: string, base: string, module: string, role: LayerTensorRole, size: TensorSize, offset = 0): string {
    const full = this.t(name, size, module, role);
    this.b.view(full, base, offset);
    return full;
  }

  /** A weight (and its master copy and optimizer states), created once per layer and module. */
  param(module: string, shape: number[], suffix = 'weight'): string {
    const name = `${this.layer}.${module}.${suffix}`;
    if (this.params.has(name)) return name;
    this.params.add(name);
    this.t(name, { shape, dtype: this.dtype }, module, 'weight', true);
    this.b.persistent(name);
    this.optimizerState(name, module, shape);
    return name;
  }

  /** fp32 master weight and optimizer states of a parameter. */
  optimizerState(name: string, module: string, shape: number[]): void {
    if (this.master) {
      this.t(`${name}.master`, { shape, dtype: 'fp32' }, module, 'masterWeight', true);
      this.b.persistent(`${name}.master`);
    }
    for (let i = 0; i < this.states; i++) {
      const state = `${name}.state${i}`;
      this.t(state, { shape, dtype: 'fp32' }, module, 'optimizerState', true);
      this.b.persistent(state);
    }
  }

  private readonly primary = new Map<string, WeightOperands>();

  /**
   * The operands a GEMM reads for a weight: the weight itself (no weight
   * recipe), a quantized copy cast every step (`perStep`, default), a
   * quantized workspace cached across micro-batches (`cached`), or the
   * persistent quantized weight itself (`primary`, TE fp8_model_params).
   */
  gemmWeight(module: string, shape: number[]): WeightOperands {
    const recipe = this.roles.weights;
    if (recipe !== 'none' && this.spec.quantizedWeights === 'cached') return this.cachedWeight(module, shape, recipe);
    if (recipe !== 'none' && this.spec.quantizedWeights === 'primary') {
      const base = `${this.layer}.${module}.weight`;
      const cached = this.primary.get(base);
      if (cached) return cached;
      // Quantized whatever is_quantizable says (rule 6 of issue #15): TE's modules quantize unconditionally.
      const q = this.persistentQuantized(base, module, shape, recipe, 'weight');
      this.optimizerState(base, module, shape);
      const operands = { fprop: use(q, 'rowwise'), dgrad: use(q, 'columnwise'), held: [] };
      this.primary.set(base, operands);
      return operands;
    }
    const weight = this.param(module, shape);
    const wq = this.quantized(`${module}.weight_q`, shape, recipe, ['rowwise', 'columnwise'], module, 'quantizedWeight');
    if (!wq) return { fprop: [weight], dgrad: [weight], held: [] };
    this.op(`${module}.weight_cast`, 'quantize', [weight], all(wq));
    // TE saves the per-step copy whole, both usages, until the module's backward
    // returns (TransformerEngine d0067d0da6, module/linear.py _linear_forward_impl:
    // set_usage(rowwise=True, columnwise=is_grad_enabled), update_usage(rowwise_usage=True)
    // drops nothing, wt_save = weightmat goes to prepare_for_saving). The caller holds
    // `held` until the op that ends the module's autograd node.
    return { fprop: use(wq, 'rowwise'), dgrad: use(wq, 'columnwise'), held: all(wq) };
  }

  /**
   * A persistent weight tensor of `recipe`, both usages, one persistent tensor
   * per inner buffer named `<base>.<buffer>`: the FP8 primary weight (role
   * `weight`) and the cached workspace (role `quantizedWeight`) are built alike.
   */
  private persistentQuantized(base: string, module: string, shape: number[], recipe: Recipe, role: 'weight' | 'quantizedWeight'): QT {
    let spec;
    try {
      spec = this.spec2(this.format(shape, recipe, ['rowwise', 'columnwise'], false));
    } catch (error) {
      invalid(`${base}: ${(error as Error).message}`);
    }
    const buffers = spec.buffers.map((buf) => {
      const name = this.t(`${base}.${buf.name.replace(/^_/, '')}`, { bytes: buf.bytes }, module, role, true,
        { buffer: buf.name, recipe, because: role === 'weight' ? 'primaryQuantizedWeight' : 'cachedWeightWorkspace' });
      this.b.persistent(name);
      return { tensor: name, name: buf.name, usages: buf.usages };
    });
    return { buffers, shape, quantizable: spec.quantizable };
  }

  /**
   * The weight workspace TE caches when `is_first_microbatch` is given
   * (TransformerEngine d0067d0da6, transformer_engine/pytorch/module/linear.py
   * `Linear.forward`: `cache_name = "weight"` unless is_first_microbatch is None,
   * the workspace kept in `self._fp8_workspaces`; layernorm_linear.py,
   * layernorm_mlp.py (`cache_name_fc1`, `cache_name_fc2`) and grouped_linear.py
   * do the same). module/base.py `quantize_weight` with `cache=True` makes it a
   * plain tensor that outlives the step (`quantizer.internal = False`), with the
   * usages the quantizer has in training: rowwise and columnwise
   * (linear.py `_linear_forward_impl`: columnwise = is_grad_enabled). It is
   * persistent; the first micro-batch refreshes it in place (the cast op here),
   * later ones reuse it, and backward reads it without a per-step copy.
   */
  private cachedWeight(module: string, shape: number[], recipe: Recipe): WeightOperands {
    const base = `${this.layer}.${module}.weight_cache`;
    const cached = this.primary.get(base);
    if (cached) return cached;
    const weight = this.param(module, shape);
    const q = this.persistentQuantized(base, module, shape, recipe, 'quantizedWeight');
    this.op(`${module}.weight_cache_update`, 'quantize', [weight], all(q));
    const operands = { fprop: use(q, 'rowwise'), dgrad: use(q, 'columnwise'), held: [] };
    this.primary.set(base, operands);
    return operands;
  }

  /** A weight gradient, a graph output; `unit` groups those that are bulk-allocated together. */
  wgrad(module: string, shape: number[], unit: string, gemm = true, suffix = 'wgrad'): string {
    const mode = this.spec.weightGradients ?? 'separate';
    const grouped = gemm && mode !== 'separate';
    const alignment = mode === 'bulk' ? 256 : this.elementBytes(this.wgradDtype);
    const name = this.t(`${this.layer}.${module}.${suffix}`, { shape, dtype: this.wgradDtype, ...(grouped ? { alignment } : {}) },
      module, 'weightGradient', true);
    this.b.output(name);
    if (grouped) {
      const key = `${this.layer}.${unit}`;
      const list = this.wgrads.get(key) ?? [];
      list.push(name);
      this.wgrads.set(key, list);
    }
    return name;
  }

  spec2(format: TensorFormat) {
    const key = JSON.stringify(format);
    let s = this.qCache.get(key);
    if (!s) {
      s = tensorSpecBuffers(this.core, format);
      this.qCache.set(key, s);
    }
    return s;
  }

  /** Bytes per element of a dtype, from the core's dtype table. */
  elementBytes(dtype: DType): number {
    return dtypeFacts(this.core, dtype).elementBytes;
  }

  /** The FP8 element a recipe quantizes forward tensors or gradients to (the core knows TE's formats). */
  fp8Element(recipe: Recipe, gradient: boolean): 'fp8_e4m3' | 'fp8_e5m2' {
    const facts = recipeFacts(this.core, recipe);
    return gradient ? facts.gradientFp8 : facts.forwardFp8;
  }

  format(shape: number[], recipe: Recipe, usages: Usage[], gradient: boolean): TensorFormat {
    const fp8Dtype = this.fp8Element(recipe, gradient);
    return {
      shape, dtype: this.dtype === 'fp32' ? 'fp32' : this.dtype, recipe, arch: this.arch,
      rowwise: usages.includes('rowwise'), columnwise: usages.includes('columnwise'), options: { fp8Dtype },
    };
  }

  /**
   * The inner buffers of a quantized tensor as graph tensors (each its own
   * allocation, as TE's `create_tensor` makes them); undefined when the recipe
   * is none. TE's modules quantize whatever `is_quantizable` says: that check
   * only picks a high-precision all-gather (TransformerEngine d0067d0da6,
   * transformer_engine/pytorch/distributed.py `_all_gather_fp8_blockwise`,
   * `_all_gather_nvfp4`), see {@link gatherQuantized}.
   */
  quantized(name: string, shape: number[], recipe: Recipe, usages: Usage[], module: string, role: LayerTensorRole, gradient = false): QT | undefined {
    if (recipe === 'none') return undefined;
    let spec;
    try {
      spec = this.spec2(this.format(shape, recipe, usages, gradient));
    } catch (error) {
      invalid(`${this.prefix}${name}: ${(error as Error).message}`);
    }
    const buffers = spec.buffers.map((buf) => ({
      tensor: this.t(`${name}.${buf.name.replace(/^_/, '')}`, { bytes: buf.bytes }, module, role, false, { buffer: buf.name, recipe }),
      name: buf.name, usages: buf.usages,
    }));
    return { buffers, shape, quantizable: spec.quantizable };
  }

  markSaved(): void {
    for (const [tensor, phases] of this.reads) {
      const made = this.producers.get(tensor) ?? 'forward';
      if ((made === 'forward' || made === 'recompute') && phases.includes('backward') && this.tensors[tensor]) {
        if (this.tensors[tensor].role !== 'weight' && this.tensors[tensor].role !== 'input') this.tensors[tensor].saved = true;
      }
    }
    // A saved view keeps its base's storage for backward: the base is saved too.
    const parent = new Map<string, string>();
    for (const alias of this.b.aliases) if (alias.kind === 'view') parent.set(alias.tensor, alias.base);
    for (const [view, base] of parent) {
      if (!this.tensors[view]?.saved) continue;
      let at: string | undefined = base;
      while (at !== undefined) {
        const info = this.tensors[at];
        if (info && info.role !== 'weight' && info.role !== 'input') info.saved = true;
        at = parent.get(at);
      }
    }
    // A forward output some backward reads is saved by autograd, whatever else reads it.
    for (const info of Object.values(this.tensors)) if (info.saved && info.because === 'forwardOutput') info.because = 'savedForBackward';
  }
}

/** A GEMM's weight operands, and the per-step quantized copy to hold until the module's backward ends. */
interface WeightOperands { fprop: string[]; dgrad: string[]; held: string[] }

function use(q: QT, usage: Usage): string[] {
  return q.buffers.filter((b) => b.usages.includes(usage)).map((b) => b.tensor);
}
function all(q: QT): string[] {
  return q.buffers.map((b) => b.tensor);
}

// ---------------------------------------------------------------------------
// Modules. Each forward returns its output and a backward closure that takes
// the gradient of the output and returns the gradient of the input.

type Bwd = (dy: Act) => Act;

interface LinearArgs {
  module: string;
  x: Act;
  /** Local output features. */
  out: number;
  parallel: 'column' | 'row' | 'none';
  bias?: boolean;
  /** Weight-gradient allocation unit (bulk/packed grouping). */
  unit: string;
  /**
   * The saved quantized input keeps every usage it was made with, until wgrad
   * (TE LayerNormMLP has no update_usage(rowwise_usage=False)); the columnwise
   * usage is built in backward when the input has none (FP8 per-tensor act_out).
   */
  keepInput?: boolean;
  /**
   * The Linear is its own autograd node (TE Linear): what it holds dies after
   * its wgrad. Otherwise (inside LayerNormLinear, LayerNormMLP) the caller
   * holds `held` until the op that ends its node.
   */
  ownNode?: boolean;
  /**
   * The Linear of a TE LayerNormLinear (module/layernorm_linear.py
   * `_LayerNormLinear.forward`): with SP its saved `ln_out` drops the rowwise
   * usage only for MXFP8 and block FP8 (`update_usage(rowwise_usage=False)`),
   * so NVFP4 keeps both; backward frees it after wgrad (`clear_tensor_data(ln_out)`).
   */
  layerNormLinear?: boolean;
  /**
   * TE checks this GEMM's input with assert_dim_for_fp8_exec (default true).
   * LayerNormMLP checks its input, fc1_weight and fc2_weight, not FC2's input.
   */
  checkInput?: boolean;
}

/** TE Linear (FORMATS.md §6): input and weight casts, all-gather/reduce-scatter for SP, saved usages. */
/**
 * All-gathers the `usage` buffers of a rank-local quantized input into a new
 * quantized `[rows, cols]` tensor and returns its `usage` buffers. When TE's
 * `is_quantizable` rejects the local shape, TE dequantizes it, gathers in high
 * precision and quantizes the result (TransformerEngine d0067d0da6,
 * transformer_engine/pytorch/distributed.py `_all_gather_fp8_blockwise`,
 * `_all_gather_nvfp4`, `_all_gather_mxfp8`).
 */
function gatherQuantized(g: Gen, name: string, opName: string, local: QT, usage: Usage, rows: number, cols: number, module: string): QT {
  const recipe = g.roles.inputs;
  const gq = g.quantized(name, [rows, cols], recipe, [usage], module, 'communication');
  if (!gq) invalid(`${g.prefix}${name}: no quantized buffers for recipe ${recipe}`);
  if (local.quantizable) {
    g.op(opName, 'all_gather', use(local, usage), all(gq));
  } else {
    const localHp = g.hp(`${name}_local_hp`, local.shape[0], cols, module, 'communication');
    g.op(`${opName}_dequantize`, 'dequantize', use(local, usage), [localHp]);
    const fullHp = g.hp(`${name}_hp`, rows, cols, module, 'communication');
    g.tag([localHp, fullHp], 'highPrecisionGather');
    g.op(opName, 'all_gather', [localHp], [fullHp]);
    g.op(`${opName}_cast`, 'quantize', [fullHp], all(gq));
  }
  return gq;
}

/** TE's per-tensor FP8 quantizers (`Float8Quantizer`, `Float8CurrentScalingQuantizer`). */
function isPerTensorFp8(recipe: Recipe): boolean {
  return recipe === 'fp8_delayed' || recipe === 'fp8_current';
}

/**
 * The columnwise buffers of a quantized `[rows, cols]` tensor that was made
 * without them, as TE's `update_usage(columnwise_usage=True)` builds them in
 * backward: buffers the columnwise usage shares with the rowwise one are
 * reused, the rest (FP8 per-tensor `_transpose` on Hopper) come from a
 * transpose op named `opName`.
 */
function columnwiseOf(g: Gen, name: string, opName: string, q: QT, rows: number, cols: number, module: string): string[] {
  const byName = new Map(q.buffers.map((buf) => [buf.name, buf.tensor]));
  const spec = g.spec2(g.format([rows, cols], g.roles.inputs, ['columnwise'], false));
  const fresh: string[] = [];
  const buffers = spec.buffers.map((buf) => {
    const have = byName.get(buf.name);
    if (have) return have;
    const t = g.t(`${name}.${buf.name.replace(/^_/, '')}`, { bytes: buf.bytes }, module, 'quantizedActivation', false,
      { buffer: buf.name, recipe: g.roles.inputs });
    fresh.push(t);
    return t;
  });
  if (fresh.length > 0) g.op(opName, 'transpose', all(q), fresh);
  return buffers;
}

/**
 * TE's `assert_dim_for_fp8_exec` (TransformerEngine d0067d0da6,
 * transformer_engine/pytorch/utils.py): with any quantized recipe, Linear,
 * LayerNormLinear and LayerNormMLP refuse a GEMM input or weight whose leading
 * dims multiply to a number not divisible by 8, or whose last dim is not
 * divisible by 16 (module/linear.py `_linear_forward_impl`,
 * module/layernorm_linear.py `_LayerNormLinear.forward`,
 * module/layernorm_mlp.py `_LayerNormMLP._forward`). GroupedLinear does not check.
 */
function assertDimForFp8Exec(g: Gen, tensor: string, shape: number[]): void {
  if (g.roles.inputs === 'none' && g.roles.weights === 'none' && g.roles.gradients === 'none') return;
  const leading = shape.slice(0, -1).reduce((p, d) => p * d, 1);
  const last = shape[shape.length - 1];
  if (leading % 8 === 0 && last % 16 === 0) return;
  invalid(`${tensor} [${shape.join(', ')}]: TE refuses it for a quantized recipe: the product of all dims but the last `
    + `(${leading}) must be divisible by 8 and the last dim (${last}) by 16 `
    + '(TransformerEngine d0067d0da6, transformer_engine/pytorch/utils.py assert_dim_for_fp8_exec)');
}

function linear(g: Gen, a: LinearArgs): { y: Act; bwd: Bwd; held: string[] } {
  const { module, x, out } = a;
  const inF = x.cols;
  const m = `${module}`;
  const bias = a.bias ? g.param(`${module}.bias`, [out]) : undefined;
  if (a.checkInput ?? true) assertDimForFp8Exec(g, `${g.prefix}${m}.input`, [x.rows, inF]);
  assertDimForFp8Exec(g, `${g.layer}.${module}.weight`, [out, inF]);
  const gatherInput = g.sp && a.parallel === 'column';
  const rowsFull = gatherInput ? x.rows * g.tp : x.rows;
  // FP8 per-tensor quantizers support only rowwise all-gather
  // (TransformerEngine d0067d0da6, tensor/float8_tensor.py
  // supports_only_rowwise_all_gather). With SP, Linear, LayerNormLinear and
  // LayerNormMLP quantize the local input rowwise only (module/linear.py
  // _linear_forward_impl, layernorm_linear.py _LayerNormLinear.forward,
  // layernorm_mlp.py _LayerNormMLP._forward: set_usage(columnwise=False)) and
  // save it rowwise; backward gathers it rowwise again and builds the
  // columnwise usage on the gathered copy (module/_common.py
  // set_quantizer_usage_for_wgrad_all_gather, then
  // update_usage(columnwise_usage=True)).
  const rowwiseGather = gatherInput && isPerTensorFp8(g.roles.inputs);

  // Input: quantized row+col (rowwise for fprop, columnwise saved for wgrad).
  let fpropIn: string[];
  let savedIn: string[];
  // Buffers of the saved input that wgrad does not read but the module keeps (keepInput).
  let keptIn: string[] = [];
  let savedQ: QT | undefined;
  let xq = x.q;
  if (!xq && g.roles.inputs !== 'none') {
    xq = g.quantized(`${m}.input`, [x.rows, inF], g.roles.inputs, rowwiseGather ? ['rowwise'] : ['rowwise', 'columnwise'], module, 'quantizedActivation');
    if (xq) g.op(`${m}.input_cast`, 'quantize', [x.name], all(xq));
  }
  if (xq) {
    savedQ = xq;
    savedIn = use(xq, rowwiseGather ? 'rowwise' : 'columnwise');
    const keepAll = a.keepInput || (a.layerNormLinear && gatherInput && g.roles.inputs === 'nvfp4');
    if (keepAll) keptIn = all(xq).filter((t) => !savedIn.includes(t));
    if (gatherInput) {
      fpropIn = use(gatherQuantized(g, `${m}.input_gathered`, `${m}.input_all_gather`, xq, 'rowwise', rowsFull, inF, module), 'rowwise');
    } else {
      fpropIn = use(xq, 'rowwise');
    }
  } else {
    if (!x.name) invalid(`${m}: input has no high-precision tensor`);
    // The saved input is the input object itself: a view, never a copy.
    const saved = g.view(`${m}.saved_input`, x.name, module, 'activation', { shape: [x.rows, inF], dtype: g.dtype });
    savedIn = [saved];
    if (gatherInput) {
      const full = g.hp(`${m}.input_gathered`, rowsFull, inF, module, 'communication');
      g.op(`${m}.input_all_gather`, 'all_gather', [x.name], [full]);
      fpropIn = [full];
    } else {
      fpropIn = [x.name];
    }
  }

  // Weight: rowwise for fprop, columnwise for dgrad.
  const { fprop: fpropW, dgrad: dgradW, held: heldW } = g.gemmWeight(module, [out, inF]);
  // What the caller holds until its autograd node ends; with SP the backward
  // below adds the rank-local saved input where TE keeps it in ctx that long.
  const held = [...heldW];
  // The rank-local quantized input TE saves (inputmat / ln_out), every usage it keeps.
  const savedLocal = savedQ ? [...savedIn, ...keptIn] : [];
  // Provenance (#15): LayerNormMLP keeps its GEMM inputs whole (rule 2); others keep what wgrad reads.
  if (a.keepInput && savedQ) g.tag(all(savedQ), module === 'fc1' ? 'lnOutBothUsages' : 'actOutBothUsages');
  else g.tag(savedLocal.length > 0 ? savedLocal : savedIn, 'savedLinearInput');

  let y = g.hp(`${m}.out`, rowsFull, out, module, 'activation');
  // High precision without bias is op set v1's matmul (y = x · Wᵀ); the rest stays a TE GEMM.
  const hpWeight = fpropW.length === 1 && fpropW[0] === `${g.layer}.${module}.weight`;
  if (!bias && !xq && hpWeight) g.op(`${m}.fprop`, 'matmul', [...fpropIn, ...fpropW], [y], 0, { transposeB: true });
  else g.op(`${m}.fprop`, 'gemm', [...fpropIn, ...fpropW, bias], [y]);
  let yRows = rowsFull;
  if (a.parallel === 'row' && g.tp > 1) {
    if (g.sp) {
      yRows = rowsFull / g.tp;
      const rs = g.hp(`${m}.out_scattered`, yRows, out, module, 'activation');
      g.op(`${m}.reduce_scatter`, 'reduce_scatter', [y], [rs]);
      y = rs;
    } else {
      const ar = g.hp(`${m}.out_reduced`, rowsFull, out, module, 'activation');
      g.op(`${m}.all_reduce`, 'all_reduce', [y], [ar]);
      g.b.inPlace(ar, y);
      y = ar;
    }
  }

  const bwd: Bwd = (dy) => {
    let dyFull: Act = dy;
    if (a.parallel === 'row' && g.sp) {
      if (!dy.name) invalid(`${m}: gradient has no high-precision tensor to gather`);
      const full = g.hp(`${m}.grad_out_gathered`, dy.rows * g.tp, out, module, 'communication');
      g.op(`${m}.grad_all_gather`, 'all_gather', [dy.name], [full]);
      dyFull = { name: full, rows: dy.rows * g.tp, cols: out };
    }
    let dq = dyFull.q;
    if (!dq && g.roles.gradients !== 'none') {
      dq = g.quantized(`${m}.grad_out`, [dyFull.rows, out], g.roles.gradients, ['rowwise', 'columnwise'], module, 'quantizedGradient', true);
      if (dq) g.op(`${m}.grad_cast`, 'quantize', [dyFull.name], all(dq));
    }
    const dgradIn = dq ? use(dq, 'rowwise') : [dyFull.name!];
    const wgradIn = dq ? use(dq, 'columnwise') : [dyFull.name!];
    let dx = g.hp(`${m}.grad_in`, rowsFull, inF, module, 'gradient');
    if (!dq && hpWeight) g.op(`${m}.dgrad`, 'matmul', [...dgradIn, ...dgradW], [dx]);
    else g.op(`${m}.dgrad`, 'gemm', [...dgradIn, ...dgradW], [dx]);
    // A saved input without columnwise usage gets it now (TE layernorm_mlp.py
    // _LayerNormMLP.backward: act_out.update_usage(columnwise_usage=True)): a new
    // transpose on Hopper, nothing new where one buffer serves both usages.
    if (savedQ && savedIn.length === 0) {
      if (gatherInput) invalid(`${m}: a gathered input needs its columnwise usage from forward`);
      savedIn = columnwiseOf(g, `${m}.input`, `${m}.input_columnwise`, savedQ, x.rows, inF, module);
      const made = all(savedQ);
      g.tag(savedIn.filter((t) => !made.includes(t)), 'actOutColumnwiseInBackward');
      keptIn = keptIn.filter((t) => !savedIn.includes(t));
    }
    // wgrad needs the full input: with SP it is gathered again in backward.
    let wIn = savedIn;
    if (gatherInput) {
      if (savedQ && rowwiseGather) {
        const total = gatherQuantized(g, `${m}.input_regathered`, `${m}.input_regather`, savedQ, 'rowwise', rowsFull, inF, module);
        wIn = columnwiseOf(g, `${m}.input_regathered`, `${m}.input_regathered_columnwise`, total, rowsFull, inF, module);
        const gathered = all(total);
        g.tag(wIn.filter((t) => !gathered.includes(t)), 'spAllGather');
      } else if (savedQ) {
        wIn = use(gatherQuantized(g, `${m}.input_regathered`, `${m}.input_regather`, savedQ, 'columnwise', rowsFull, inF, module), 'columnwise');
      } else {
        const full = g.hp(`${m}.input_regathered`, rowsFull, inF, module, 'communication');
        g.op(`${m}.input_regather`, 'all_gather', savedIn, [full]);
        wIn = [full];
      }
    }
    const wg = g.wgrad(module, [out, inF], a.unit);
    const outs = [wg];
    if (bias) outs.push(g.wgrad(`${module}.bias`, [out], a.unit, false));
    if (!bias && !dq && !savedQ) g.op(`${m}.wgrad`, 'matmul', [...wgradIn, ...wIn], outs, 0, { transposeA: true });
    else g.op(`${m}.wgrad`, 'gemm', [...wgradIn, ...wIn], outs);
    // The kept input is freed after wgrad (TE clear_tensor_data(ln_out_total) / (act_out)).
    if (!gatherInput) g.holdUntil(`${m}.wgrad`, keptIn);
    // With SP the rank-local saved input outlives the re-gather: LayerNormMLP
    // keeps ln_out in ctx until its node ends; Linear's node ends with wgrad and
    // LayerNormLinear frees ln_out after wgrad (clear_tensor_data(ln_out)).
    else if (a.keepInput) held.push(...savedLocal);
    else g.holdUntil(`${m}.wgrad`, savedLocal);
    // TE Linear's node ends with its wgrad (module/linear.py _linear_backward).
    if (a.ownNode ?? true) g.holdUntil(`${m}.wgrad`, held);
    let dxRows = rowsFull;
    if (a.parallel === 'column' && g.tp > 1) {
      if (g.sp) {
        dxRows = rowsFull / g.tp;
        const rs = g.hp(`${m}.grad_in_scattered`, dxRows, inF, module, 'gradient');
        g.op(`${m}.grad_reduce_scatter`, 'reduce_scatter', [dx], [rs]);
        dx = rs;
      } else {
        const ar = g.hp(`${m}.grad_in_reduced`, rowsFull, inF, module, 'gradient');
        g.op(`${m}.grad_all_reduce`, 'all_reduce', [dx], [ar]);
        g.b.inPlace(ar, dx);
        dx = ar;
      }
    }
    return { name: dx, rows: dxRows, cols: inF };
  };
  return { y: { name: y, rows: yRows, cols: out }, bwd, held };
}

/**
 * The usages a norm's quantized output is made with when it feeds a Linear of
 * the given parallel mode: rowwise only for FP8 per-tensor under SP (see
 * linear()'s rowwiseGather), else both.
 */
function normUsages(g: Gen, parallel: LinearArgs['parallel']): Usage[] {
  return g.sp && parallel === 'column' && isPerTensorFp8(g.roles.inputs) ? ['rowwise'] : ['rowwise', 'columnwise'];
}

/** LayerNorm / RMSNorm; with a quantized recipe the kernel writes the quantized output directly (fused cast). */
function norm(g: Gen, module: string, x: Act, kind: Normalization, quantize: boolean,
  usages: Usage[] = ['rowwise', 'columnwise']): { y: Act; bwd: Bwd } {
  if (!x.name) invalid(`${module}: norm input must be high precision`);
  const h = x.cols;
  const gamma = g.param(module, [h]);
  // TE's LayerNorm has a bias (beta); RMSNorm has none.
  const beta = kind === 'layernorm' ? [g.param(module, [h], 'bias')] : [];
  const saved = g.view(`${module}.saved_input`, x.name, module, 'activation', { shape: [x.rows, h], dtype: g.dtype });
  const stats: string[] = [];
  if (kind === 'layernorm') stats.push(g.t(`${module}.mu`, { shape: [x.rows], dtype: 'fp32' }, module, 'activation'));
  stats.push(g.t(`${module}.rsigma`, { shape: [x.rows], dtype: 'fp32' }, module, 'activation'));
  g.tag([saved, ...stats], 'savedNormInput');
  let y: Act;
  const q = quantize ? g.quantized(`${module}.out`, [x.rows, h], g.roles.inputs, usages, module, 'quantizedActivation') : undefined;
  if (q && normHasTemporary(g.roles.inputs, g.spec.cudnnNorms ?? false, x.rows, h)) {
    // TE computes the norm into a high-precision temporary, then quantizes it
    // (issue #15 rule 4, see normHasTemporary): it lives across this op pair only.
    const tmp = g.hp(`${module}.out_hp`, x.rows, h, module, 'activation');
    g.tag([tmp], 'normQuantizeTemporary');
    g.op(`${module}.fwd`, kind, [x.name, gamma, ...beta], [tmp, ...stats]);
    g.op(`${module}.out_quantize`, 'quantize', [tmp], all(q));
    y = { q, rows: x.rows, cols: h };
  } else if (q) {
    g.op(`${module}.fwd`, kind, [x.name, gamma, ...beta], [...all(q), ...stats]);
    y = { q, rows: x.rows, cols: h };
  } else {
    const out = g.hp(`${module}.out`, x.rows, h, module, 'activation');
    g.op(`${module}.fwd`, kind, [x.name, gamma, ...beta], [out, ...stats]);
    y = { name: out, rows: x.rows, cols: h };
  }
  const bwd: Bwd = (dy) => {
    const dx = g.hp(`${module}.grad_in`, x.rows, h, module, 'gradient');
    const dgamma = g.wgrad(module, [h], '', false);
    const dbeta = beta.length > 0 ? [g.wgrad(module, [h], '', false, 'bias_wgrad')] : [];
    // Op set v1 order: dy, x, gamma, [mean,] rstd -> dx, dgamma[, dbeta].
    g.op(`${module}.bwd`, `${kind}_backward`, [dy.name, saved, gamma, ...stats], [dx, dgamma, ...dbeta]);
    return { name: dx, rows: x.rows, cols: h };
  };
  return { y, bwd };
}

/** MLP activation; with quantized inputs the kernel writes FC2's quantized input (fused act+cast). */
function activation(g: Gen, module: string, x: Act, kind: Activation, fusedCast: boolean,
  usages: Usage[] = ['rowwise', 'columnwise']): { y: Act; bwd: Bwd } {
  if (!x.name) invalid(`${module}: activation input must be high precision`);
  const gated = kind === 'swiglu' || kind === 'geglu';
  const outCols = gated ? x.cols / 2 : x.cols;
  const saved = g.view(`${module}.saved_input`, x.name, module, 'activation', { shape: [x.rows, x.cols], dtype: g.dtype });
  g.tag([saved], 'savedActivationInput');
  const q = fusedCast ? g.quantized(`${module}.out`, [x.rows, outCols], g.roles.inputs, usages, module, 'quantizedActivation') : undefined;
  let y: Act;
  if (q && activationHasTemporary(g.roles.inputs)) {
    // High-precision activation, then a separate quantize (issue #15 rule 4, see activationHasTemporary).
    const tmp = g.hp(`${module}.out_hp`, x.rows, outCols, module, 'activation');
    g.tag([tmp], 'activationQuantizeTemporary');
    g.op(`${module}.fwd`, kind, [x.name], [tmp]);
    g.op(`${module}.out_quantize`, 'quantize', [tmp], all(q));
    y = { q, rows: x.rows, cols: outCols };
  } else if (q) {
    g.op(`${module}.fwd`, kind, [x.name], all(q));
    y = { q, rows: x.rows, cols: outCols };
  } else {
    const out = g.hp(`${module}.out`, x.rows, outCols, module, 'activation');
    g.op(`${module}.fwd`, kind, [x.name], [out]);
    y = { name: out, rows: x.rows, cols: outCols };
  }
  const backwardOp = kind === 'gelu' || kind === 'relu' ? `${kind}_backward` : `d${kind}`;
  const bwd: Bwd = (dy) => {
    const dq = fusedCast ? g.quantized(`${module}.grad_in`, [x.rows, x.cols], g.roles.gradients, ['rowwise', 'columnwise'], module, 'quantizedGradient', true) : undefined;
    if (dq && dactHasTemporary(g.roles.gradients, kind)) {
      // dact [M, in] in high precision, then quantized for FC1's dgrad/wgrad
      // (issue #15 rule 4, see dactHasTemporary): it lives across this op pair only.
      const dact = g.hp(`${module}.dact`, x.rows, x.cols, module, 'gradient');
      g.tag([dact], 'dactTemporary');
      g.op(`${module}.bwd`, backwardOp, [dy.name, saved], [dact]);
      g.op(`${module}.grad_quantize`, 'quantize', [dact], all(dq));
      // fc1_out stays until after the quantize: TE clears it only then
      // (layernorm_mlp.py `_LayerNormMLP.backward`, clear_tensor_data(fc1_out, ...)).
      g.holdUntil(`${module}.grad_quantize`, [saved], 'fc1OutUntilDactQuantized');
      return { q: dq, rows: x.rows, cols: x.cols };
    }
    if (dq) {
      g.op(`${module}.bwd`, backwardOp, [dy.name, saved], all(dq));
      return { q: dq, rows: x.rows, cols: x.cols };
    }
    const dx = g.hp(`${module}.grad_in`, x.rows, x.cols, module, 'gradient');
    g.op(`${module}.bwd`, backwardOp, [dy.name, saved], [dx]);
    if (!gated && dy.name) g.b.inPlace(dx, dy.name);
    return { name: dx, rows: x.rows, cols: x.cols };
  };
  return { y, bwd };
}

/** Core attention on a QKV projection output [tokens, (heads + 2 kv) · d] of this rank. */
function coreAttention(g: Gen, module: string, qkv: Act, settings: AttentionSettings): { y: Act; bwd: Bwd } {
  const m = g.spec.model;
  const hl = m.heads / g.tp;
  const kvl = Math.max(1, (m.kvHeads ?? m.heads) / g.tp);
  const d = g.d;
  const T = qkv.rows;
  const b = m.microBatch;
  const s = T / b;
  const el = g.elementBytes(g.dtype);
  const qBytes = T * hl * d * el;
  const kvBytes = T * kvl * d * el;
  const q = g.view(`${module}.q`, qkv.name!, module, 'activation', { bytes: qBytes }, 0);
  const k = g.view(`${module}.k`, qkv.name!, module, 'activation', { bytes: kvBytes }, qBytes);
  const v = g.view(`${module}.v`, qkv.name!, module, 'activation', { bytes: kvBytes }, qBytes + kvBytes);
  const ws = settings.workspaceBytes ?? 0;
  const ctx = g.hp(`${module}.out`, T, hl * d, module, 'activation');
  if (settings.fused ?? true) {
    const lse = g.t(`${module}.softmax_stats`, { shape: [b, hl, s], dtype: 'fp32' }, module, 'activation');
    g.tag([q, k, v, ctx, lse], 'savedAttention');
    g.op(`${module}.fwd`, 'fused_attention', [q, k, v], [ctx, lse], ws);
    const bwd: Bwd = (dy) => {
      const dqkv = g.hp(`${module}.grad_in`, T, qkv.cols, module, 'gradient');
      g.op(`${module}.bwd`, 'fused_attention_bwd', [q, k, v, ctx, lse, dy.name], [dqkv], ws);
      return { name: dqkv, rows: T, cols: qkv.cols };
    };
    return { y: { name: ctx, rows: T, cols: hl * d }, bwd };
  }
  // Unfused (TE UnfusedDotProductAttention): GQA repeats K and V, QK^T, softmax, AV.
  let kk = k;
  let vv = v;
  if (kvl < hl) {
    kk = g.hp(`${module}.k_repeated`, T, hl * d, module, 'activation');
    vv = g.hp(`${module}.v_repeated`, T, hl * d, module, 'activation');
    g.op(`${module}.repeat_kv`, 'repeat_interleave', [k, v], [kk, vv]);
  }
  const scoreShape = { shape: [b, hl, s, s], dtype: g.dtype } as const;
  const scores = g.t(`${module}.scores`, { ...scoreShape, shape: [...scoreShape.shape] }, module, 'activation');
  const probs = g.t(`${module}.probs`, { ...scoreShape, shape: [...scoreShape.shape] }, module, 'activation');
  g.op(`${module}.qk`, 'bmm', [q, kk], [scores]);
  g.op(`${module}.softmax`, 'softmax', [scores], [probs]);
  g.op(`${module}.av`, 'bmm', [probs, vv], [ctx]);
  const bwd: Bwd = (dy) => {
    const dprobs = g.t(`${module}.grad_probs`, { ...scoreShape, shape: [...scoreShape.shape] }, module, 'gradient');
    const dscores = g.t(`${module}.grad_scores`, { ...scoreShape, shape: [...scoreShape.shape] }, module, 'gradient');
    const dvv = g.hp(`${module}.grad_v_full`, T, hl * d, module, 'gradient');
    const dq = g.hp(`${module}.grad_q`, T, hl * d, module, 'gradient');
    const dkk = g.hp(`${module}.grad_k_full`, T, hl * d, module, 'gradient');
    g.op(`${module}.grad_av_probs`, 'bmm', [dy.name, vv], [dprobs]);
    g.op(`${module}.grad_av_v`, 'bmm', [probs, dy.name], [dvv]);
    g.op(`${module}.softmax_bwd`, 'softmax_backward', [dprobs, probs], [dscores]);
    g.b.inPlace(dscores, dprobs);
    g.op(`${module}.grad_qk_q`, 'bmm', [dscores, kk], [dq]);
    g.op(`${module}.grad_qk_k`, 'bmm', [dscores, q], [dkk]);
    let dk = dkk;
    let dv = dvv;
    if (kvl < hl) {
      dk = g.hp(`${module}.grad_k`, T, kvl * d, module, 'gradient');
      dv = g.hp(`${module}.grad_v`, T, kvl * d, module, 'gradient');
      g.op(`${module}.reduce_kv`, 'sum_heads', [dkk, dvv], [dk, dv]);
    }
    // Autograd's backward of the QKV split concatenates into a new buffer.
    const dqkv = g.hp(`${module}.grad_in`, T, qkv.cols, module, 'gradient');
    g.op(`${module}.grad_concat`, 'cat', [dq, dk, dv], [dqkv]);
    return { name: dqkv, rows: T, cols: qkv.cols };
  };
  return { y: { name: ctx, rows: T, cols: hl * d }, bwd };
}

function residual(g: Gen, module: string, x: Act, branch: Act): { y: Act; bwd: (dy: Act, dBranchInput: Act) => Act } {
  const y = g.hp(`${module}.out`, x.rows, x.cols, module, 'activation');
  g.op(`${module}.fwd`, 'add', [x.name, branch.name], [y]);
  return {
    y: { name: y, rows: x.rows, cols: x.cols },
    bwd: (dy, dBranchInput) => {
      const dx = g.hp(`${module}.grad_in`, x.rows, x.cols, module, 'gradient');
      g.op(`${module}.bwd`, 'add', [dy.name, dBranchInput.name], [dx]);
      g.b.inPlace(dx, dBranchInput.name!);
      return { name: dx, rows: x.rows, cols: x.cols };
    },
  };
}

function attentionBlock(g: Gen, x: Act, normalization: Normalization, settings: AttentionSettings): { y: Act; bwd: Bwd } {
  const m = g.spec.model;
  const hl = m.heads / g.tp;
  const kvl = Math.max(1, (m.kvHeads ?? m.heads) / g.tp);
  const ln = norm(g, 'ln1', x, normalization, true, normUsages(g, 'column'));
  // TE TransformerLayer: LayerNormLinear (ln1 + qkv), attention, Linear (proj).
  const qkv = linear(g, { module: 'qkv', x: ln.y, out: (hl + 2 * kvl) * g.d, parallel: 'column', unit: 'dense', ownNode: false, layerNormLinear: true });
  const core = coreAttention(g, 'attn', qkv.y, settings);
  const proj = linear(g, { module: 'proj', x: core.y, out: m.hidden, parallel: 'row', unit: 'dense' });
  return {
    y: proj.y,
    bwd: (dy) => layerNormLinearBackward(g, 'ln1', ln, qkv, core.bwd(proj.bwd(dy))),
  };
}

/**
 * TE LayerNormLinear's backward: one autograd node, so the Linear's held
 * tensors (its per-step quantized weight) live until the norm backward ends
 * (TransformerEngine d0067d0da6, module/layernorm_linear.py
 * _LayerNormLinear.backward: wt_save is restored from ctx and released when
 * the node returns, after tex.layernorm_bwd / rmsnorm_bwd).
 */
function layerNormLinearBackward(g: Gen, lnModule: string, ln: { bwd: Bwd }, lin: { bwd: Bwd; held: string[] }, dy: Act): Act {
  const dx = ln.bwd(lin.bwd(dy));
  g.holdUntil(`${lnModule}.bwd`, lin.held);
  return dx;
}

/**
 * TE LayerNormMLP (TransformerEngine d0067d0da6, module/layernorm_mlp.py), one
 * autograd node:
 * - ln_out is quantized rowwise and columnwise (_LayerNormMLP._forward:
 *   fc1_input_quantizer.set_usage(rowwise=True, columnwise=backwards_needs_fc1_input))
 *   and no update_usage(rowwise_usage=False) follows: both usages are saved and
 *   freed after FC1 wgrad (_LayerNormMLP.backward: clear_tensor_data(ln_out_total)).
 * - act_out keeps every usage it was made with until FC2 wgrad
 *   (_LayerNormMLP.backward: clear_tensor_data(act_out)); its columnwise usage is
 *   made in forward for MXFP8, NVFP4 and block FP8 only (LayerNormMLP._get_quantizers:
 *   fc2_input_quantizer.set_usage(columnwise=isinstance(..., (MXFP8Quantizer,
 *   Float8BlockQuantizer, NVFP4Quantizer, ...)))); FP8 per-tensor saves it rowwise
 *   and builds the columnwise usage in backward (act_out.update_usage(columnwise_usage=True)).
 * - The per-step FC1 and FC2 weight copies (fc1_wt_save, fc2_wt_save, both usages)
 *   stay in ctx until the node ends, after the norm backward.
 */
function mlpBlock(g: Gen, x: Act, normalization: Normalization, act: Activation, ffn: number): { y: Act; bwd: Bwd } {
  const gated = act === 'swiglu' || act === 'geglu';
  const ffnL = ffn / g.tp;
  const ln = norm(g, 'ln2', x, normalization, true, normUsages(g, 'column'));
  const fc1 = linear(g, { module: 'fc1', x: ln.y, out: gated ? 2 * ffnL : ffnL, parallel: 'column', unit: 'dense', keepInput: true, ownNode: false });
  const perTensor = g.roles.inputs === 'fp8_delayed' || g.roles.inputs === 'fp8_current';
  const a = activation(g, 'act', fc1.y, act, true, perTensor ? ['rowwise'] : ['rowwise', 'columnwise']);
  const fc2 = linear(g, { module: 'fc2', x: a.y, out: x.cols, parallel: 'row', unit: 'dense', keepInput: true, ownNode: false, checkInput: false });
  return {
    y: fc2.y,
    bwd: (dy) => {
      const dx = ln.bwd(fc1.bwd(a.bwd(fc2.bwd(dy))));
      g.holdUntil('ln2.bwd', [...fc1.held, ...fc2.held]);
      return dx;
    },
  };
}

function splitEven(total: number, parts: number, multiple: number): number[] {
  const out: number[] = [];
  const unit = total % (parts * multiple) === 0 ? multiple : 1;
  const units = total / unit;
  for (let i = 0; i < parts; i++) out.push(unit * (Math.floor(units / parts) + (i < units % parts ? 1 : 0)));
  return out;
}

/**
 * TE GroupedLinear: split_quantize of the input per group (one bulk
 * allocation per usage for MXFP8/NVFP4/block FP8), one grouped GEMM each way,
 * weight gradients as one allocation unit.
 */
function groupedLinear(g: Gen, module: string, x: Act, splits: number[], out: number, unit: string): { y: Act; bwd: Bwd } {
  if (!x.name) invalid(`${module}: grouped input must be high precision`);
  const inF = x.cols;
  const members = splits.map((rows) => [rows, inF]);
  const splitQuant = (name: string, recipe: Recipe, rowsBy: number[][], role: LayerTensorRole, gradient: boolean, mod: string) => {
    if (recipe === 'none') return undefined;
    if (recipeFacts(g.core, recipe).splitBulk) {
      const fmt = { dtype: g.dtype, recipe, arch: g.arch, options: { fp8Dtype: g.fp8Element(recipe, gradient) } };
      const byUsage: Record<Usage, string[]> = { rowwise: [], columnwise: [] };
      for (const usage of ['rowwise', 'columnwise'] as const) {
        let layout;
        try {
          layout = splitQuantizeLayout(g.core, rowsBy, fmt, usage);
        } catch (error) {
          invalid(`${g.prefix}${name}: ${(error as Error).message}`);
        }
        const tensors = layout.entries.map((e) => g.t(`${name}.${usage}.m${e.member}.${e.name.replace(/^_/, '')}`,
          { bytes: e.bytes, alignment: e.alignment }, mod, role, false, { buffer: e.name, recipe }));
        g.b.group(tensors);
        byUsage[usage] = tensors;
      }
      return byUsage;
    }
    const byUsage: Record<Usage, string[]> = { rowwise: [], columnwise: [] };
    rowsBy.forEach((shape, e) => {
      const q = g.quantized(`${name}.m${e}`, shape, recipe, ['rowwise', 'columnwise'], mod, role, gradient);
      if (q) {
        byUsage.rowwise.push(...use(q, 'rowwise'));
        byUsage.columnwise.push(...use(q, 'columnwise'));
      }
    });
    return byUsage;
  };
  const xq = splitQuant(`${module}.input`, g.roles.inputs, members, 'quantizedActivation', false, module);
  let fpropIn = [x.name];
  let savedIn: string[];
  if (xq) {
    g.op(`${module}.input_split_quantize`, 'split_quantize', [x.name], [...xq.rowwise, ...xq.columnwise]);
    fpropIn = xq.rowwise;
    savedIn = xq.columnwise;
  } else {
    savedIn = [g.view(`${module}.saved_input`, x.name, module, 'activation', { shape: [x.rows, inF], dtype: g.dtype })];
  }
  g.tag(savedIn, 'savedLinearInput');
  const fpropW: string[] = [];
  const dgradW: string[] = [];
  const heldW: string[] = [];
  splits.forEach((_, e) => {
    const w = g.gemmWeight(`${module}.e${e}`, [out, inF]);
    fpropW.push(...w.fprop);
    dgradW.push(...w.dgrad);
    heldW.push(...w.held);
  });
  const y = g.hp(`${module}.out`, x.rows, out, module, 'activation');
  g.op(`${module}.fprop`, 'grouped_gemm', [...fpropIn, ...fpropW], [y]);
  const bwd: Bwd = (dy) => {
    const outMembers = splits.map((rows) => [rows, out]);
    const dq = splitQuant(`${module}.grad_out`, g.roles.gradients, outMembers, 'quantizedGradient', true, module);
    let dIn = [dy.name!];
    let wIn = [dy.name!];
    if (dq) {
      g.op(`${module}.grad_split_quantize`, 'split_quantize', [dy.name], [...dq.rowwise, ...dq.columnwise]);
      dIn = dq.rowwise;
      wIn = dq.columnwise;
    }
    const dx = g.hp(`${module}.grad_in`, x.rows, inF, module, 'gradient');
    g.op(`${module}.dgrad`, 'grouped_gemm', [...dIn, ...dgradW], [dx]);
    const wgrads = splits.map((_, e) => g.wgrad(`${module}.e${e}`, [out, inF], `${unit}.${module}`));
    g.op(`${module}.wgrad`, 'grouped_gemm', [...wIn, ...savedIn], wgrads);
    // TE grouped_linear.py _GroupedLinear.forward saves *weights_fp8 (both usages,
    // weight_quantizer.set_usage(rowwise=True, columnwise=columnwise_usage)) with
    // prepare_for_saving; they are released when its backward returns, after wgrad.
    g.holdUntil(`${module}.wgrad`, heldW);
    return { name: dx, rows: x.rows, cols: inF };
  };
  return { y: { name: y, rows: x.rows, cols: out }, bwd };
}

/** MoE block: norm, (SP all-gather), router, top-k, permute, grouped FC1, activation, grouped FC2, unpermute. */
function moeBlock(g: Gen, x: Act, normalization: Normalization, act: Activation, ffn: number, moe: MoeSettings): { y: Act; bwd: Bwd } {
  const gated = act === 'swiglu' || act === 'geglu';
  const ffnL = ffn / g.tp;
  const h = x.cols;
  const ln = norm(g, 'ln2', x, normalization, false);
  let tokens: Act = ln.y;
  const rowsFull = g.sp ? x.rows * g.tp : x.rows;
  if (g.sp) {
    const full = g.hp('moe.input_gathered', rowsFull, h, 'moe', 'communication');
    g.op('moe.input_all_gather', 'all_gather', [ln.y.name], [full]);
    tokens = { name: full, rows: rowsFull, cols: h };
  }
  const router = g.param('router', [moe.experts, h]);
  const logits = g.hp('router.logits', rowsFull, moe.experts, 'router', 'activation', 'fp32');
  g.op('router.fprop', 'gemm', [tokens.name, router], [logits]);
  const probs = g.t('router.topk_probs', { shape: [rowsFull, moe.topK], dtype: 'fp32' }, 'router', 'activation');
  const indices = g.t('router.topk_indices', { shape: [rowsFull, moe.topK], dtype: 'int64' }, 'router', 'activation');
  const routingMap = g.t('router.routing_map', { shape: [rowsFull, moe.experts], dtype: 'bool' }, 'router', 'activation');
  g.op('router.topk', 'topk_softmax', [logits], [probs, indices, routingMap]);
  const routed = rowsFull * moe.topK;
  const splits = moe.tokensPerExpert ?? splitEven(routed, moe.experts, 32);
  const permuted = g.hp('moe.permuted', routed, h, 'moe', 'activation');
  const rowIdMap = g.t('moe.row_id_map', { shape: [routed], dtype: 'int32' }, 'moe', 'activation');
  g.op('moe.permute', 'moe_permute', [tokens.name, indices, routingMap], [permuted, rowIdMap]);
  const fc1 = groupedLinear(g, 'fc1', { name: permuted, rows: routed, cols: h }, splits, gated ? 2 * ffnL : ffnL, 'experts');
  const a = activation(g, 'act', fc1.y, act, false);
  // GroupedLinear takes the high-precision activation and split-quantizes it itself.
  const fc2 = groupedLinear(g, 'fc2', a.y, splits, h, 'experts');
  const unpermuted = g.hp('moe.unpermuted', rowsFull, h, 'moe', 'activation');
  g.op('moe.unpermute', 'moe_unpermute', [fc2.y.name, rowIdMap, probs], [unpermuted]);
  let y: Act = { name: unpermuted, rows: rowsFull, cols: h };
  if (g.tp > 1) {
    if (g.sp) {
      const rs = g.hp('moe.out_scattered', x.rows, h, 'moe', 'activation');
      g.op('moe.reduce_scatter', 'reduce_scatter', [unpermuted], [rs]);
      y = { name: rs, rows: x.rows, cols: h };
    } else {
      const ar = g.hp('moe.out_reduced', rowsFull, h, 'moe', 'activation');
      g.op('moe.all_reduce', 'all_reduce', [unpermuted], [ar]);
      g.b.inPlace(ar, unpermuted);
      y = { name: ar, rows: rowsFull, cols: h };
    }
  }
  const bwd: Bwd = (dy) => {
    let dFull = dy;
    if (g.sp) {
      const full = g.hp('moe.grad_gathered', rowsFull, h, 'moe', 'communication');
      g.op('moe.grad_all_gather', 'all_gather', [dy.name], [full]);
      dFull = { name: full, rows: rowsFull, cols: h };
    }
    const dExpertOut = g.hp('moe.grad_unpermute', routed, h, 'moe', 'gradient');
    const dProbs = g.t('router.grad_probs', { shape: [rowsFull, moe.topK], dtype: 'fp32' }, 'router', 'gradient');
    g.op('moe.unpermute_bwd', 'moe_unpermute_bwd', [dFull.name, rowIdMap, probs, fc2.y.name], [dExpertOut, dProbs]);
    const dAct = fc2.bwd({ name: dExpertOut, rows: routed, cols: h });
    const dPermuted = fc1.bwd(a.bwd(dAct));
    const dTokens = g.hp('moe.grad_permute', rowsFull, h, 'moe', 'gradient');
    g.op('moe.permute_bwd', 'moe_permute_bwd', [dPermuted.name, rowIdMap], [dTokens]);
    const dLogits = g.hp('router.grad_logits', rowsFull, moe.experts, 'router', 'gradient', 'fp32');
    g.op('router.topk_bwd', 'topk_softmax_bwd', [dProbs, probs, logits], [dLogits]);
    const dRouterW = g.wgrad('router', [moe.experts, h], '', false);
    const dTokens2 = g.hp('router.grad_in', rowsFull, h, 'router', 'gradient');
    g.op('router.dgrad', 'gemm', [dLogits, router, dTokens], [dTokens2]);
    g.b.inPlace(dTokens2, dTokens);
    g.op('router.wgrad', 'gemm', [dLogits, tokens.name], [dRouterW]);
    let dLn: Act = { name: dTokens2, rows: rowsFull, cols: h };
    if (g.sp) {
      const rs = g.hp('moe.grad_scattered', x.rows, h, 'moe', 'gradient');
      g.op('moe.grad_reduce_scatter', 'reduce_scatter', [dTokens2], [rs]);
      dLn = { name: rs, rows: x.rows, cols: h };
    }
    return ln.bwd(dLn);
  };
  return { y, bwd };
}

function layerForward(g: Gen, entry: LayerEntry, x: Act): { y: Act; bwd: Bwd } {
  const m = g.spec.model;
  const normKind = ('normalization' in entry ? entry.normalization : undefined) ?? 'layernorm';
  switch (entry.kind) {
    case 'linear': {
      const out = entry.parallel === 'column' ? entry.outFeatures / g.tp : entry.outFeatures;
      return linear(g, { module: 'linear', x, out, parallel: entry.parallel ?? 'none', bias: entry.bias, unit: 'dense' });
    }
    case 'layernormLinear': {
      const ln = norm(g, 'ln', x, normKind, true, normUsages(g, entry.parallel ?? 'none'));
      const out = entry.parallel === 'column' ? entry.outFeatures / g.tp : entry.outFeatures;
      const lin = linear(g, {
        module: 'linear', x: ln.y, out, parallel: entry.parallel ?? 'none', bias: entry.bias, unit: 'dense', ownNode: false, layerNormLinear: true,
      });
      return { y: lin.y, bwd: (dy) => layerNormLinearBackward(g, 'ln', ln, lin, dy) };
    }
    case 'layernormMLP':
      return mlpBlock(g, x, normKind, entry.activation ?? 'gelu', entry.ffn ?? m.ffn);
    case 'attention':
      return attentionBlock(g, x, normKind, entry);
    case 'transformer': {
      const attn = attentionBlock(g, x, normKind, entry.attention ?? {});
      const r1 = residual(g, 'res1', x, attn.y);
      const mlp = entry.moe
        ? moeBlock(g, r1.y, normKind, entry.activation ?? 'swiglu', m.ffn, entry.moe)
        : mlpBlock(g, r1.y, normKind, entry.activation ?? 'gelu', m.ffn);
      const r2 = residual(g, 'res2', r1.y, mlp.y);
      return {
        y: r2.y,
        bwd: (dy) => {
          const dh1 = r2.bwd(dy, mlp.bwd(dy));
          return r1.bwd(dh1, attn.bwd(dh1));
        },
      };
    }
    case 'moe': {
      const blk = moeBlock(g, x, normKind, entry.activation ?? 'swiglu', entry.ffn ?? m.ffn, entry);
      const r = residual(g, 'res', x, blk.y);
      return { y: r.y, bwd: (dy) => r.bwd(dy, blk.bwd(dy)) };
    }
    case 'groupedLinear': {
      const splits = entry.tokensPerGroup ?? splitEven(x.rows, entry.groups, 32);
      if (splits.reduce((a, b) => a + b, 0) !== x.rows) invalid(`${g.layer}: tokensPerGroup adds up to ${splits.reduce((a, b) => a + b, 0)}, expected ${x.rows} rows`);
      return groupedLinear(g, 'grouped', x, splits, entry.outFeatures, 'experts');
    }
  }
}

/**
 * Turns a layer spec into one joint forward+backward training graph: every
 * saved tensor, alias and quantized buffer (TE Linear rules, FORMATS.md §6),
 * with weights, master weights and optimizer state persistent.
 */
export function layerGraph(core: CoreBinding, input: LayerSpec | unknown): LayerGraph {
  const name = (input as LayerSpec | null)?.name;
  const spec = parseLayerSpec(input, typeof name === 'string' ? name : 'layer spec');
  const g = new Gen(core, spec);
  const m = spec.model;
  const rows = g.sp ? g.tokens / g.tp : g.tokens;
  const xName = g.t('input', { shape: [rows, m.hidden], dtype: g.dtype }, 'input', 'input', true);
  g.b.input(xName);
  let x: Act = { name: xName, rows, cols: m.hidden };
  const layers: LayerGraph['layers'] = [];
  const stack: { bwd: Bwd; layer: string; entry: LayerEntry; x: Act; dyOp?: string }[] = [];
  let index = 0;
  for (const entry of spec.layers) {
    for (let r = 0; r < (entry.repeat ?? 1); r++) {
      const layer = `L${index++}`;
      g.layer = layer;
      g.prefix = `${layer}.`;
      g.phase = 'forward';
      layers.push({ layer, kind: entry.kind, name: entry.name ?? entry.kind, recompute: entry.recompute ?? false });
      const fwd = layerForward(g, entry, x);
      if (!fwd.y.name) invalid(`${layer}: layer output must be high precision`);
      stack.push({ bwd: fwd.bwd, layer, entry, x });
      x = fwd.y;
    }
  }
  g.layer = 'model';
  g.prefix = '';
  g.phase = 'loss';
  const dy0 = g.t('loss.grad', { shape: [x.rows, x.cols], dtype: g.dtype }, 'loss', 'gradient', true);
  // The loss is ½·Σ y² (op set v1: dL/dy = y is a copy), so the graph is executable end to end.
  g.op('loss', 'copy', [x.name], [dy0]);
  let dy: Act = { name: dy0, rows: x.rows, cols: x.cols };
  let lastOp = 'loss';
  for (let i = stack.length - 1; i >= 0; i--) {
    const item = stack[i];
    g.layer = item.layer;
    let bwd = item.bwd;
    if (item.entry.recompute) {
      // Recomputation: re-run this layer's forward after its output gradient exists.
      g.prefix = `${item.layer}.recompute.`;
      g.phase = 'recompute';
      g.after = [lastOp];
      bwd = layerForward(g, item.entry, item.x).bwd;
      g.after = [];
    }
    g.prefix = `${item.layer}.`;
    g.phase = 'backward';
    const before = Object.keys(g.ops).length;
    dy = bwd(dy);
    const names = Object.keys(g.ops);
    if (names.length > before) lastOp = names[names.length - 1];
  }
  g.b.output(dy.name!);
  g.tensors[dy.name!].role = 'gradient';

  // Weight-gradient allocation: one bulk_allocate (256 B) or one packed buffer per layer and unit.
  for (const members of g.wgrads.values()) g.b.group(members);
  g.markSaved();
  return { graph: g.b.build(), spec, tensors: g.tensors, ops: g.ops, layers };
}

