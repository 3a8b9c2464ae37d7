// The state of one layer graph being generated: the graph written so far, what
// every tensor and op is (layer, module, role, the TE behaviour that keeps it),
// who reads what (saved-tensors.ts decides from it what autograd saves), the
// spec's settings resolved once, and the layer, phase and name prefix the
// module builders write under. Quantized formats come from the core
// (tensorSpecBuffers, core-facts.ts), which follows TE d0067d0da6's allocation
// (transformer_engine/pytorch/csrc/quantizer.cpp `create_tensor`).
import type { CoreBinding } from '../../../abi/core-binding.js';
import type { DType } from '../../../formats/dtype.js';
import { TensorplanError } from '../../../errors.js';
import type { Recipe, TensorFormat } from '../../../formats/tensor-format.js';
import { type TensorSpecBuffers, tensorSpecBuffers } from '../../../formats/tensor-spec.js';
import type { TensorSize } from '../../../graph/graph-builder.js';
import type { OpAttributeValue } from '../../../graph/graph-document.js';
import { dtypeFacts, recipeFacts } from '../core-facts.js';
import { layerArch } from '../layer-arch.js';
import type { LayerSpec } from '../layer-spec.js';
import type { TeBehaviourId } from '../te-behaviours.js';
import { GraphWriter } from './graph-writer.js';
import type { LayerOpPhase, LayerTensorInfo, LayerTensorRole } from './layer-graph-types.js';
import { type Roles, resolveRecipe } from './role-recipes.js';
import type { WeightOperands } from './values.js';

/** Refuses the spec with a message naming what TE (or the graph) cannot do. */
export function invalid(message: string): never {
  throw new TensorplanError('INVALID_ARGUMENT', message);
}

/** The behaviour a tensor has unless its builder says otherwise. */
const BECAUSE_BY_ROLE: Record<LayerTensorRole, TeBehaviourId> = {
  input: 'modelInput', activation: 'forwardOutput', quantizedActivation: 'forwardOutput', communication: 'spAllGather',
  gradient: 'gradient', quantizedGradient: 'gradient', quantizedWeight: 'savedQuantizedWeight', weightGradient: 'weightGradient',
  weight: 'weight', masterWeight: 'masterWeight', optimizerState: 'optimizerState',
};

/** The layer graph being generated. */
export class GraphState {
  readonly writer: GraphWriter;
  readonly tensors: Record<string, LayerTensorInfo> = {};
  readonly ops: Record<string, LayerOpPhase> = {};
  /** The phases of the ops that read each tensor. */
  readonly reads = new Map<string, LayerOpPhase[]>();
  /** The last op that really reads each tensor (holdUntil does not count). */
  readonly lastReader = new Map<string, string>();
  readonly producers = new Map<string, LayerOpPhase>();
  /** Parameters made so far (one per layer and module). */
  readonly params = new Set<string>();
  /** Weight gradients by allocation unit (`<layer>.<unit>`), for bulk or packed grouping. */
  readonly wgrads = new Map<string, string[]>();
  /** Operands of the quantized weights made once per layer and module (primary or cached), by base name. */
  readonly persistentWeights = new Map<string, WeightOperands>();
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
  private readonly bufferSpecs = new Map<string, TensorSpecBuffers>();

  constructor(readonly core: CoreBinding, readonly spec: LayerSpec) {
    this.writer = new GraphWriter(spec.name ?? 'layer spec');
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
    this.writer.tensor(full, size);
    this.tensors[full] = { layer: this.layer, module, role, saved: false, because: BECAUSE_BY_ROLE[role], ...extra };
    return full;
  }

  /** Sets the TE behaviour of tensors already added. */
  tag(names: readonly string[], because: TeBehaviourId): void {
    for (const name of names) this.tensors[name].because = because;
  }

  /** A high-precision `[rows, cols]` tensor (the model dtype unless told). */
  hp(name: string, rows: number, cols: number, module: string, role: LayerTensorRole, dtype: DType = this.dtype): string {
    return this.t(name, { shape: [rows, cols], dtype }, module, role);
  }

  /** Adds an op named `prefix + name` in the current phase, after `after`; undefined inputs and repeats are dropped. */
  op(name: string, type: string, inputs: (string | undefined)[], outputs: string[], workspaceBytes = 0,
    attributes?: Record<string, OpAttributeValue>): string {
    const full = this.prefix + name;
    const ins = [...new Set(inputs.filter((x): x is string => x !== undefined))];
    outputs = [...new Set(outputs)];
    this.writer.op(full, type, ins, outputs, {
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

  /** A tensor that is a view of `base` at `offset`. */
  view(name: string, base: string, module: string, role: LayerTensorRole, size: TensorSize, offset = 0): string {
    const full = this.t(name, size, module, role);
    this.writer.view(full, base, offset);
    return full;
  }

  /** The inner buffers of a quantized format, asked of the core once per format. */
  bufferSpec(format: TensorFormat): TensorSpecBuffers {
    const key = JSON.stringify(format);
    let s = this.bufferSpecs.get(key);
    if (!s) {
      s = tensorSpecBuffers(this.core, format);
      this.bufferSpecs.set(key, s);
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
}
