import type { CoreBinding } from '../abi/core-binding.js';
import { bulkLayout } from '../formats/bulk-layout.js';
import type { GraphDocument } from './graph-document.js';
import { parseGraph } from './parse-graph.js';

const ENCODER = new TextEncoder();

/** A checked graph in the flat-array form of the graph C ABI (c_api.h, "graph planning"). */
export interface EncodedGraph {
  doc: GraphDocument;
  /** The same eight leading parameters of every tp_graph_* operation, by their c_api.h names. */
  graph: GraphArgs;
  tensorIndex: Map<string, number>;
  opIndex: Map<string, number>;
}

/** The graph parameters the tp_graph_* operations (and the plan and execute ones) start with. */
export interface GraphArgs {
  graphI32: Int32Array;
  graphI32Count: number;
  graphF64: Float64Array;
  graphF64Count: number;
  names: Uint8Array;
  namesLength: number;
  nameOffsets: Int32Array;
  nameOffsetsCount: number;
}

/** Bytes of every tensor: given, or computed by the core from shape and dtype. */
function tensorBytes(core: CoreBinding, doc: GraphDocument): number[] {
  const bytes = doc.tensors.map((t) => (t.bytes !== undefined ? t.bytes : Number.NaN));
  const shaped: number[] = [];
  doc.tensors.forEach((t, i) => {
    if (t.bytes === undefined) shaped.push(i);
  });
  if (shaped.length > 0) {
    const layout = bulkLayout(core, shaped.map((i) => ({ shape: doc.tensors[i].shape ?? [], dtype: doc.tensors[i].dtype!, alignment: 1 })));
    shaped.forEach((i, k) => {
      bytes[i] = layout.entries[k].bytes;
    });
  }
  return bytes;
}

/** Checks `input` (graph file format v1) and encodes it for the graph C ABI. */
export function encodeGraph(core: CoreBinding, input: GraphDocument): EncodedGraph {
  const doc = parseGraph(input);
  const tensorIndex = new Map<string, number>();
  doc.tensors.forEach((t, i) => tensorIndex.set(t.name, i));
  const opIndex = new Map<string, number>();
  doc.ops.forEach((op, i) => opIndex.set(op.name, i));
  const t = (name: string) => tensorIndex.get(name)!;
  const aliases = doc.aliases ?? [];
  const views = aliases.filter((a) => a.kind === 'view');
  const inPlace = aliases.filter((a) => a.kind === 'inPlace');
  const groups = aliases.filter((a) => a.kind === 'group');
  const T = doc.tensors.length;
  const N = doc.ops.length;
  const ints: number[] = [1, T, N, doc.inputs?.length ?? 0, doc.outputs?.length ?? 0, doc.persistent?.length ?? 0,
    views.length, inPlace.length, groups.length];
  const csr = (rows: string[][], index: (name: string) => number) => {
    let offset = 0;
    ints.push(0);
    for (const row of rows) ints.push((offset += row.length));
    for (const row of rows) for (const name of row) ints.push(index(name));
  };
  csr(doc.ops.map((op) => op.inputs), t);
  csr(doc.ops.map((op) => op.outputs), t);
  csr(doc.ops.map((op) => op.after ?? []), (name) => opIndex.get(name)!);
  for (const list of [doc.inputs, doc.outputs, doc.persistent]) for (const name of list ?? []) ints.push(t(name));
  for (const v of views) ints.push(t(v.kind === 'view' ? v.tensor : ''));
  for (const v of views) ints.push(t(v.kind === 'view' ? v.base : ''));
  for (const q of inPlace) ints.push(t(q.kind === 'inPlace' ? q.output : ''));
  for (const q of inPlace) ints.push(t(q.kind === 'inPlace' ? q.input : ''));
  csr(groups.map((g) => (g.kind === 'group' ? g.members : [])), t);

  const nums: number[] = tensorBytes(core, doc);
  for (const tensor of doc.tensors) nums.push(tensor.alignment ?? 0);
  for (const op of doc.ops) nums.push(op.workspaceBytes ?? 0);
  for (const v of views) nums.push(v.kind === 'view' ? (v.offset ?? 0) : 0);
  nums.push(doc.defaultAlignment ?? 0);

  const pieces = [...doc.tensors.map((x) => x.name), ...doc.ops.map((op) => op.name), ...doc.ops.map((op) => op.op ?? '')]
    .map((name) => ENCODER.encode(name));
  const nameOffsets = new Int32Array(pieces.length + 1);
  let total = 0;
  pieces.forEach((piece, i) => {
    total += piece.length;
    nameOffsets[i + 1] = total;
  });
  const names = new Uint8Array(total);
  pieces.forEach((piece, i) => names.set(piece, nameOffsets[i]));
  const intArray = Int32Array.from(ints);
  const numArray = Float64Array.from(nums);
  return {
    doc,
    graph: {
      graphI32: intArray, graphI32Count: intArray.length, graphF64: numArray, graphF64Count: numArray.length,
      names, namesLength: names.length, nameOffsets, nameOffsetsCount: nameOffsets.length,
    },
    tensorIndex,
    opIndex,
  };
}

