// Control flow planned as ONNX Runtime runs it: an If whose condition is not known at import time,
// Loop and Scan. Each subgraph (a branch, a body) is planned on its own by the core's planner; the
// node's op needs the largest subgraph's arena while it runs (its workspace), plus the temporaries
// ORT's kernel allocates besides the subgraph (Loop's kept scan outputs, Scan's state buffers).
// This file holds the ONNX/ORT facts (which values live where, the output shapes); the importer
// (onnx-import.ts) builds the subgraph documents and calls planSubgraph.
//
// ORT sources read (microsoft/onnxruntime, main as stored at commit d73f7f4 for if.cc, 401751b for
// loop.cc, 6879bbe for scan_9.cc, 0606f7d for scan_utils.cc), onnxruntime/core/providers/cpu/controlflow/:
// - if.cc, IfImpl::Execute: the branch's outer-scope values are passed as feeds (the enclosing
//   graph's OrtValues, not copies), and its outputs are fetched straight into the If node's output
//   buffers (IfImpl::AllocateOutputTensors allocates them with context_.Output before the branch runs
//   when the branch output's shape is known, else a fetch allocator forwards the allocation to the
//   If's context). So a branch's arena holds neither its outer reads nor its outputs.
// - loop.cc, LoopImpl::Execute: the body runs with no fetch allocators, so its outputs (cond, the
//   loop-carried values, the per-iteration scan outputs) live in the body's frame; each iteration's
//   carried outputs are the next iteration's feeds (SaveOutputsAndUpdateFeeds), and the
//   per-iteration scan outputs are kept (loop_output_tensors_) until ConcatenateLoopOutput copies
//   them into the Loop's output of shape [iterations, ...per-iteration shape] after the last
//   iteration; the final carried values are copied into the Loop's outputs.
// - scan_9.cc, ScanImpl::AllocateOutputTensors / scan_utils.cc, OutputIterator: Scan's outputs are
//   allocated up front ([sequence length, ...per-iteration shape] for scan outputs) and the body
//   writes each iteration's scan output into its slice; scan inputs are fed as slices (no copy)
//   unless their axis is not 0 (ScanImpl::SetupInputs transposes them into a temporary). State
//   variables go through LoopStateVariable: two temporaries a_ and b_ of the state's size (one when
//   the sequence has 2 iterations, none for 1), the last iteration writing the Scan's output.
//   A scan output whose axis is not 0 is written into a temporary and transposed at the end
//   (ScanImpl::TransposeOutput).
import type { CoreBinding } from '../../abi/core-binding.js';
import type { GraphDocument } from '../../graph/graph-document.js';
import { parseGraph } from '../../graph/parse-graph.js';
import { makePlan } from '../../plan/make-plan.js';
import type { Value } from './onnx-infer.js';
import { ONNX_DTYPES, elemTypeName } from './onnx-model.js';

/**
 * A control-flow node planned with its subgraphs (an If whose condition is unknown, a Loop, a Scan).
 *
 * @group Files
 */
export interface OnnxSubgraph {
  /** The op's name in the graph; nested ones are `outer/inner` (the enclosing ops' names first). */
  op: string;
  /** `If`, `Loop` or `Scan`. */
  opType: string;
  /** The op's `workspaceBytes`: the largest subgraph's arena plus `temporaryBytes`. */
  workspaceBytes: number;
  /** The subgraph the workspace comes from: `then_branch`, `else_branch` or `body`. */
  workspaceFrom: string;
  /** Each subgraph's arena as planned on its own, by attribute name. */
  peaks: Record<string, number>;
  /** Loop and Scan: the iterations planned for (a Loop's `M`; a Scan's sequence length); undefined when not needed. */
  tripCount?: number;
  /** Loop and Scan: what ORT's kernel holds besides the body's arena (see control-flow.ts). */
  temporaryBytes?: number;
}

/** The bytes of a value as the planner sizes it (elements times element size; FP4, INT4, INT2 ... packed). */
export function valueBytes(v: Value): number {
  const n = v.shape.reduce((a, b) => a * b, 1);
  const t = ONNX_DTYPES[v.elemType];
  if (t?.dtype === 'fp4_e2m1') return Math.ceil(n / 2);
  if (t?.bits) return Math.ceil((n * t.bits) / 8);
  const size: Record<string, number> = { fp64: 8, int64: 8, fp32: 4, int32: 4, fp16: 2, bf16: 2, int16: 2 };
  return n * (t?.bytes ?? (t?.dtype ? size[t.dtype] ?? 1 : 1));
}

const dims = (s: readonly number[]) => `[${s.join(',')}]`;

/**
 * The If's outputs from its two branches' outputs. Equal shapes give that shape. Different shapes
 * of the same rank (allowed from If-11 on: "the shape of the corresponding output ... represents
 * the union of both possible shapes") give the elementwise maximum: ORT allocates the output with
 * the shape of the branch that runs (IfImpl::AllocateOutputTensors), so the plan must hold the larger
 * of the two, and the maximum shape bounds both (and what later ops compute from it). Before
 * opset 11 both branches must give the same shape; different ranks or element types are errors.
 */
export function ifOutputs(thenOut: Value[], elseOut: Value[], opset: number, names: string[], fail: (m: string) => never): Value[] {
  if (thenOut.length !== elseOut.length) fail(`the then_branch has ${thenOut.length} outputs, the else_branch ${elseOut.length}`);
  return thenOut.map((a, k) => {
    const b = elseOut[k];
    const what = `output ${k} ("${names[k] ?? ''}")`;
    if (a.elemType !== b.elemType) fail(`${what}: the then_branch gives element type ${elemTypeName(a.elemType)}, the else_branch ${elemTypeName(b.elemType)}`);
    if (a.shape.length === b.shape.length && a.shape.every((d, i) => d === b.shape[i])) return { shape: [...a.shape], elemType: a.elemType };
    if (opset < 11) fail(`${what}: the then_branch gives shape ${dims(a.shape)}, the else_branch ${dims(b.shape)}; before opset 11 both branches must give the same shape`);
    if (a.shape.length !== b.shape.length) {
      fail(`${what}: the then_branch gives shape ${dims(a.shape)}, the else_branch ${dims(b.shape)}: different ranks, so no shape holds both; choose the branch that runs with --branch (API: branches)`);
    }
    return { shape: a.shape.map((d, i) => Math.max(d, b.shape[i])), elemType: a.elemType };
  });
}

/**
 * The arena of a subgraph planned on its own with this session's planner (a fast plan: deterministic,
 * the same bytes on every backend). A subgraph with no ops needs none.
 */
export function planSubgraph(core: CoreBinding, doc: GraphDocument, source: string): number {
  if (doc.ops.length === 0) return 0;
  const graph = parseGraph(doc, source);
  return makePlan(core, 'onnx-subgraph', graph).arenaBytes;
}

/** Bytes ORT's Loop kernel keeps besides the body's arena: the earlier iterations' scan outputs, until concatenated. */
export function loopTemporaryBytes(tripCount: number, perIterationScanOutputs: Value[]): number {
  if (tripCount <= 1) return 0;
  return (tripCount - 1) * perIterationScanOutputs.reduce((a, v) => a + valueBytes(v), 0);
}

/**
 * Bytes ORT's Scan kernel holds besides the body's arena: LoopStateVariable's two state buffers
 * (one for 2 iterations, none for 1), transposed scan inputs (axis not 0), and scan outputs
 * written into a temporary to be transposed (axis not 0).
 */
export function scanTemporaryBytes(sequenceLength: number, states: Value[], transposedInputs: Value[], transposedOutputs: Value[]): number {
  const buffers = Math.min(Math.max(sequenceLength - 1, 0), 2);
  const sum = (vs: Value[]) => vs.reduce((a, v) => a + valueBytes(v), 0);
  return buffers * sum(states) + sum(transposedInputs) + sum(transposedOutputs);
}

/** `axis` of a rank-`rank` tensor, negative counted from the end; undefined when out of range. */
export function normalAxis(axis: number, rank: number): number | undefined {
  const a = axis < 0 ? axis + rank : axis;
  return a >= 0 && a < rank ? a : undefined;
}
