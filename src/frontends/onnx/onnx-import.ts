// ONNX model -> graph document (format v1). Nodes become ops, initializers and
// folded constant subgraphs become persistent tensors, Reshape-like outputs
// become views, and (optionally) element-wise ops whose input dies there run in place.
import type { CoreBinding } from '../../abi/core-binding.js';
import type { DType } from '../../formats/dtype.js';
import { TensorplanError, guarded, isDetached, optionsObject, shown } from '../../errors.js';
import type { GraphAlias, GraphDocument, GraphOp, GraphTensor } from '../../graph/graph-document.js';
import { parseGraph } from '../../graph/parse-graph.js';
import { graphInPlace } from './in-place-rule.js';
import { BINARY_OPS, InferenceGap, UNARY_OPS, inferNode } from './onnx-infer.js';
import { signatureMismatch } from './onnx-signatures.js';
import type { Value } from './onnx-infer.js';
import { ONNX_DTYPES, decodeOnnxModel } from './onnx-model.js';
import { outerReads, topologicalOrder } from './node-order.js';
import { ifOutputs, loopTemporaryBytes, normalAxis, planSubgraph, scanTemporaryBytes } from './control-flow.js';
import type { OnnxSubgraph } from './control-flow.js';
import { inputValue } from './input-values.js';
import { ORT_CPU_MAY_INPLACE, RUNTIMES, ortConvScratchBytes } from './ort-cpu-rules.js';
import type { OnnxRuntimeName } from './ort-cpu-rules.js';
import type { InputValue } from './input-values.js';
import type { OnnxGraph, OnnxModel, OnnxNode, OnnxTensor, OnnxValueInfo } from './onnx-model.js';

/**
 * Options of {@link importOnnx}.
 *
 * @group Files
 */
export interface OnnxImportOptions {
  /** Graph name; default: the ONNX graph's name. */
  name?: string;
  /** Shapes of graph inputs, by input name; they override the shapes in the file. */
  inputShapes?: Record<string, number[]>;
  /** Values of symbolic dimensions (dim_param), by symbol name. */
  dims?: Record<string, number>;
  /**
   * What the CLI's `--input NAME=DxD...` gives: a graph input's shape when NAME is a graph input,
   * otherwise (a single number) the value of the symbolic dimension NAME.
   */
  bindings?: Record<string, number[]>;
  /**
   * Let element-wise ops write their output into an input that dies there (same size, not a
   * graph input, output or persistent, every other reader of its storage earlier). Default false.
   * The core decides the writes, so this needs a session: `tp.importOnnx(bytes, { inPlace: true })`.
   */
  inPlace?: boolean;
  /**
   * Values of graph inputs, by input name (the CLI's `--value NAME=V[,V...]`): a scalar or the
   * elements row-major, as numbers, bigints (exact int64) or booleans; the element type is the
   * file's. The input stays a graph input; what depends only on known values folds at import
   * time, so `If` nodes whose condition depends on the input are inlined (a sample rate, a mode
   * flag). The shape is the file's (or `inputShapes`); a rank-1 input of unknown length takes the
   * number of values.
   */
  values?: Record<string, InputValue>;
  /**
   * The branch that runs, by If node name (the CLI's `--branch NODE=then|else`): that branch's
   * nodes become ops of the graph, as for an If whose condition is known. Without it, an If whose
   * condition is not known at import time has both branches planned as subgraphs (a session's
   * `tp.importOnnx` only: the core plans them), its op's workspace the larger branch's arena.
   */
  branches?: Record<string, 'then' | 'else'>;
  /**
   * Graph inputs and outputs are user buffers outside the arena, as ONNX Runtime keeps them (the
   * CLI's `--external-io`): they become persistent tensors, and a plan reports their bytes as
   * `statistics.externalIOBytes`, apart from `persistentBytes`. Default false.
   */
  externalIO?: boolean;
  /**
   * Plan like this runtime's kernels allocate (the CLI's `--runtime`). `'ort-cpu'`: ONNX Runtime's
   * CPU kernels write in place where their registration says MayInplace (activations), and Conv /
   * ConvInteger get their im2col scratch as an op workspace (`ort-cpu-rules.ts` cites the source).
   * The core decides the in-place writes, so this needs a session (`tp.importOnnx`).
   */
  runtime?: OnnxRuntimeName;
  /** Label for error messages (a file name); default "model". */
  source?: string;
}

/**
 * What {@link importOnnx} returns: the graph plus facts about the import.
 *
 * @group Files
 */
export interface OnnxImportResult {
  graph: GraphDocument;
  /** Opset of the default domain. */
  opset: number;
  /** The producer named in the file (e.g. "pytorch"). */
  producer: string;
  /** ONNX nodes in the file, branches of inlined Ifs included. */
  nodes: number;
  /** Nodes folded into persistent tensors (constant and weight-only subgraphs, shape computations). */
  folded: number;
  /** Outputs that became views of their input. */
  views: number;
  /** Outputs written in place of an input. */
  inPlace: number;
  /** If nodes whose branch was chosen at import time (a known condition or `branches`). */
  inlinedIfs: number;
  /**
   * Control-flow nodes planned with their subgraphs (If with an unknown condition, Loop, Scan):
   * each op's workspace and which subgraph it comes from.
   */
  subgraphs: OnnxSubgraph[];
}

/**
 * Ops whose output is a view (same bytes, new shape) of input 0.
 *
 * @group Files
 */
export const VIEW_OPS: readonly string[] = ['Reshape', 'Squeeze', 'Unsqueeze', 'Flatten', 'Identity'];

const IN_PLACE_OPS = new Set([...UNARY_OPS, ...BINARY_OPS, 'Dropout']);
const dimsText = (shape: readonly (number | string | undefined)[]) => `[${shape.map((d) => d ?? '?').join(',')}]`;

class Importer {
  private readonly values = new Map<string, Value>();
  /** Constant values (initializers, Constant nodes, folded nodes): persistent when used. */
  private readonly constants = new Set<string>();
  private readonly declared = new Map<string, OnnxValueInfo>();
  private readonly rename = new Map<string, string>();
  readonly tensors = new Map<string, GraphTensor>();
  readonly ops: GraphOp[] = [];
  readonly aliases: GraphAlias[] = [];
  private readonly opNames = new Set<string>();
  private readonly usedConstants = new Set<string>();
  /** Graph inputs given a value: known at import time, but graph inputs (never persistent). */
  private readonly givenInputs = new Set<string>();
  /** Initializers whose data is stored outside the file (never opened): shapes only. */
  private readonly external = new Set<string>();
  /** For each node output: the node's label and the names it read (to explain an unknown If condition). */
  private readonly producedBy = new Map<string, { label: string; reads: string[] }>();
  readonly stats = { nodes: 0, folded: 0, views: 0, inPlace: 0, inlinedIfs: 0 };
  readonly subgraphs: OnnxSubgraph[] = [];
  /**
   * In a subgraph: values read from the enclosing graphs that are not known at import time. They
   * live in the enclosing graph's memory (ORT passes them as feeds), so here they are persistent
   * (outside the subgraph's arena), and the enclosing op lists them as inputs.
   */
  private readonly outer = new Set<string>();
  /** In a subgraph: its own inputs (an iteration number, loop-carried values), fed by the kernel. */
  private readonly formals = new Set<string>();

  private readonly options: OnnxImportOptions;

  constructor(private readonly model: OnnxModel, options: OnnxImportOptions, private readonly core?: CoreBinding,
    private readonly parent?: Importer) {
    const inputNames = new Set(model.graph.inputs.map((i) => i.name));
    const inputShapes = { ...options.inputShapes };
    const dims = { ...options.dims };
    for (const [name, value] of Object.entries(options.bindings ?? {})) {
      if (inputNames.has(name)) inputShapes[name] = value;
      else if (value.length === 1) dims[name] = value[0];
      else {
        throw new TensorplanError('INVALID_ARGUMENT', `${options.source ?? 'model'}: --input ${name}=${value.join('x')}: the model has no graph input "${name}" (inputs: ${[...inputNames].join(', ')}); a symbolic dimension takes one number`);
      }
    }
    this.options = { ...options, inputShapes, dims };
  }

  private fail(message: string, code: 'INVALID_ARGUMENT' | 'UNSUPPORTED' = 'INVALID_ARGUMENT'): never {
    throw new TensorplanError(code, `${this.options.source ?? 'model'}: ${message}`);
  }

  private resolve(name: string): string {
    let n = name;
    while (this.rename.has(n)) n = this.rename.get(n)!;
    return n;
  }

  private dtypeOf(elemType: number, what: string): { dtype?: DType; elementBytes?: number } {
    const t = ONNX_DTYPES[elemType];
    if (!t) this.fail(`${what}: unsupported element type ${elemType}`, 'UNSUPPORTED');
    if (t.dtype) return { dtype: t.dtype };
    if (t.bytes) return { elementBytes: t.bytes };
    return this.fail(`${what}: element type ${t.name} has no fixed size and cannot be planned`, 'UNSUPPORTED');
  }

  private addTensor(name: string, v: Value, what: string): void {
    if (this.tensors.has(name)) return;
    const { dtype, elementBytes } = this.dtypeOf(v.elemType, what);
    this.tensors.set(name, dtype
      ? { name, shape: [...v.shape], dtype }
      : { name, bytes: v.shape.reduce((a, b) => a * b, 1) * elementBytes! });
  }

  /** A declared shape with symbols bound; undefined when some dimension stays unknown. */
  private concreteDims(info: OnnxValueInfo, what: string, strict: boolean): number[] | undefined {
    if (!info.dims) return strict ? this.fail(`${what} has no shape in the file; give it with --input ${info.name}=DxDx...`) : undefined;
    const out: number[] = [];
    for (const d of info.dims) {
      if (typeof d === 'number') out.push(d);
      else if (typeof d === 'string' && this.options.dims?.[d] !== undefined) out.push(this.options.dims[d]);
      else if (strict) {
        return this.fail(typeof d === 'string'
          ? `${what} has shape ${dimsText(info.dims)}: bind the symbolic dimension "${d}" (--input ${d}=N) or give the shape (--input ${info.name}=DxDx...)`
          : `${what} has shape ${dimsText(info.dims)} with an unknown dimension; give the shape (--input ${info.name}=DxDx...)`);
      } else return undefined;
    }
    return out;
  }

  private constantValue(t: OnnxTensor): Value {
    return { shape: t.dims, elemType: t.dataType, ...(t.values ? { data: t.values } : {}) };
  }

  run(): GraphDocument {
    const g = this.model.graph;
    for (const info of [...g.valueInfo, ...g.outputs]) this.declared.set(info.name, info);
    for (const t of g.initializers) {
      this.values.set(t.name, this.constantValue(t));
      this.constants.add(t.name);
      if (t.external) this.external.add(t.name);
    }
    const graphInputs: string[] = [];
    for (const name of Object.keys(this.options.inputShapes ?? {})) {
      if (!g.inputs.some((i) => i.name === name)) {
        this.fail(`--input ${name}: the model has no graph input "${name}" (inputs: ${g.inputs.filter((i) => !this.constants.has(i.name)).map((i) => i.name).join(', ')})`);
      }
    }
    const values = this.options.values ?? {};
    for (const name of Object.keys(values)) {
      if (!g.inputs.some((i) => i.name === name && !this.constants.has(name))) {
        this.fail(`--value ${name}: the model has no graph input "${name}" (inputs: ${g.inputs.filter((i) => !this.constants.has(i.name)).map((i) => i.name).join(', ')})`);
      }
    }
    this.checkBranches(g);
    for (const info of g.inputs) {
      if (this.constants.has(info.name)) continue; // an initializer listed as input (IR < 4): a weight
      const given = this.options.inputShapes?.[info.name];
      const valued = Object.prototype.hasOwnProperty.call(values, info.name)
        ? inputValue(info, values[info.name], given ?? this.concreteDims(info, `graph input "${info.name}"`, false), (m) => this.fail(m))
        : undefined;
      const shape = valued?.shape ?? given ?? this.concreteDims(info, `graph input "${info.name}"`, true)!;
      if (given && info.dims && given.length !== info.dims.length) {
        if (info.dims.length === 0 && given.length === 1) {
          this.fail(`--input ${info.name}=${given[0]}: "${info.name}" is a scalar (shape []) in the file, and --input gives shapes: to give its value, use --value ${info.name}=${given[0]} (API: values: { ${info.name}: ${given[0]} })`);
        }
        this.fail(`--input ${info.name}: shape has rank ${given.length}, the file declares ${dimsText(info.dims)}`);
      }
      if (!info.elemType) this.fail(`graph input "${info.name}" has no element type`);
      const v: Value = { shape, elemType: info.elemType };
      if (valued) { v.data = valued.data; this.givenInputs.add(info.name); }
      this.values.set(info.name, v);
      this.addTensor(info.name, v, `graph input "${info.name}"`);
      graphInputs.push(info.name);
    }
    this.graph(g);

    const outputs: string[] = [];
    for (const o of g.outputs) {
      const name = this.resolve(o.name);
      const v = this.values.get(name) ?? this.fail(`graph output "${o.name}" is produced by no node`);
      if (this.constants.has(name)) this.useConstant(name);
      else if (!this.tensors.has(name)) this.addTensor(name, v, `graph output "${o.name}"`);
      if (!outputs.includes(name)) outputs.push(name);
    }
    const document = (): GraphDocument => ({
      format: 'tensorplan.graph',
      version: 1,
      name: this.options.name ?? (g.name || 'onnx model'),
      tensors: [...this.tensors.values()],
      ops: this.ops,
      ...(this.aliases.length ? { aliases: [...this.aliases] } : {}),
      inputs: graphInputs,
      outputs,
      persistent: this.options.externalIO
        ? [...new Set([...this.usedConstants, ...graphInputs, ...outputs])]
        : [...this.usedConstants],
      // Constants that are graph outputs stay weights: only what the runtime receives or returns is I/O.
      ...(this.options.externalIO ? { externalIO: [...new Set([...graphInputs, ...outputs.filter((o) => !this.usedConstants.has(o))])] } : {}),
    });
    if (this.options.inPlace || this.options.runtime) this.addInPlace(this.core!, parseGraph(document(), this.options.source ?? 'model'));
    return parseGraph(document(), this.options.source ?? 'model');
  }

  private useConstant(name: string): void {
    if (this.usedConstants.has(name) || this.givenInputs.has(name)) return;
    this.usedConstants.add(name);
    this.addTensor(name, this.values.get(name)!, `constant "${name}"`);
  }

  /** A value of the enclosing graph read here: persistent in this subgraph (it lives outside its arena). */
  private useOuter(name: string): void {
    if (this.usedConstants.has(name)) return;
    this.usedConstants.add(name);
    this.addTensor(name, this.values.get(name)!, `outer value "${name}"`);
  }

  /** Every If node of the model (subgraphs included), by the name `branches` uses. */
  private ifNames(g: OnnxGraph, out: string[] = []): string[] {
    for (const n of g.nodes) {
      if (n.opType === 'If') out.push(n.name || n.outputs[0]);
      for (const a of n.attributes.values()) if (a.g) this.ifNames(a.g, out);
    }
    return out;
  }

  private checkBranches(g: OnnxGraph): void {
    const given = Object.keys(this.options.branches ?? {});
    if (!given.length) return;
    const ifs = this.ifNames(g);
    for (const name of given) {
      if (!ifs.includes(name)) {
        this.fail(`--branch ${name}=${this.options.branches![name]}: the model has no If node "${name}" (${ifs.length ? `If nodes: ${ifs.map((n) => `"${n}"`).join(', ')}` : 'it has no If nodes'})`);
      }
    }
  }

  private graph(g: OnnxGraph): void {
    const order = topologicalOrder(g.nodes);
    if (order.cycle) {
      this.fail(`nodes ${order.cycle.map((n) => this.label(n)).join(' -> ')} read each other's outputs in a cycle${order.cycle.length > 1 ? ` (back to ${this.label(order.cycle[0])})` : ''}: the graph has no order to run in`);
    }
    for (const node of order.nodes) this.node(node);
  }

  /** Known at import time: a constant (initializer, Constant, folded) or a graph input given a value. */
  private known(name: string): boolean {
    return this.constants.has(name) || this.givenInputs.has(name);
  }

  private opset(node: OnnxNode): number {
    const domain = node.domain === 'ai.onnx' ? '' : node.domain;
    return this.model.opsets.get(domain) ?? this.model.opsets.get('') ?? 1;
  }

  private label(node: OnnxNode): string {
    return `node "${node.name || node.outputs[0] || '?'}" (${node.opType})`;
  }

  private node(node: OnnxNode): void {
    this.stats.nodes += 1;
    const inputs = node.inputs.map((n) => (n === '' ? '' : this.resolve(n)));
    if (node.opType === 'Constant') return this.constantNode(node);
    if (node.opType === 'If') return this.ifNode(node, inputs);
    if (node.opType === 'Loop' && (node.domain === '' || node.domain === 'ai.onnx')) return this.loopNode(node, inputs);
    if (node.opType === 'Scan' && (node.domain === '' || node.domain === 'ai.onnx')) return this.scanNode(node, inputs);
    const values = inputs.map((n) => {
      if (n === '') return undefined;
      const v = this.values.get(n);
      if (!v) this.fail(`${this.label(node)} reads "${n}", which no node, initializer or graph input provides`);
      return v;
    });
    const opset = this.opset(node);
    if (node.domain === '' || node.domain === 'ai.onnx') {
      const mismatch = signatureMismatch(node.opType, opset, node.attributes.keys(), node.inputs);
      if (mismatch) this.fail(`${this.label(node)} at opset ${opset}: ${mismatch}`);
    }
    const live = inputs.filter((n) => n !== '');
    let outs: Value[];
    try {
      outs = inferNode({ node, inputs: values, opset });
    } catch (error) {
      if (!(error instanceof InferenceGap)) throw error;
      outs = node.outputs.map((o, k) => {
        const info = this.declared.get(o);
        const dims = info && info.elemType ? this.concreteDims(info, `output "${o}"`, false) : undefined;
        if (o === '' || !dims) {
          if (o === '' && k > 0) return { shape: [], elemType: 1 };
          const outside = live.filter((n) => this.external.has(n));
          const why = outside.length ? ` (${outside.map((n) => `"${n}"`).join(', ')} ${outside.length > 1 ? 'are' : 'is'} stored outside the file, which the importer never opens: it reads external data for shapes only)` : '';
          return this.fail(`${this.label(node)}: cannot infer the shape of output "${o}": ${error.message}${why}, and the file gives no shape for it (value_info)`, 'UNSUPPORTED');
        }
        return { shape: dims, elemType: info!.elemType! };
      });
    }
    // Shape-only ops and nodes whose inputs are all constant fold into constants.
    const shapeOnly = node.opType === 'Shape' || node.opType === 'Size';
    const foldable = shapeOnly || (live.length > 0 && live.every((n) => this.known(n)));
    node.outputs.forEach((o, k) => {
      if (o === '') return;
      const v = outs[k] ?? this.fail(`${this.label(node)}: output ${k} ("${o}") is not defined by the operator`);
      if (this.values.has(o)) this.fail(`${this.label(node)}: "${o}" is written twice`);
      this.values.set(o, v);
      this.producedBy.set(o, { label: this.label(node), reads: live });
      if (foldable) this.constants.add(o);
    });
    if (foldable) { this.stats.folded += 1; return; }

    const { opOutputs } = this.pushOp(node, live);
    if (VIEW_OPS.includes(node.opType) && live[0] && !this.constants.has(live[0]) && opOutputs[0] === node.outputs[0]) {
      this.aliases.push({ kind: 'view', tensor: node.outputs[0], base: live[0] });
      this.stats.views += 1;
    }
  }

  /** Adds the op of `node` reading `live` (constants and outer values become persistent tensors). */
  private pushOp(node: OnnxNode, live: string[], extra: Partial<GraphOp> = {}): { name: string; opOutputs: string[] } {
    const opInputs: string[] = [];
    for (const n of live) {
      if (this.constants.has(n)) this.useConstant(n);
      else if (this.outer.has(n)) this.useOuter(n);
      if (!opInputs.includes(n)) opInputs.push(n);
    }
    const opOutputs = node.outputs.filter((o) => o !== '');
    opOutputs.forEach((o) => this.addTensor(o, this.values.get(o)!, `output "${o}" of ${this.label(node)}`));
    let name = node.name || `${node.opType}_${this.ops.length}`;
    while (this.opNames.has(name)) name = `${name}_${this.ops.length}`;
    this.opNames.add(name);
    this.ops.push({ name, op: node.opType, inputs: opInputs, outputs: opOutputs, ...extra });
    if (this.options.runtime === 'ort-cpu') this.ortScratch(node, live, this.ops[this.ops.length - 1]);
    return { name, opOutputs };
  }

  /** ONNX Runtime CPU kernels' scratch (ort-cpu-rules.ts): the im2col buffer of Conv and ConvInteger. */
  private ortScratch(node: OnnxNode, live: string[], op: GraphOp): void {
    if ((node.opType !== 'Conv' && node.opType !== 'ConvInteger') || (node.domain !== '' && node.domain !== 'ai.onnx')) return;
    const x = this.values.get(live[0]), w = this.values.get(node.inputs[1] ? this.resolve(node.inputs[1]) : ''), y = this.values.get(node.outputs[0]);
    if (!x || !w || !y || x.shape.length < 3) return;
    const rank = x.shape.length - 2;
    const ints = (name: string, fallback: number[]) => {
      const a = node.attributes.get(name);
      return a && a.ints.length ? a.ints : fallback;
    };
    const autoPad = node.attributes.get('auto_pad')?.s ?? 'NOTSET';
    const kernel = ints('kernel_shape', w.shape.slice(2));
    // SAME_* pads by the kernel's extent; only a kernel of size 1 stays unpadded.
    const pads = autoPad.startsWith('SAME') ? kernel.map((k) => k - 1) : ints('pads', new Array(2 * rank).fill(0));
    // ORT's CPU Conv kernels are float (conv.cc) and double; ConvInteger's buffer holds uint8 (conv_integer.cc).
    const elementBytes = node.opType === 'ConvInteger' ? 1 : ({ 1: 4, 10: 2, 11: 8, 16: 2 } as Record<number, number>)[x.elemType];
    if (!elementBytes) return;
    const bytes = ortConvScratchBytes({
      channels: x.shape[1], group: node.attributes.get('group')?.i ?? 1, kernel, strides: ints('strides', new Array(rank).fill(1)), pads, output: y.shape.slice(2),
    }, elementBytes);
    if (bytes > 0) op.workspaceBytes = bytes;
  }

  private constantNode(node: OnnxNode): void {
    const a = [...node.attributes.values()][0] ?? this.fail(`${this.label(node)} has no value attribute`);
    let v: Value;
    if (a.name === 'value' && a.t) v = this.constantValue(a.t);
    else if (a.name === 'value_float') v = { shape: [], elemType: 1, data: [a.f ?? 0] };
    else if (a.name === 'value_floats') v = { shape: [a.floats.length], elemType: 1, data: a.floats };
    else if (a.name === 'value_int') v = { shape: [], elemType: 7, data: [a.exactI ?? 0n] };
    else if (a.name === 'value_ints') v = { shape: [a.exactInts.length], elemType: 7, data: a.exactInts };
    else return this.fail(`${this.label(node)}: constant attribute "${a.name}" is not supported`, 'UNSUPPORTED');
    this.values.set(node.outputs[0], v);
    this.constants.add(node.outputs[0]);
    this.stats.folded += 1;
  }

  private ifNode(node: OnnxNode, inputs: string[]): void {
    const cond = this.values.get(inputs[0]);
    const key = node.name || node.outputs[0];
    const known = cond?.data && cond.data.length === 1 ? (cond.data[0] ? 'then' : 'else') : undefined;
    const chosen = this.options.branches?.[key];
    if (chosen && known && chosen !== known) {
      this.fail(`--branch ${key}=${chosen}: the condition of ${this.label(node)} ("${inputs[0]}") is known at import time and selects the ${known}_branch`);
    }
    const pick = known ?? chosen;
    if (!pick) return this.ifSubgraphs(node, inputs);
    const branch = node.attributes.get(`${pick}_branch`)?.g ?? this.fail(`${this.label(node)} has no ${pick}_branch`);
    for (const t of branch.initializers) {
      this.values.set(t.name, this.constantValue(t));
      this.constants.add(t.name);
    }
    for (const info of branch.valueInfo) this.declared.set(info.name, info);
    this.graph(branch);
    if (branch.outputs.length !== node.outputs.length) {
      this.fail(`${this.label(node)}: the chosen branch has ${branch.outputs.length} outputs, the node ${node.outputs.length}`);
    }
    node.outputs.forEach((o, k) => { if (o !== '') this.rename.set(o, this.resolve(branch.outputs[k].name)); });
    this.stats.inlinedIfs += 1;
  }

  /**
   * Imports subgraph `g` of `node` on its own: a new importer whose outer reads come from this one
   * (known values stay known, so they fold; unknown ones are persistent there). `formals` are the
   * subgraph's inputs with the values the kernel feeds. `io` says where the subgraph's inputs and
   * outputs live: 'outside' (If, Scan: the enclosing op's buffers, persistent in the subgraph's
   * document) or 'arena' (Loop: the body's own frame, graph inputs and outputs of the document).
   */
  private subgraph(node: OnnxNode, attr: string, formals: Value[], io: 'outside' | 'arena'): { peak: number; outputs: Value[]; reads: string[] } {
    const g = node.attributes.get(attr)?.g ?? this.fail(`${this.label(node)} has no ${attr} attribute (a graph)`);
    const child = new Importer(this.model, this.options, this.core, this);
    const reads: string[] = [];
    for (const n of new Set(outerReads(g))) {
      const r = this.resolve(n);
      const v = this.values.get(r);
      if (!v) continue; // the child's node that reads it says which name no node provides
      if (r !== n) child.rename.set(n, r);
      child.values.set(r, v);
      if (this.known(r)) child.constants.add(r);
      else child.outer.add(r);
      if (this.external.has(r)) child.external.add(r);
      reads.push(r);
    }
    for (const t of g.initializers) {
      child.values.set(t.name, child.constantValue(t));
      child.constants.add(t.name);
      if (t.external) child.external.add(t.name);
    }
    for (const info of [...g.valueInfo, ...g.outputs]) child.declared.set(info.name, info);
    const where = `${attr} of ${this.label(node)}`;
    if (formals.length !== g.inputs.length) this.fail(`${where} has ${g.inputs.length} inputs, the node feeds it ${formals.length}`);
    g.inputs.forEach((info, k) => {
      child.values.set(info.name, formals[k]);
      child.formals.add(info.name);
      child.addTensor(info.name, formals[k], `input "${info.name}" of the ${where}`);
    });
    child.graph(g);
    const outputs: string[] = [];
    const values = g.outputs.map((o) => {
      const name = child.resolve(o.name);
      const v = child.values.get(name) ?? this.fail(`${where}: output "${o.name}" is produced by no node`);
      if (child.constants.has(name)) child.useConstant(name);
      else if (child.outer.has(name)) child.useOuter(name);
      else if (!child.tensors.has(name)) child.addTensor(name, v, `output "${o.name}" of the ${where}`);
      if (!outputs.includes(name)) outputs.push(name);
      return v;
    });
    const formalNames = g.inputs.map((i) => i.name);
    const persistent = new Set(child.usedConstants);
    if (io === 'outside') for (const n of [...formalNames, ...outputs]) persistent.add(n);
    const doc: GraphDocument = {
      format: 'tensorplan.graph',
      version: 1,
      name: `${this.options.source ?? 'model'}: ${where}`,
      tensors: [...child.tensors.values()],
      ops: child.ops,
      ...(child.aliases.length ? { aliases: [...child.aliases] } : {}),
      inputs: io === 'arena' ? formalNames : [],
      outputs,
      persistent: [...persistent],
    };
    const peak = planSubgraph(this.core!, doc, `${this.options.source ?? 'model'} (${where})`);
    this.stats.nodes += child.stats.nodes;
    this.stats.folded += child.stats.folded;
    this.stats.inlinedIfs += child.stats.inlinedIfs;
    const prefix = node.name || node.outputs[0];
    for (const s of child.subgraphs) this.subgraphs.push({ ...s, op: `${prefix}/${s.op}` });
    return { peak, outputs: values, reads };
  }

  /** Needs the core (it plans the subgraphs): the free importOnnx has none. */
  private needCore(node: OnnxNode, why: string): void {
    if (this.core) return;
    this.fail(`${this.label(node)}: ${why}; its subgraphs are planned on their own as ONNX Runtime runs them, which needs the core's planner: use tp.importOnnx(bytes, options) on a session (const tp = await init())`, 'UNSUPPORTED');
  }

  /** Adds the control-flow op: outputs as ordinary tensors, the subgraphs' outer reads as inputs, the workspace. */
  private controlOp(node: OnnxNode, live: string[], outs: Value[], entry: Omit<OnnxSubgraph, 'op' | 'opType'>): void {
    node.outputs.forEach((o, k) => {
      if (o === '') return;
      if (this.values.has(o)) this.fail(`${this.label(node)}: "${o}" is written twice`);
      this.values.set(o, outs[k]);
      this.producedBy.set(o, { label: this.label(node), reads: live });
    });
    const attributes: Record<string, string | number> = { workspaceFrom: entry.workspaceFrom };
    for (const [attr, peak] of Object.entries(entry.peaks)) attributes[`${attr.replace(/_(\w)/g, (_, c: string) => c.toUpperCase())}PeakBytes`] = peak;
    if (entry.tripCount !== undefined) attributes.tripCount = entry.tripCount;
    if (entry.temporaryBytes) attributes.temporaryBytes = entry.temporaryBytes;
    const { name } = this.pushOp(node, live, { ...(entry.workspaceBytes > 0 ? { workspaceBytes: entry.workspaceBytes } : {}), attributes });
    this.subgraphs.push({ op: name, opType: node.opType, ...entry });
  }

  /**
   * An If whose condition is not known at import time: both branches are planned on their own
   * (their outer reads and outputs outside their arenas, as ORT's IfImpl feeds and fetches them),
   * and the If op needs the larger branch's arena while it runs.
   */
  private ifSubgraphs(node: OnnxNode, inputs: string[]): void {
    const key = node.name || node.outputs[0];
    this.needCore(node, `its condition "${inputs[0]}" is not known at import time${this.whyUnknown(inputs[0])}, or choose the branch that runs with --branch ${key}=then|else (API: branches)`);
    const then = this.subgraph(node, 'then_branch', [], 'outside');
    const other = this.subgraph(node, 'else_branch', [], 'outside');
    const outs = ifOutputs(then.outputs, other.outputs, this.opset(node), node.outputs,
      (m) => this.fail(`${this.label(node)}: ${m}`));
    if (outs.length !== node.outputs.length) this.fail(`${this.label(node)}: its branches have ${outs.length} outputs, the node ${node.outputs.length}`);
    const live = [...new Set([inputs[0], ...then.reads, ...other.reads])];
    const from = then.peak >= other.peak ? 'then_branch' : 'else_branch';
    this.controlOp(node, live, outs, {
      workspaceBytes: Math.max(then.peak, other.peak), workspaceFrom: from, peaks: { then_branch: then.peak, else_branch: other.peak },
    });
  }

  /** A scalar integer input's value (a trip count), or why it is not known. */
  private countOf(name: string): number | undefined {
    const v = this.values.get(name);
    if (!v?.data || v.data.length !== 1) return undefined;
    const n = v.data[0];
    return typeof n === 'bigint' ? (n < 0n ? 0 : n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n)) : Math.max(0, Number(n));
  }

  /**
   * Loop: the body is planned on its own (its inputs and outputs in its arena: ORT's body frame
   * allocates them and feeds one iteration's carried outputs to the next); the op's workspace is the
   * body's arena plus the earlier iterations' scan outputs ORT keeps until it concatenates them.
   * The final carried values are ordinary tensors; the scan outputs are [trip count, ...per iteration].
   */
  private loopNode(node: OnnxNode, inputs: string[]): void {
    const [m = '', cond = ''] = inputs;
    const carried = inputs.slice(2);
    const body = node.attributes.get('body')?.g ?? this.fail(`${this.label(node)} has no body attribute (a graph)`);
    const scanOutputs = body.outputs.length - 1 - carried.length;
    if (scanOutputs < 0) this.fail(`${this.label(node)}: its body has ${body.outputs.length} outputs, fewer than 1 + ${carried.length} loop-carried values`);
    const condValue = cond ? this.values.get(cond) : undefined;
    const stops = condValue?.data?.length === 1 && !condValue.data[0];
    let trip = m ? this.countOf(m) : undefined;
    if (stops) trip = 0;
    this.needCore(node, 'a Loop is planned with its body');
    if (trip === undefined && scanOutputs > 0) {
      const sized = node.outputs.slice(carried.length).filter((o) => o !== '').map((o) => `"${o}"`).join(', ');
      const what = `its scan output${scanOutputs > 1 ? 's' : ''} ${sized} (trip count x the per-iteration shape) cannot be sized`;
      this.fail(m
        ? `${this.label(node)}: its trip count (input 0, "${m}") is not known at import time, so ${what}${this.whyUnknown(m, 'to set the trip count at import time')}`
        : `${this.label(node)}: it has no trip count (input 0, "M", is empty): it runs until its condition turns false, which is not known at import time, so ${what}`, 'UNSUPPORTED');
    }
    if (trip !== undefined && trip > 2 ** 31 && scanOutputs > 0) {
      this.fail(`${this.label(node)}: its trip count (input 0, "${m}") is ${trip}, a bound rather than a count (a while loop that stops on its condition), so its scan outputs cannot be sized; give the real count with --value if "${m}" depends on a graph input`, 'UNSUPPORTED');
    }
    const declaredIter = body.inputs[0]?.dims;
    const formals: Value[] = [
      { shape: declaredIter && declaredIter.length === 1 ? [1] : [], elemType: 7 },
      { shape: body.inputs[1]?.dims?.length === 1 ? [1] : [], elemType: 9 },
      ...carried.map((n) => {
        const v = this.values.get(n) ?? this.fail(`${this.label(node)} reads "${n}", which no node, initializer or graph input provides`);
        return { shape: [...v.shape], elemType: v.elemType };
      }),
    ];
    const sub = this.subgraph(node, 'body', formals, 'arena');
    carried.forEach((n, k) => {
      const a = formals[2 + k], b = sub.outputs[1 + k];
      if (a.elemType !== b.elemType || a.shape.length !== b.shape.length || a.shape.some((d, i) => d !== b.shape[i])) {
        this.fail(`${this.label(node)}: loop-carried value ${k} ("${n}") goes in as [${a.shape.join(',')}] and comes out of the body as [${b.shape.join(',')}]: its shape changes across iterations, so its final shape is not known at import time`, 'UNSUPPORTED');
      }
    });
    const perIteration = sub.outputs.slice(1 + carried.length);
    const outs: Value[] = [
      ...carried.map((_, k) => ({ shape: [...formals[2 + k].shape], elemType: formals[2 + k].elemType })),
      ...perIteration.map((v) => ({ shape: [trip!, ...v.shape], elemType: v.elemType })),
    ];
    const temporary = trip === undefined ? 0 : loopTemporaryBytes(trip, perIteration);
    const runs = trip !== 0;
    this.controlOp(node, [...new Set([...inputs.filter((n) => n !== ''), ...sub.reads])], outs, {
      workspaceBytes: runs ? sub.peak + temporary : 0, workspaceFrom: 'body', peaks: { body: sub.peak },
      ...(trip !== undefined ? { tripCount: trip } : {}), temporaryBytes: runs ? temporary : 0,
    });
  }

  /**
   * Scan (opset 9 on): the body is planned on its own (its inputs and outputs outside its arena: ORT
   * feeds slices of the scan inputs and writes into slices of the scan outputs); the op's workspace
   * is the body's arena plus ORT's state buffers and transposes. The trip count is the scan
   * inputs' length along their axis.
   */
  private scanNode(node: OnnxNode, inputs: string[]): void {
    const opset = this.opset(node);
    if (opset < 9) this.fail(`${this.label(node)}: Scan-8 (sequence_lens and a batch axis) is not planned; re-export the model at opset 9 or later`, 'UNSUPPORTED');
    this.needCore(node, 'a Scan is planned with its body');
    const m = node.attributes.get('num_scan_inputs')?.i ?? this.fail(`${this.label(node)} has no num_scan_inputs attribute`);
    const n = inputs.length - m;
    if (n < 0) this.fail(`${this.label(node)}: num_scan_inputs = ${m}, but the node has ${inputs.length} inputs`);
    const valueOf = (name: string) => this.values.get(name) ?? this.fail(`${this.label(node)} reads "${name}", which no node, initializer or graph input provides`);
    const states = inputs.slice(0, n).map(valueOf);
    const inAxes = node.attributes.get('scan_input_axes')?.ints ?? [];
    let length: number | undefined;
    const transposedInputs: Value[] = [];
    const slices = inputs.slice(n).map((name, k) => {
      const v = valueOf(name);
      const axis = normalAxis(inAxes[k] ?? 0, v.shape.length)
        ?? this.fail(`${this.label(node)}: scan_input_axes[${k}] = ${inAxes[k]} is out of range for scan input "${name}" of shape [${v.shape.join(',')}]`);
      if (length !== undefined && v.shape[axis] !== length) {
        this.fail(`${this.label(node)}: scan input "${name}" is ${v.shape[axis]} long on axis ${axis}, the first scan input ${length}`);
      }
      length = v.shape[axis];
      if (axis !== 0) transposedInputs.push(v);
      return { shape: v.shape.filter((_, i) => i !== axis), elemType: v.elemType };
    });
    const trip = length ?? 0;
    const sub = this.subgraph(node, 'body', [...states.map((v) => ({ shape: [...v.shape], elemType: v.elemType })), ...slices], 'outside');
    states.forEach((a, k) => {
      const b = sub.outputs[k];
      if (!b || a.elemType !== b.elemType || a.shape.length !== b.shape.length || a.shape.some((d, i) => d !== b.shape[i])) {
        this.fail(`${this.label(node)}: state variable ${k} ("${inputs[k]}") goes in as [${a.shape.join(',')}] and comes out of the body as [${b?.shape.join(',') ?? ''}]: Scan's states keep their shape`);
      }
    });
    const outAxes = node.attributes.get('scan_output_axes')?.ints ?? [];
    const transposedOutputs: Value[] = [];
    const scanOuts = sub.outputs.slice(n).map((v, k) => {
      const rank = v.shape.length + 1;
      const axis = normalAxis(outAxes[k] ?? 0, rank)
        ?? this.fail(`${this.label(node)}: scan_output_axes[${k}] = ${outAxes[k]} is out of range for a scan output of rank ${rank}`);
      const out = { shape: [...v.shape.slice(0, axis), trip, ...v.shape.slice(axis)], elemType: v.elemType };
      if (axis !== 0) transposedOutputs.push(out);
      return out;
    });
    const temporary = trip === 0 ? 0 : scanTemporaryBytes(trip, states, transposedInputs, transposedOutputs);
    this.controlOp(node, [...new Set([...inputs.filter((x) => x !== ''), ...sub.reads])], [...states, ...scanOuts], {
      workspaceBytes: trip === 0 ? 0 : sub.peak + temporary, workspaceFrom: 'body', peaks: { body: sub.peak }, tripCount: trip, temporaryBytes: temporary,
    });
  }

  /**
   * Why a value is not known: the graph inputs it depends on (which `--value` sets), or the
   * nodes the evaluator does not compute although their inputs are known. In a subgraph, values
   * read from the enclosing graphs are followed there.
   */
  private whyUnknown(name: string, purpose = 'to choose the branch at import time'): string {
    const inputs: string[] = [], stuck: string[] = [];
    this.dependsOn(name, inputs, stuck, new Set());
    const names = [...new Set(inputs)].sort();
    if (names.length) {
      const example = names.map((i) => `--value ${i}=V`).join(' ');
      return `: it depends on graph input${names.length > 1 ? 's' : ''} ${names.map((i) => `"${i}"`).join(', ')}; give ${names.length > 1 ? 'their values' : 'its value'} with ${example} (API: values) ${purpose}`;
    }
    if (stuck.length) return `: it is computed by ${stuck.join(', ')}, which the importer does not evaluate`;
    return '';
  }

  private dependsOn(name: string, inputs: string[], stuck: string[], seen: Set<string>): void {
    const stack = [name];
    while (stack.length) {
      const n = stack.pop()!;
      if (seen.has(n)) continue;
      seen.add(n);
      const p = this.producedBy.get(n);
      if (!p) {
        if (this.outer.has(n) && this.parent) this.parent.dependsOn(n, inputs, stuck, seen);
        else if (this.tensors.has(n) && !this.formals.has(n) && !this.values.get(n)?.data) inputs.push(n);
        continue;
      }
      if (p.reads.every((r) => this.values.get(r)?.data) && !this.values.get(n)?.data) stuck.push(p.label);
      stack.push(...p.reads);
    }
  }

  /**
   * In-place aliases for element-wise ops whose same-sized input storage dies at the op. Which ops
   * may write in place is an ONNX fact (IN_PLACE_OPS); the rule (last use, views, pinned storages,
   * chains of writes) and the `after` edges that order readers of the overwritten storage's views
   * are the core's (tp_graph_in_place). Graph inputs, outputs and used constants (persistent) are
   * never overwritten.
   */
  private addInPlace(core: CoreBinding, doc: GraphDocument): void {
    // With a runtime, its kernels' MayInplace registrations decide which ops may write in place.
    const candidate = (op: GraphOp) => {
      if (this.options.runtime !== 'ort-cpu') return IN_PLACE_OPS.has(op.op ?? '');
      const dtype = this.tensors.get(op.outputs[0])?.dtype;
      return dtype !== undefined && (ORT_CPU_MAY_INPLACE.get(op.op ?? '')?.includes(dtype) ?? false);
    };
    const answer = graphInPlace(core, doc, this.ops.map(candidate));
    this.ops.forEach((op, i) => {
      const input = answer.input[i];
      if (input === undefined) return;
      if (answer.after[i].length) op.after = [...new Set([...(op.after ?? []), ...answer.after[i]])];
      this.aliases.push({ kind: 'inPlace', output: op.outputs[0], input });
      this.stats.inPlace += 1;
    });
  }
}

/** Checks every field of the import options (issue #14: named, not a TypeError deep in the importer). */
function checkImportOptions(options: OnnxImportOptions): OnnxImportOptions {
  const bad = (field: string, value: unknown, rule: string): never => {
    throw new TensorplanError('INVALID_ARGUMENT', `options.${field} = ${shown(value)}: must be ${rule}`);
  };
  for (const field of ['name', 'source'] as const) {
    if (options[field] !== undefined && typeof options[field] !== 'string') bad(field, options[field], 'a string');
  }
  if (options.inPlace !== undefined && typeof options.inPlace !== 'boolean') bad('inPlace', options.inPlace, 'true or false');
  if (options.externalIO !== undefined && typeof options.externalIO !== 'boolean') bad('externalIO', options.externalIO, 'true or false');
  if (options.runtime !== undefined && !(RUNTIMES as readonly unknown[]).includes(options.runtime)) bad('runtime', options.runtime, `one of ${RUNTIMES.map((r) => `'${r}'`).join(', ')}`);
  const record = (field: 'inputShapes' | 'dims' | 'bindings', value: unknown, list: boolean) => {
    if (value === undefined) return;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) bad(field, value, 'an object by name');
    for (const [name, item] of Object.entries(value as object)) {
      const items: unknown[] = list ? (Array.isArray(item) ? item : bad(`${field}.${name}`, item, 'an array of dimensions')) : [item];
      items.forEach((d, i) => {
        if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 0) bad(`${field}.${name}${list ? `[${i}]` : ''}`, d, 'an integer >= 0');
      });
    }
  };
  record('inputShapes', options.inputShapes, true);
  record('dims', options.dims, false);
  record('bindings', options.bindings, true);
  if (options.branches !== undefined) {
    const branches: unknown = options.branches;
    if (branches === null || typeof branches !== 'object' || Array.isArray(branches)) bad('branches', branches, "an object by If node name");
    for (const [name, v] of Object.entries(branches as object)) if (v !== 'then' && v !== 'else') bad(`branches.${name}`, v, "'then' or 'else'");
  }
  if (options.values !== undefined) {
    const values: unknown = options.values;
    if (values === null || typeof values !== 'object' || Array.isArray(values)) bad('values', values, 'an object by input name');
    for (const [name, item] of Object.entries(values as object)) {
      const items: unknown[] = Array.isArray(item) ? item : [item];
      if (Array.isArray(item) && item.length === 0) bad(`values.${name}`, item, 'a value or a non-empty array of values');
      items.forEach((v, i) => {
        const ok = typeof v === 'bigint' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
        if (!ok) bad(`values.${name}${Array.isArray(item) ? `[${i}]` : ''}`, v, 'a finite number, a bigint or a boolean');
      });
    }
  }
  return options;
}

/**
 * Reads an ONNX model (the bytes of a .onnx file) into a graph document. `inPlace` needs the core,
 * which decides the in-place writes: use `tp.importOnnx` (a session) for it; here it is an
 * INVALID_ARGUMENT error. Node entry only (the browser bundle has no ONNX importer).
 *
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * import { importOnnx } from 'tensorplan';
 *
 * // No session needed: model.onnx has input x [N, 3, 8, 8]; dims binds its symbolic dimension.
 * const { graph, producer, opset } = importOnnx(readFileSync('model.onnx'), { dims: { N: 8 } });
 * // graph.tensors.find((t) => t.name === 'y').shape.join('x') === '8x10'
 * // opset === 17
 * ```
 *
 * @group Files
 */
export function importOnnx(bytes: Uint8Array, options?: OnnxImportOptions): OnnxImportResult {
  return guarded('importOnnx', [bytes, options], () => importOnnxChecked(bytes, optionsObject(options, 'options')));
}

function importOnnxChecked(bytes: Uint8Array, options: OnnxImportOptions): OnnxImportResult {
  if (options.runtime !== undefined && (RUNTIMES as readonly unknown[]).includes(options.runtime)) {
    throw new TensorplanError('INVALID_ARGUMENT', `${options.source ?? 'model'}: runtime: '${options.runtime}' needs the core, which decides the in-place writes: use tp.importOnnx(bytes, options) on a session (const tp = await init())`);
  }
  if (options.inPlace) {
    throw new TensorplanError('INVALID_ARGUMENT', `${options.source ?? 'model'}: inPlace: true needs the core, which decides the in-place writes: use tp.importOnnx(bytes, options) on a session (const tp = await init())`);
  }
  return importOnnxWith(undefined, bytes, options);
}

/** {@link importOnnx} with a core, which `inPlace` needs (`tp.importOnnx` calls this). */
export function importOnnxWith(core: CoreBinding | undefined, bytes: Uint8Array, given?: OnnxImportOptions): OnnxImportResult {
  const options = checkImportOptions(optionsObject(given, 'options'));
  if (!(bytes instanceof Uint8Array) || isDetached(bytes)) {
    throw new TensorplanError('INVALID_ARGUMENT', `${options.source ?? 'model'}: bytes = ${shown(bytes)}: must be the bytes of an .onnx file (a Uint8Array${bytes instanceof Uint8Array ? ' whose buffer is not detached' : ''})`);
  }
  if ((options.inPlace || options.runtime) && !core) {
    throw new TensorplanError('INVALID_ARGUMENT', `${options.source ?? 'model'}: ${options.runtime ? `runtime: '${options.runtime}'` : 'inPlace: true'} needs a core: use tp.importOnnx(bytes, options)`);
  }
  let model: OnnxModel;
  try {
    model = decodeOnnxModel(bytes);
  } catch (error) {
    if (error instanceof TensorplanError) throw error;
    throw new TensorplanError('INVALID_ARGUMENT', `${options.source ?? 'model'}: not a readable ONNX file: ${(error as Error).message}`);
  }
  const importer = new Importer(model, options, core);
  const graph = importer.run();
  return { graph, opset: model.opsets.get('') ?? 1, producer: model.producer, ...importer.stats, subgraphs: importer.subgraphs };
}
