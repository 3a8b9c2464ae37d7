// What importOnnx takes and returns, and the check of every option field (a named
// error, not a TypeError deep in the importer).
import { TensorplanError, shown } from '../../errors.js';
import type { GraphDocument } from '../../graph/graph-document.js';
import type { OnnxSubgraph } from './control-flow.js';
import type { InputValue } from './input-values.js';
import { RUNTIMES } from './ort-cpu-rules.js';
import type { OnnxRuntimeName } from './ort-cpu-rules.js';

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
   * elements row-major (an empty array is an empty tensor), as numbers (NaN and +-Infinity for
   * float inputs), bigints (exact int64) or booleans; the element type is the file's. The input
   * stays a graph input; what depends only on known values folds at import time, so `If` nodes
   * whose condition depends on the input are inlined (a sample rate, a mode flag). The shape is the file's (or `inputShapes`); a rank-1 input of unknown length takes the
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
  /**
   * ONNX Runtime's intra-op thread count (SessionOptions.intra_op_num_threads) that the plan
   * assumes, with `runtime: 'ort-cpu'` only (the CLI's `--ort-threads N`): MLAS sizes a float
   * Conv's working buffer by it. Default 1 (ort-cpu-rules.ts, ORT_DEFAULT_THREADS): ORT's own default is one
   * thread per physical core of the machine that runs the model, which the plan cannot know.
   */
  ortThreads?: number;
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

/** Checks every field of the import options (named, not a TypeError deep in the importer). */
export function checkImportOptions(options: OnnxImportOptions): OnnxImportOptions {
  const bad = (field: string, value: unknown, rule: string): never => {
    throw new TensorplanError('INVALID_ARGUMENT', `options.${field} = ${shown(value)}: must be ${rule}`);
  };
  for (const field of ['name', 'source'] as const) {
    if (options[field] !== undefined && typeof options[field] !== 'string') bad(field, options[field], 'a string');
  }
  if (options.inPlace !== undefined && typeof options.inPlace !== 'boolean') bad('inPlace', options.inPlace, 'true or false');
  if (options.externalIO !== undefined && typeof options.externalIO !== 'boolean') bad('externalIO', options.externalIO, 'true or false');
  if (options.runtime !== undefined && !(RUNTIMES as readonly unknown[]).includes(options.runtime)) bad('runtime', options.runtime, `one of ${RUNTIMES.map((r) => `'${r}'`).join(', ')}`);
  if (options.ortThreads !== undefined) {
    if (typeof options.ortThreads !== 'number' || !Number.isSafeInteger(options.ortThreads) || options.ortThreads < 1) bad('ortThreads', options.ortThreads, 'an integer >= 1 (ONNX Runtime\'s intra_op_num_threads)');
    if (options.runtime !== 'ort-cpu') bad('ortThreads', options.ortThreads, "given with runtime: 'ort-cpu' (it sizes ONNX Runtime's MLAS Conv working buffer)");
  }
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
      // An empty array is an empty tensor; NaN and +-Infinity are float values (input-values.ts
      // checks each value against the input's element type).
      const items: unknown[] = Array.isArray(item) ? item : [item];
      items.forEach((v, i) => {
        const ok = typeof v === 'bigint' || typeof v === 'boolean' || typeof v === 'number';
        if (!ok) bad(`values.${name}${Array.isArray(item) ? `[${i}]` : ''}`, v, 'a number, a bigint or a boolean');
      });
    }
  }
  return options;
}
