// The importer's state and its primitives: the values it knows, the tensors, ops and aliases of
// the graph it builds, and how a node becomes an op. What walks the nodes (importer.ts) and what
// plans subgraphs (subgraph-import.ts) build on this; `graph` and `child` are theirs.
import type { CoreBinding } from '../../abi/core-binding.js';
import type { DType } from '../../formats/dtype.js';
import { TensorplanError } from '../../errors.js';
import type { GraphAlias, GraphOp, GraphTensor } from '../../graph/graph-document.js';
import type { Value } from './onnx-infer.js';
import { ONNX_DTYPES, elemTypeName } from './onnx-model.js';
import type { OnnxGraph, OnnxModel, OnnxNode, OnnxTensor, OnnxValueInfo } from './onnx-model.js';
import type { OnnxSubgraph } from './control-flow.js';
import type { OnnxImportOptions } from './import-options.js';
import { ortCpuScratchBytes } from './ort-cpu-rules.js';

export const dimsText = (shape: readonly (number | string | undefined)[]) => `[${shape.map((d) => d ?? '?').join(',')}]`;

/** What one importer (the model's graph, or one subgraph) knows and builds. */
export abstract class ImportState {
  readonly values = new Map<string, Value>();
  /** Constant values (initializers, Constant nodes, folded nodes): persistent when used. */
  readonly constants = new Set<string>();
  readonly declared = new Map<string, OnnxValueInfo>();
  readonly rename = new Map<string, string>();
  readonly tensors = new Map<string, GraphTensor>();
  readonly ops: GraphOp[] = [];
  readonly aliases: GraphAlias[] = [];
  readonly opNames = new Set<string>();
  readonly usedConstants = new Set<string>();
  /** Graph inputs given a value: known at import time, but graph inputs (never persistent). */
  readonly givenInputs = new Set<string>();
  /** Initializers whose data is stored outside the file (never opened): shapes only. */
  readonly external = new Set<string>();
  /** For each node output: the node's label and the names it read (to explain an unknown If condition). */
  readonly producedBy = new Map<string, { label: string; reads: string[] }>();
  readonly stats = { nodes: 0, folded: 0, views: 0, inPlace: 0, inlinedIfs: 0 };
  readonly subgraphs: OnnxSubgraph[] = [];
  /**
   * In a subgraph: values read from the enclosing graphs that are not known at import time. They
   * live in the enclosing graph's memory (ORT passes them as feeds), so here they are persistent
   * (outside the subgraph's arena), and the enclosing op lists them as inputs.
   */
  readonly outer = new Set<string>();
  /** In a subgraph: its own inputs (an iteration number, loop-carried values), fed by the kernel. */
  readonly formals = new Set<string>();

  readonly options: OnnxImportOptions;

  constructor(readonly model: OnnxModel, options: OnnxImportOptions, readonly core?: CoreBinding,
    readonly parent?: ImportState) {
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

  fail(message: string, code: 'INVALID_ARGUMENT' | 'UNSUPPORTED' = 'INVALID_ARGUMENT'): never {
    throw new TensorplanError(code, `${this.options.source ?? 'model'}: ${message}`);
  }

  resolve(name: string): string {
    let n = name;
    while (this.rename.has(n)) n = this.rename.get(n)!;
    return n;
  }

  /** How the planner sizes elements of `elemType`: a core dtype, bytes per element, or bits per packed element. */
  dtypeOf(elemType: number, what: string): { dtype?: DType; elementBytes?: number; elementBits?: number } {
    const t = ONNX_DTYPES[elemType];
    if (!t) this.fail(`${what}: ${elemTypeName(elemType)} is not an element type the importer knows`, 'UNSUPPORTED');
    if (t.dtype) return { dtype: t.dtype };
    if (t.bytes) return { elementBytes: t.bytes };
    if (t.bits) return { elementBits: t.bits };
    return this.fail(`${what}: element type ${t.name} has no fixed size and cannot be planned`, 'UNSUPPORTED');
  }

  addTensor(name: string, v: Value, what: string): void {
    if (this.tensors.has(name)) return;
    const { dtype, elementBytes, elementBits } = this.dtypeOf(v.elemType, what);
    const count = v.shape.reduce((a, b) => a * b, 1);
    this.tensors.set(name, dtype
      ? { name, shape: [...v.shape], dtype }
      : { name, bytes: elementBits ? Math.ceil((count * elementBits) / 8) : count * elementBytes! });
  }

  private overridden?: boolean;

  /** True when a graph input's shape given in the options differs from a concrete shape the file declares for it. */
  inputsOverridden(): boolean {
    this.overridden ??= this.model.graph.inputs.some((info) => {
      const given = this.options.inputShapes?.[info.name];
      if (!given || !info.dims) return false;
      return given.length !== info.dims.length || info.dims.some((d, k) => typeof d === 'number' && d !== given[k]);
    });
    return this.overridden;
  }

  /** A declared shape with symbols bound; undefined when some dimension stays unknown. */
  concreteDims(info: OnnxValueInfo, what: string, strict: boolean): number[] | undefined {
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

  constantValue(t: OnnxTensor): Value {
    return { shape: t.dims, elemType: t.dataType, ...(t.values ? { data: t.values } : {}) };
  }


  useConstant(name: string): void {
    if (this.usedConstants.has(name) || this.givenInputs.has(name)) return;
    this.usedConstants.add(name);
    this.addTensor(name, this.values.get(name)!, `constant "${name}"`);
  }

  /** A value of the enclosing graph read here: persistent in this subgraph (it lives outside its arena). */
  useOuter(name: string): void {
    if (this.usedConstants.has(name)) return;
    this.usedConstants.add(name);
    this.addTensor(name, this.values.get(name)!, `outer value "${name}"`);
  }


  /** Known at import time: a constant (initializer, Constant, folded) or a graph input given a value. */
  known(name: string): boolean {
    return this.constants.has(name) || this.givenInputs.has(name);
  }

  opset(node: OnnxNode): number {
    const domain = node.domain === 'ai.onnx' ? '' : node.domain;
    return this.model.opsets.get(domain) ?? this.model.opsets.get('') ?? 1;
  }

  label(node: OnnxNode): string {
    return `node "${node.name || node.outputs[0] || '?'}" (${node.opType})`;
  }

  /** Adds the op of `node` reading `live` (constants and outer values become persistent tensors). */
  pushOp(node: OnnxNode, live: string[], extra: Partial<GraphOp> = {}): { name: string; opOutputs: string[] } {
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
    if (this.options.runtime === 'ort-cpu') {
      const op = this.ops[this.ops.length - 1];
      const input = (k: number) => this.values.get(node.inputs[k] ? this.resolve(node.inputs[k]) : '');
      const bytes = ortCpuScratchBytes(node, input(0), input(1), this.values.get(node.outputs[0]), this.options.ortThreads);
      if (bytes > 0) op.workspaceBytes = bytes;
    }
    return { name, opOutputs };
  }

  /** Imports the nodes of `g` (sorted) into this state. */
  abstract graph(g: OnnxGraph): void;

  /** A new importer for a subgraph of this one (its `parent`). */
  abstract child(): ImportState;
}
