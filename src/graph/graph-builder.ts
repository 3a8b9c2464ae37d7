import type { DType } from '../formats/dtype.js';
import type { GraphAlias, GraphDocument, GraphOp, GraphTensor } from './graph-document.js';
import { parseGraph } from './parse-graph.js';

/**
 * Size of a tensor for {@link GraphBuilder.tensor}: bytes, or shape and dtype.
 *
 * @group Files
 */
export type TensorSize = { bytes: number; alignment?: number } | { shape: number[]; dtype: DType; alignment?: number };

/**
 * Builds a graph in code. Each method returns the name it was given, so calls
 * compose; `build()` checks the result exactly as a graph file is checked.
 *
 * @example
 * ```ts
 * import { GraphBuilder } from 'tensorplan';
 *
 * const g = new GraphBuilder('mlp');
 * const x = g.input('x', { shape: [8, 1024], dtype: 'bf16' });
 * const w = g.persistent('w', { shape: [1024, 1024], dtype: 'bf16' });
 * const y = g.tensor('y', { shape: [8, 1024], dtype: 'bf16' });
 * g.op('mm', 'matmul', [x, w], [y]);
 * g.output(y);
 * const graph = g.build();                  // a graph file (format v1) as an object
 * // graph.format === 'tensorplan.graph'
 * // graph.tensors.length === 3
 * ```
 *
 * @group Files
 */
export class GraphBuilder {
  private readonly tensors: GraphTensor[] = [];
  private readonly ops: GraphOp[] = [];
  private readonly aliases: GraphAlias[] = [];
  private readonly inputs: string[] = [];
  private readonly outputs: string[] = [];
  private readonly persistents: string[] = [];

  constructor(private readonly name?: string, private readonly defaultAlignment?: number) {}

  /** Adds a tensor. */
  tensor(name: string, size: TensorSize): string {
    this.tensors.push({ name, ...size });
    return name;
  }

  /** Adds a tensor that exists before the first step. */
  input(name: string, size: TensorSize): string {
    this.inputs.push(this.tensor(name, size));
    return name;
  }

  /** Adds a persistent tensor (a weight, optimizer state). */
  persistent(name: string, size: TensorSize): string {
    this.persistents.push(this.tensor(name, size));
    return name;
  }

  /** Marks an existing tensor as a graph output (it survives the last step). */
  output(name: string): string {
    this.outputs.push(name);
    return name;
  }

  /** Adds an op. */
  op(name: string, type: string, inputs: string[], outputs: string[], options: { workspaceBytes?: number; after?: string[] } = {}): string {
    this.ops.push({ name, op: type, inputs, outputs, ...options });
    return name;
  }

  /** Declares `tensor` a view of `base` at `offset` bytes. */
  view(tensor: string, base: string, offset = 0): string {
    this.aliases.push({ kind: 'view', tensor, base, offset });
    return tensor;
  }

  /** Declares that `output` is written into `input`'s storage. */
  inPlace(output: string, input: string): string {
    this.aliases.push({ kind: 'inPlace', output, input });
    return output;
  }

  /** Declares that the tensors share one bulk allocation, in this order. */
  group(members: string[]): void {
    this.aliases.push({ kind: 'group', members });
  }

  /** The graph document; throws a TensorplanError naming the first problem. */
  build(): GraphDocument {
    const graph: GraphDocument = {
      format: 'tensorplan.graph',
      version: 1,
      ...(this.name !== undefined ? { name: this.name } : {}),
      ...(this.defaultAlignment !== undefined ? { defaultAlignment: this.defaultAlignment } : {}),
      tensors: this.tensors,
      ops: this.ops,
      aliases: this.aliases,
      inputs: this.inputs,
      outputs: this.outputs,
      persistent: this.persistents,
    };
    // Checked before it is copied: what the schema refuses (a BigInt, a detached
    // buffer, nesting deeper than the stack) is named by parseGraph, and the copy cannot fail.
    return structuredClone(parseGraph(graph, typeof this.name === 'string' ? this.name : 'graph'));
  }
}
