import type { DType } from '../formats/dtype.js';

/**
 * A tensor of a graph. Give its size either as `bytes`, or as `shape` and
 * `dtype` (the core computes the bytes, FP4 packing included).
 *
 * @group Files
 */
export interface GraphTensor {
  /** Unique within the graph; ops and aliases refer to tensors by name. */
  name: string;
  bytes?: number;
  shape?: number[];
  dtype?: DType;
  /** Power of two; default: the graph's `defaultAlignment` (256, the CUDA caching allocator's granularity). */
  alignment?: number;
}

/**
 * An op: reads `inputs`, writes `outputs`, and may need scratch `workspaceBytes` while it runs.
 *
 * @group Files
 */
export interface GraphOp {
  /** Unique within the graph. */
  name: string;
  /** Free-form type ("matmul", "Conv", "aten.add"): reported, never interpreted by the planner. */
  op: string;
  inputs: string[];
  outputs: string[];
  workspaceBytes?: number;
  /** Ops that must run before this one although no tensor says so (control dependencies). */
  after?: string[];
  /**
   * What the executors need to run the op (op set v1, docs/op-set.md), e.g.
   * `{ transposeB: true }` for a matmul or `{ recipe: 'mxfp8' }` for a quantize.
   * The planner ignores it.
   */
  attributes?: Record<string, OpAttributeValue>;
}

/**
 * One value of an op attribute.
 *
 * @group Files
 */
export type OpAttributeValue = number | boolean | string | number[];

/**
 * `tensor` is `tensor.bytes` bytes at `offset` inside `base`'s storage (reshape, slice, a saved input).
 *
 * @group Files
 */
export interface ViewAlias {
  kind: 'view';
  tensor: string;
  base: string;
  /** Byte offset into the base; default 0. */
  offset?: number;
}

/**
 * The op writing `output` writes it into `input`'s storage: a new name for the same bytes.
 *
 * @group Files
 */
export interface InPlaceAlias {
  kind: 'inPlace';
  output: string;
  input: string;
}

/**
 * Members share one bulk allocation, laid out in member order as TE bulk_allocate does.
 *
 * @group Files
 */
export interface GroupAlias {
  kind: 'group';
  members: string[];
}

/**
 * How a tensor shares another's storage (PLANNING.md §1).
 *
 * @group Files
 */
export type GraphAlias = ViewAlias | InPlaceAlias | GroupAlias;

/**
 * A graph file (format `tensorplan.graph`, version 1): what one step of a workload allocates and runs.
 *
 * @group Files
 */
export interface GraphDocument {
  format: 'tensorplan.graph';
  version: 1;
  name?: string;
  /** Default tensor alignment in bytes; 256 when absent. */
  defaultAlignment?: number;
  tensors: GraphTensor[];
  /** In the order given: the "given" schedule. */
  ops: GraphOp[];
  aliases?: GraphAlias[];
  /** Exist before the first step. */
  inputs?: string[];
  /** Must survive past the last step. */
  outputs?: string[];
  /** Weights and optimizer state: outside the activation arena, counted in totals. */
  persistent?: string[];
  /**
   * Graph inputs and outputs that are user buffers outside the arena (ONNX Runtime's graph I/O;
   * the ONNX importer's `externalIO`). Each is also listed in `persistent`, which keeps it out of
   * the arena; plans report their bytes as `statistics.externalIOBytes`, apart from `persistentBytes`.
   */
  externalIO?: string[];
}
