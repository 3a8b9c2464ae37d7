// The importer: walks a torch.export program's nodes in file order and makes each an op. Every
// UntypedStorage becomes one graph tensor (its root, sized to the whole storage); tensors that
// share it (views, in-place results) are `view` aliases at their storage offset. Writes to a
// storage (in-place ops, running statistics, mutation output specs) become `after` edges, so a
// planner that reorders keeps every read of the old contents before the write and every later
// read after it.
import { TensorplanError } from '../../errors.js';
import type { GraphAlias, GraphDocument, GraphOp, GraphTensor } from '../../graph/graph-document.js';
import { parseGraph } from '../../graph/parse-graph.js';
import { computeStride } from './compute-stride.js';
import type { Argument, ExportNode, ExportedProgramJson, TensorMeta } from './export-schema.js';
import { hiddenTemporaryBytes, uncountedHiddenTemporaries } from './hidden-temporaries.js';
import type { PayloadStorage } from './pt2-archive.js';
import type { TorchImportOptions, TorchImportResult, TorchStorageCategory } from './import-options.js';
import { argTensors, opEffects } from './op-effects.js';
import type { CustomOpDeclaration } from './op-effects.js';
import { SCALAR_TYPES } from './scalar-types.js';
import type { TorchElementType } from './scalar-types.js';
import { SymbolValues } from './symbol-values.js';
import { optimizerTensors } from './optimizer-state.js';
import type { OptimizerTensor, ParameterShape } from './optimizer-state.js';
import { savedForBackward } from './saved-for-backward.js';

/** A tensor's layout with every size resolved. */
interface Layout { sizes: number[]; strides: number[]; offset: number; type: TorchElementType; device: string }

interface Storage {
  /** The tensor that names the storage in the graph (its first tensor). */
  root: string;
  /** Bytes of the whole storage: the largest extent of any tensor on it, or more (copy.default). */
  bytes: number;
  /** The op that made it; undefined for a graph input. */
  producer?: string;
  lastWriter?: string;
  readers: Set<string>;
  category?: TorchStorageCategory;
}

/** Default alignment: PyTorch's CUDA caching allocator's kMinBlockSize (c10/cuda/CUDACachingAllocator.cpp, round_size). */
export const TORCH_DEFAULT_ALIGNMENT = 512;

const numel = (l: Layout) => l.sizes.reduce((a, b) => a * b, 1);
/** Bytes from the storage's start to the end of the tensor's last element (at::detail::computeStorageNbytes). */
const extentBytes = (l: Layout) => (numel(l) === 0 ? 0 : (l.offset + l.sizes.reduce((s, d, i) => s + (d - 1) * l.strides[i], 0) + 1) * l.type.itemBytes);

export class TorchImporter {
  private readonly source: string;
  private readonly symbols: SymbolValues;
  private readonly layouts = new Map<string, Layout>();
  /** The optimizer's persistent tensors (`options.optimizer`), made once the placeholders are known. */
  private optimizer: OptimizerTensor[] = [];
  private readonly storageOf = new Map<string, Storage>();
  private readonly storages: Storage[] = [];
  private readonly ops: GraphOp[] = [];
  private readonly opNames = new Set<string>();
  private readonly warnings: string[] = [];
  private readonly unknownOps = new Set<string>();
  private readonly writtenStorages = new Set<Storage>();
  private readonly producerOfTensor = new Map<string, string>();
  private skipped = 0;
  private viewCount = 0;

  /**
   * @param payloads per state-dict name, the archive record of its storage (pt2-archive.ts): tensors
   *   naming the same record are one storage, as large as the record.
   */
  constructor(private readonly program: ExportedProgramJson, private readonly options: TorchImportOptions,
    private readonly payloads: Map<string, PayloadStorage> = new Map()) {
    this.source = options.source ?? 'model.pt2';
    this.symbols = new SymbolValues(program, this.source);
  }

  private fail(message: string, code: 'INVALID_ARGUMENT' | 'UNSUPPORTED' = 'INVALID_ARGUMENT'): never {
    throw new TensorplanError(code, `${this.source}: ${message}`);
  }

  private get alignment(): number {
    return this.options.alignment ?? TORCH_DEFAULT_ALIGNMENT;
  }

  /** The resolved layout of a tensor, from graph.tensor_values. */
  layout(name: string): Layout {
    let l = this.layouts.get(name);
    if (l) return l;
    const tv = this.program.graph_module.graph.tensor_values;
    const meta: TensorMeta | undefined = Object.hasOwn(tv, name) ? tv[name] : undefined;
    const where = `graph.tensor_values.${name}`;
    if (!meta || typeof meta !== 'object') this.fail(`${where}: missing (every graph input and node output has an entry)`);
    const type = Number.isInteger(meta.dtype) && meta.dtype !== 0 && Object.hasOwn(SCALAR_TYPES, meta.dtype) ? SCALAR_TYPES[meta.dtype] : undefined;
    if (!type) this.fail(`${where}.dtype = ${JSON.stringify(meta.dtype)}: not a ScalarType this importer knows (torch/_export/serde/schema.py ScalarType, schema 8.20: ${Object.entries(SCALAR_TYPES).map(([k, v]) => `${k} ${v.name}`).join(', ')})`);
    if (!Array.isArray(meta.sizes)) this.fail(`${where}.sizes = ${JSON.stringify(meta.sizes)}: must be a list of SymInt`);
    if (!Array.isArray(meta.strides) || meta.strides.length !== meta.sizes.length) this.fail(`${where}.strides = ${JSON.stringify(meta.strides)}: must be a list of SymInt as long as sizes (${meta.sizes.length})`);
    if (meta.layout !== undefined && meta.layout !== 7) {
      this.fail(`${where}.layout = ${meta.layout}: only strided tensors (Layout.Strided = 7) are planned; sparse and mkldnn layouts are not`, 'UNSUPPORTED');
    }
    l = {
      sizes: meta.sizes.map((s, i) => this.symbols.value(s, `${where}.sizes[${i}]`)),
      strides: meta.strides.map((s, i) => this.symbols.value(s, `${where}.strides[${i}]`)),
      offset: meta.storage_offset === undefined ? 0 : this.symbols.value(meta.storage_offset, `${where}.storage_offset`),
      type: type!,
      device: typeof meta.device?.type === 'string' ? meta.device.type : 'cpu',
    };
    const negative = [...l.sizes.map((v, i) => [`sizes[${i}]`, v] as const), ...l.strides.map((v, i) => [`strides[${i}]`, v] as const), ['storage_offset', l.offset] as const].find(([, v]) => v < 0);
    if (negative) this.fail(`${where}.${negative[0]} = ${negative[1]}: must be >= 0`);
    this.layouts.set(name, l);
    return l;
  }

  private newStorage(tensor: string, bytes: number, producer?: string): Storage {
    const s: Storage = { root: tensor, bytes, producer, readers: new Set() };
    this.storages.push(s);
    this.storageOf.set(tensor, s);
    return s;
  }

  /** `tensor` is another name for bytes of `storage` (a view, an in-place result). */
  private share(tensor: string, storage: Storage): void {
    this.storageOf.set(tensor, storage);
    storage.bytes = Math.max(storage.bytes, extentBytes(this.layout(tensor)));
  }

  private storage(tensor: string, where: string): Storage {
    const s = this.storageOf.get(tensor);
    if (!s) this.fail(`${where}: tensor "${tensor}" is used before any node makes it`);
    return s!;
  }

  private uniqueOpName(wanted: string): string {
    let name = wanted;
    for (let i = 1; this.opNames.has(name); i++) name = `${wanted}_${i}`;
    this.opNames.add(name);
    return name;
  }

  private customFor(target: string): CustomOpDeclaration | undefined {
    const ops = this.options.customOps ?? {};
    const short = target.replace(/^torch\.ops\./, '');
    return Object.hasOwn(ops, target) ? ops[target] : Object.hasOwn(ops, short) ? ops[short] : undefined;
  }

  /** Adds `after` edges for a read of `storage` by `op` and, when it writes, for the write. */
  private order(op: GraphOp, storage: Storage, writes: boolean): void {
    const after = new Set(op.after ?? []);
    if (storage.lastWriter && storage.lastWriter !== op.name) after.add(storage.lastWriter);
    if (writes) {
      for (const r of storage.readers) if (r !== op.name) after.add(r);
      storage.lastWriter = op.name;
      storage.readers = new Set();
      this.writtenStorages.add(storage);
    } else {
      storage.readers.add(op.name);
    }
    // An edge to an op whose output this op reads says nothing new.
    for (const input of op.inputs) { const p = this.producerOfTensor.get(input); if (p) after.delete(p); }
    if (after.size > 0) op.after = [...after];
    else delete op.after;
  }

  run(): TorchImportResult {
    const p = this.program;
    const gm = p.graph_module;
    const graph = gm.graph;
    if (!graph || !Array.isArray(graph.nodes) || !Array.isArray(graph.inputs) || graph.tensor_values === null || typeof graph.tensor_values !== 'object') {
      this.fail('graph_module.graph: must have inputs, nodes and tensor_values (torch/_export/serde/schema.py Graph)');
    }
    const specs = gm.signature?.input_specs;
    if (!Array.isArray(specs)) this.fail('graph_module.signature.input_specs: must be a list (schema.py GraphSignature)');

    // Placeholders: parameters, buffers, constants and user inputs, held for the whole run.
    const placeholderKind = new Map<string, TorchStorageCategory>();
    const userInputs: string[] = [];
    const recordOf = new Map<string, PayloadStorage>();
    specs.forEach((spec, i) => {
      const kind = Object.keys(spec ?? {})[0];
      const body = kind ? spec[kind] : undefined;
      const arg = body?.arg;
      const name = arg?.name ?? argTensors(arg as Argument)[0];
      const category: TorchStorageCategory | undefined = kind === 'parameter' ? 'parameters' : kind === 'buffer' ? 'buffers'
        : kind === 'tensor_constant' ? 'constants' : kind === 'user_input' ? 'graph inputs' : undefined;
      if (category === undefined) {
        if (kind === 'token' || kind === 'custom_obj' || kind === 'constant_input') return;
        this.fail(`graph_module.signature.input_specs[${i}] = ${JSON.stringify(spec).slice(0, 120)}: unknown input kind "${kind}" (schema.py InputSpec)`);
      }
      if (name === undefined) return; // a SymInt user input: not a tensor
      placeholderKind.set(name, category);
      if (category === 'graph inputs') userInputs.push(name);
      const fqn = body?.parameter_name ?? body?.buffer_name ?? body?.tensor_constant_name;
      const payload = typeof fqn === 'string' ? this.payloads.get(fqn) : undefined;
      if (payload) recordOf.set(name, payload);
    });
    this.bindInputs(userInputs);

    // Tied weights (one tensor under two names) and weights that are views of one tensor are one
    // storage: the archive writes each storage once and every name of it points at that record.
    const storageOfRecord = new Map<string, Storage>();
    for (const [name, category] of placeholderKind) {
      const payload = recordOf.get(name);
      const shared = payload && storageOfRecord.get(payload.record);
      if (shared) { this.share(name, shared); continue; }
      const s = this.newStorage(name, Math.max(extentBytes(this.layout(name)), payload?.bytes ?? 0));
      s.category = category;
      if (payload) storageOfRecord.set(payload.record, s);
    }

    const nodes = graph.nodes;
    for (const [index, node] of nodes.entries()) this.node(node, index);

    // Outputs (schema.py OutputSpec).
    const outputs: string[] = [];
    const categoryOfOutput = new Map<string, TorchStorageCategory>();
    let loss: string | undefined;
    const mutations: { value: string; target: string; kind: string }[] = [];
    const outputSpecs = gm.signature.output_specs ?? [];
    outputSpecs.forEach((spec, i) => {
      const kind = Object.keys(spec ?? {})[0];
      const body = kind ? spec[kind] : undefined;
      const arg = body?.arg;
      const name = arg?.name ?? argTensors(arg as Argument)[0];
      if (name === undefined) return; // None, ints, tokens: nothing to keep
      const where = `graph_module.signature.output_specs[${i}].${kind}`;
      this.storage(name, where);
      switch (kind) {
        case 'user_output': case 'loss_output': case 'gradient_to_parameter': case 'gradient_to_user_input':
          if (!outputs.includes(name)) outputs.push(name);
          categoryOfOutput.set(name, kind.startsWith('gradient') ? 'gradients' : 'outputs');
          if (kind === 'loss_output') loss = name;
          break;
        case 'buffer_mutation': case 'parameter_mutation': case 'user_input_mutation': {
          const targetName = body?.buffer_name ?? body?.parameter_name ?? body?.user_input_name;
          const target = this.placeholderFor(kind, targetName, specs);
          if (target === undefined) this.fail(`${where}: names ${JSON.stringify(targetName)}, which no input spec holds`);
          mutations.push({ value: name, target: target!, kind });
          break;
        }
        case 'token': break;
        default: this.fail(`${where}: unknown output kind "${kind}" (schema.py OutputSpec)`);
      }
    });
    // A mutation output is written into the input's storage after the graph's nodes, as
    // torch/export/_unlift.py (_insert_copy_for_mutations) makes ep.module() do: one copy_ each.
    for (const m of mutations) this.mutationCopy(m.value, m.target, m.kind);

    // Categories: persistent kinds, gradients and outputs, saved for backward, the rest activations.
    const joint = loss !== undefined && outputSpecs.some((s) => Object.keys(s ?? {})[0]?.startsWith('gradient_to'));
    for (const [name, category] of categoryOfOutput) {
      const s = this.storageOf.get(name)!;
      if (s.category === undefined) s.category = category;
    }
    if (joint) {
      for (const tensor of savedForBackward(nodes, loss!)) {
        const s = this.storageOf.get(tensor);
        if (s && s.category === undefined) s.category = 'saved for backward';
      }
    }
    for (const s of this.storages) if (s.category === undefined) s.category = 'activations';
    this.symbols.checkRanges();

    this.optimizer = this.optimizerTensors(placeholderKind);
    const document = this.document(placeholderKind, outputs);
    const categories: Record<string, TorchStorageCategory> = {};
    for (const [tensor, s] of this.storageOf) categories[tensor] = s.category!;
    const categoryBytes: Partial<Record<TorchStorageCategory, number>> = {};
    const add = (category: TorchStorageCategory, bytes: number) => {
      categoryBytes[category] = (categoryBytes[category] ?? 0) + Math.ceil(bytes / this.alignment) * this.alignment;
    };
    for (const s of this.storages) add(s.category!, s.bytes);
    for (const t of this.optimizer) {
      categories[t.name] = t.category;
      add(t.category, t.bytes);
    }
    const defaulted: Record<string, number | null> = {};
    for (const [k, v] of this.symbols.defaulted) defaulted[k] = Number.isNaN(v) ? null : v;
    if (this.symbols.defaulted.size > 0) {
      this.warnings.push(`symbolic sizes took the export's hints: ${[...this.symbols.defaulted].map(([k, v]) => (Number.isNaN(v) ? `${k} (through an expression's hint)` : `${k}=${v}`)).join(', ')}; bind them with --input NAME=N (API: dims)`);
    }
    return {
      graph: document,
      verifiers: Array.isArray(p.verifiers) ? p.verifiers.map(String) : [],
      schemaVersion: `${p.schema_version.major}.${p.schema_version.minor}`,
      torchVersion: typeof p.torch_version === 'string' ? p.torch_version : '',
      nodes: nodes.length,
      skipped: this.skipped,
      views: this.viewCount,
      inPlace: this.writtenStorages.size,
      bound: Object.fromEntries(this.symbols.bound),
      defaulted,
      joint,
      categories,
      categoryBytes,
      unknownOps: [...this.unknownOps],
      warnings: this.warnings,
    };
  }

  /** The optimizer's states of every parameter storage (none without `options.optimizer`). */
  private optimizerTensors(placeholderKind: Map<string, TorchStorageCategory>): OptimizerTensor[] {
    if (this.options.optimizer === undefined) return [];
    const parameters: ParameterShape[] = [];
    for (const [name, category] of placeholderKind) {
      // One entry per storage: a tied weight's second name shares the first one's storage.
      if (category !== 'parameters' || this.storageOf.get(name)?.root !== name) continue;
      // A frozen parameter gets no gradient, so torch/optim never makes state for it.
      if (this.program.graph_module.graph.tensor_values[name]?.requires_grad === false) continue;
      const l = this.layout(name);
      if (l.type.dtype === undefined) this.fail(`parameter "${name}" has element type ${l.type.name}, which no optimizer state is modelled for`, 'UNSUPPORTED');
      parameters.push({ name, sizes: l.sizes, dtype: l.type.dtype!, itemBytes: l.type.itemBytes });
    }
    return optimizerTensors(parameters, this.options.optimizer, this.options.masterWeights ?? true);
  }

  /** `--input x=8x64` binds the symbols of user input x's sizes; `--input s77=512` binds s77. */
  private bindInputs(userInputs: string[]): void {
    for (const [name, value] of Object.entries(this.options.dims ?? {})) this.symbols.bound.set(name, value);
    const tv = this.program.graph_module.graph.tensor_values;
    for (const [name, dims] of Object.entries(this.options.bindings ?? {})) {
      if (userInputs.includes(name)) {
        const sizes = Object.hasOwn(tv, name) ? tv[name].sizes : [];
        if (sizes.length !== dims.length) this.fail(`--input ${name}=${dims.join('x')}: user input "${name}" has rank ${sizes.length}`);
        sizes.forEach((s, i) => {
          if ('as_expr' in s) {
            const node = this.symbols.parse(s.as_expr.expr_str, `graph.tensor_values.${name}.sizes[${i}]`);
            if (node.kind === 'symbol') this.symbols.bound.set(node.name, dims[i]);
          }
        });
        continue;
      }
      if (dims.length !== 1) {
        this.fail(`--input ${name}=${dims.join('x')}: "${name}" is no user input (user inputs: ${userInputs.join(', ') || 'none'}), and a symbol takes one number`);
      }
      if (!this.symbols.symbols().includes(name)) {
        this.fail(`--input ${name}=${dims[0]}: the program has no user input or size symbol "${name}" (user inputs: ${userInputs.join(', ') || 'none'}; symbols: ${this.symbols.symbols().join(', ') || 'none'})`);
      }
      this.symbols.bound.set(name, dims[0]);
    }
    // A whole shape must agree with the sizes it fixes (literal ones, expressions of bound symbols).
    for (const [name, dims] of Object.entries(this.options.bindings ?? {})) {
      if (!userInputs.includes(name)) continue;
      const l = this.layout(name);
      l.sizes.forEach((d, i) => {
        if (d !== dims[i]) this.fail(`--input ${name}=${dims.join('x')}: size ${i} of user input "${name}" is ${d} in the program (graph.tensor_values.${name}.sizes[${i}])`);
      });
    }
  }

  private placeholderFor(kind: string, target: string | undefined, specs: ExportedProgramJson['graph_module']['signature']['input_specs']): string | undefined {
    for (const spec of specs) {
      const k = Object.keys(spec ?? {})[0];
      const body = k ? spec[k] : undefined;
      const name = body?.arg?.name ?? argTensors(body?.arg as Argument)[0];
      if (kind === 'buffer_mutation' && k === 'buffer' && body?.buffer_name === target) return name;
      if (kind === 'parameter_mutation' && k === 'parameter' && body?.parameter_name === target) return name;
      if (kind === 'user_input_mutation' && k === 'user_input' && name === target) return name;
    }
    return undefined;
  }

  private node(node: ExportNode, index: number): void {
    const where = `graph.nodes[${index}] (${node?.target})`;
    if (!node || typeof node.target !== 'string' || !Array.isArray(node.inputs) || !Array.isArray(node.outputs)) {
      this.fail(`graph.nodes[${index}]: must have target, inputs and outputs (schema.py Node)`);
    }
    if (node.inputs.some((i) => i?.arg?.as_graph !== undefined)) {
      this.fail(`${where}: a higher-order op with a subgraph (torch.cond, while_loop, wrap_with_*): not planned by this importer`, 'UNSUPPORTED');
    }
    const effects = opEffects(node, this.customFor(node.target));
    const inputs = [...new Set(node.inputs.flatMap((i) => argTensors(i.arg)))];
    for (const t of inputs) this.storage(t, where);
    const outputs = node.outputs.flatMap((o) => argTensors(o));
    if (outputs.length === 0 && effects.writes.length === 0) {
      this.skipped++;
      return;
    }
    if (!effects.known && !this.unknownOps.has(node.target)) {
      this.unknownOps.add(node.target);
      this.warnings.push(`${node.target}: not in PyTorch's schemas (torch native_functions.yaml): its outputs are new tensors sized from tensor_values, assumed not to alias its inputs; declare it with customOps (view or inPlace) if it does`);
    }
    const name = this.uniqueOpName(node.name ?? outputs[0] ?? `${effects.key}_${index}`);
    const op: GraphOp = { name, op: node.target.replace(/^torch\.ops\./, ''), inputs, outputs };
    for (const t of outputs) {
      if (this.storageOf.has(t)) this.fail(`${where}: output "${t}" is already a graph input or another node's output`);
      const l = this.layout(t);
      const effect = effects.outputs.get(t) ?? { kind: 'new' as const };
      let input: string | undefined;
      if (effect.kind === 'alias') input = effect.input;
      else if (effect.kind === 'mayAlias') {
        const from = this.layout(effect.input);
        const same = from.type === l.type && from.device === l.device;
        const view = effect.rule === 'reshape'
          ? same && computeStride(from.sizes, from.strides, l.sizes) !== undefined
          : same && from.offset === l.offset && from.sizes.length === l.sizes.length && from.sizes.every((d, i) => d === l.sizes[i] && from.strides[i] === l.strides[i]);
        if (view) input = effect.input;
      }
      if (input !== undefined) {
        this.share(t, this.storage(input, where));
        this.viewCount++;
      } else {
        const bytes = effect.kind === 'storageOf' ? Math.max(extentBytes(l), this.storage(effect.input, where).bytes) : extentBytes(l);
        this.newStorage(t, bytes, name);
        this.producerOfTensor.set(t, name);
      }
    }
    const resolved = (t: string) => { const l = this.layout(t); return { sizes: l.sizes, itemBytes: l.type.itemBytes, device: l.device }; };
    const workspace = hiddenTemporaryBytes(node, resolved, this.alignment);
    if (workspace > 0) op.workspaceBytes = workspace;
    const uncounted = uncountedHiddenTemporaries(node, resolved);
    if (uncounted) this.warnings.push(uncounted);
    const written = new Set(effects.writes.map((t) => this.storage(t, where)));
    for (const t of inputs) { const s = this.storage(t, where); if (!written.has(s)) this.order(op, s, false); }
    for (const s of written) this.order(op, s, true);
    this.ops.push(op);
  }

  /** The copy_ of a mutation output spec into its input's storage, after every node. */
  private mutationCopy(value: string, target: string, kind: string): void {
    const storage = this.storage(target, `${kind} of ${target}`);
    const name = this.uniqueOpName(`copy_into_${target}`);
    let out = `${target}.updated`;
    for (let i = 1; this.storageOf.has(out) || Object.hasOwn(this.program.graph_module.graph.tensor_values, out); i++) out = `${target}.updated_${i}`;
    this.layouts.set(out, this.layout(target));
    this.share(out, storage);
    const op: GraphOp = { name, op: 'aten.copy_.default', inputs: [value, target], outputs: [out] };
    this.order(op, this.storage(value, kind), false);
    this.order(op, storage, true);
    this.ops.push(op);
  }

  private document(placeholderKind: Map<string, TorchStorageCategory>, outputs: string[]): GraphDocument {
    const tensors: GraphTensor[] = [];
    const aliases: GraphAlias[] = [];
    for (const [tensor, s] of this.storageOf) {
      const l = this.layouts.get(tensor) ?? this.layout(tensor);
      if (s.root === tensor) {
        // Sized by shape where the tensor covers its storage exactly, else in bytes.
        const exact = l.type.dtype !== undefined && l.offset === 0 && numel(l) * l.type.itemBytes === s.bytes && extentBytes(l) === s.bytes;
        tensors.push(exact ? { name: tensor, shape: l.sizes, dtype: l.type.dtype } : { name: tensor, bytes: s.bytes });
      } else {
        const offset = numel(l) === 0 ? 0 : l.offset * l.type.itemBytes;
        tensors.push({ name: tensor, bytes: Math.max(0, extentBytes(l) - offset) });
        aliases.push({ kind: 'view', tensor, base: s.root, ...(offset ? { offset } : {}) });
      }
    }
    const persistent = [...placeholderKind.keys()];
    for (const t of this.optimizer) {
      tensors.push({ name: t.name, shape: t.shape, dtype: t.dtype });
      persistent.push(t.name);
    }
    const document: GraphDocument = {
      format: 'tensorplan.graph',
      version: 1,
      name: this.options.name ?? this.source,
      defaultAlignment: this.alignment,
      tensors,
      ops: this.ops,
      ...(aliases.length ? { aliases } : {}),
      inputs: persistent,
      outputs,
      persistent,
    };
    return parseGraph(document, this.source);
  }
}
