// The importer: walks a graph's nodes in order and makes each an op, a folded constant, a view or
// an inlined branch. Its state and primitives are ImportState's (import-state.ts); control flow is
// subgraph-import.ts, in-place writes in-place-writes.ts, graph I/O outside the arena external-io.ts.
import type { CoreBinding } from '../../abi/core-binding.js';
import type { GraphDocument } from '../../graph/graph-document.js';
import { parseGraph } from '../../graph/parse-graph.js';
import { InferenceGap, inferNode } from './onnx-infer.js';
import { signatureMismatch } from './onnx-signatures.js';
import type { Value } from './onnx-infer.js';
import type { OnnxGraph, OnnxModel, OnnxNode } from './onnx-model.js';
import { topologicalOrder } from './node-order.js';
import { inputValue } from './input-values.js';
import type { OnnxImportOptions } from './import-options.js';
import { ImportState, dimsText } from './import-state.js';
import { checkBranches, ifNode, loopNode, scanNode } from './subgraph-import.js';
import { addInPlace } from './in-place-writes.js';
import { persistentAndIO } from './external-io.js';
import { whyUnknown } from './unknown-values.js';

/**
 * Ops whose output is a view (same bytes, new shape) of input 0.
 *
 * @group Files
 */
export const VIEW_OPS: readonly string[] = ['Reshape', 'Squeeze', 'Unsqueeze', 'Flatten', 'Identity'];

/** Ops whose outputs are random (onnx 1.23.1 Operators.md: the Random* ops, Bernoulli, Multinomial): never folded. */
const RANDOM_OPS: readonly string[] = ['RandomNormal', 'RandomNormalLike', 'RandomUniform', 'RandomUniformLike', 'Bernoulli', 'Multinomial'];

export class Importer extends ImportState {
  constructor(model: OnnxModel, options: OnnxImportOptions, core?: CoreBinding, parent?: ImportState) {
    super(model, options, core, parent);
  }

  child(): ImportState {
    return new Importer(this.model, this.options, this.core, this);
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
    checkBranches(this, g);
    for (const info of g.inputs) {
      if (this.constants.has(info.name)) continue; // an initializer listed as input (IR < 4): a weight
      if (info.nonTensor) this.fail(nonTensorInput(info.name, info.nonTensor), 'UNSUPPORTED');
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
      ...persistentAndIO(this.options.externalIO ?? false, this.usedConstants, graphInputs, outputs),
    });
    if (this.options.inPlace || this.options.runtime) addInPlace(this, this.core!, parseGraph(document(), this.options.source ?? 'model'));
    return parseGraph(document(), this.options.source ?? 'model');
  }

  graph(g: OnnxGraph): void {
    const order = topologicalOrder(g.nodes);
    if (order.cycle) {
      this.fail(`nodes ${order.cycle.map((n) => this.label(n)).join(' -> ')} read each other's outputs in a cycle${order.cycle.length > 1 ? ` (back to ${this.label(order.cycle[0])})` : ''}: the graph has no order to run in`);
    }
    for (const node of order.nodes) this.node(node);
  }

  node(node: OnnxNode): void {
    this.stats.nodes += 1;
    const inputs = node.inputs.map((n) => (n === '' ? '' : this.resolve(n)));
    if (node.opType === 'Constant') return this.constantNode(node);
    if (node.opType === 'If') return ifNode(this, node, inputs);
    if (node.opType === 'Loop' && (node.domain === '' || node.domain === 'ai.onnx')) return loopNode(this, node, inputs);
    if (node.opType === 'Scan' && (node.domain === '' || node.domain === 'ai.onnx')) return scanNode(this, node, inputs);
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
          if (info?.nonTensor) {
            return this.fail(`${this.label(node)}: output "${o}" is ${info.nonTensor} in the file, not a tensor: the importer plans tensors only (${error.message})`, 'UNSUPPORTED');
          }
          const outside = live.filter((n) => this.external.has(n));
          const why = outside.length ? ` (${outside.map((n) => `"${n}"`).join(', ')} ${outside.length > 1 ? 'are' : 'is'} stored outside the file, which the importer never opens: it reads external data for shapes only)` : '';
          const source = error.input !== undefined ? inputs[error.input] : '';
          const unknown = source ? whyUnknown(this, source, 'so that the shape can be inferred') : '';
          return this.fail(`${this.label(node)}: cannot infer the shape of output "${o}": ${error.message}${unknown}${why}, and the file gives no shape for it (value_info)`, 'UNSUPPORTED');
        }
        return { shape: dims, elemType: info!.elemType! };
      });
    }
    // Shape-only ops and nodes whose inputs are all constant fold into constants.
    this.checkDeclared(node, outs);
    // Random ops and a Dropout in training mode give another value each run: they stay ops.
    const shapeOnly = node.opType === 'Shape' || node.opType === 'Size';
    const varies = RANDOM_OPS.includes(node.opType) || outs.some((v) => v.varies);
    const foldable = shapeOnly || (!varies && live.length > 0 && live.every((n) => this.known(n)));
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

  /**
   * The shapes inferred for a node's outputs against those the file declares (value_info, graph
   * outputs): where both are concrete and differ, one of them is wrong, and a plan sized by the
   * wrong one would not hold the tensor, so the import stops and names both. Shapes given with
   * --input that differ from the file's own describe another model instance: the file's value_info
   * then describe the old shapes, and the check is left out.
   */
  checkDeclared(node: OnnxNode, outs: Value[]): void {
    if (this.inputsOverridden()) return;
    node.outputs.forEach((o, k) => {
      const info = o ? this.declared.get(o) : undefined;
      const v = outs[k];
      // A bounded output (NonZero, Unique ...: an upper bound, not the shape) is not compared here.
      if (!info?.dims || !v || info.nonTensor || (v as { bound?: string }).bound) return;
      const declared = this.concreteDims(info, `output "${o}"`, false);
      if (!declared || declared.join(',') === v.shape.join(',')) return;
      this.fail(`${this.label(node)}: output "${o}" is declared ${dimsText(info.dims)}${info.dims.some((d) => typeof d !== 'number') ? ` (= ${dimsText(declared)})` : ''} in the file, `
        + `and the operator's definition gives ${dimsText(v.shape)} from its inputs: the file contradicts itself, and a plan sized by the wrong shape would not hold the tensor`);
    });
  }

  constantNode(node: OnnxNode): void {
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
}

/**
 * Why a graph input that is not a tensor cannot be imported. `--input` and `--value` describe
 * tensors (a shape, elements), and the planned graph has tensors only: a sequence, an optional, a
 * map or a sparse tensor has no shape either could give.
 */
function nonTensorInput(name: string, type: string): string {
  const kind = type.startsWith('seq(') ? 'a sequence' : type.startsWith('optional(') ? 'an optional' : type.startsWith('map(') ? 'a map' : type.startsWith('sparse_tensor(') ? 'a sparse tensor' : 'not a tensor';
  return `graph input "${name}" is ${type} (${kind}): the importer plans tensors only, so neither --input nor --value can describe it; `
    + 'export the model with tensor inputs (for an optional input: the tensor itself, or no input)';
}
