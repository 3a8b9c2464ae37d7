// The graph document a layer graph is written into: tensors, ops, aliases
// (views, in-place writes, groups), inputs, outputs and persistent tensors, in
// the order the module builders add them. Names are unique by construction;
// parseGraph checks the result (graph format v1, docs/graph-format.md).
import type { TensorSize } from '../../../graph/graph-builder.js';
import type { GraphAlias, GraphDocument, GraphOp, GraphTensor } from '../../../graph/graph-document.js';
import { parseGraph } from '../../../graph/parse-graph.js';

/** The graph being written. */
export class GraphWriter {
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
