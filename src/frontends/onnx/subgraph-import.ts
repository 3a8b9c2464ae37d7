// Control flow in the importer: an If whose branch is known (a known condition, `branches`) has
// that branch's nodes inlined; otherwise If, Loop and Scan become one op whose subgraphs are
// imported by a child importer and planned on their own (control-flow.ts holds ORT's sizing rules).
import type { GraphDocument } from '../../graph/graph-document.js';
import type { Value } from './onnx-infer.js';
import type { OnnxGraph, OnnxNode } from './onnx-model.js';
import { outerReads } from './node-order.js';
import { ifOutputs, loopTemporaryBytes, normalAxis, planSubgraph, scanTemporaryBytes } from './control-flow.js';
import type { OnnxSubgraph } from './control-flow.js';
import type { ImportState } from './import-state.js';
import { whyUnknown } from './unknown-values.js';

/** Every If node of the model (subgraphs included), by the name `branches` uses. */
export function ifNames(s: ImportState, g: OnnxGraph, out: string[] = []): string[] {
  for (const n of g.nodes) {
    if (n.opType === 'If') out.push(n.name || n.outputs[0]);
    for (const a of n.attributes.values()) if (a.g) ifNames(s, a.g, out);
  }
  return out;
}

export function checkBranches(s: ImportState, g: OnnxGraph): void {
  const given = Object.keys(s.options.branches ?? {});
  if (!given.length) return;
  const ifs = ifNames(s, g);
  for (const name of given) {
    if (!ifs.includes(name)) {
      s.fail(`--branch ${name}=${s.options.branches![name]}: the model has no If node "${name}" (${ifs.length ? `If nodes: ${ifs.map((n) => `"${n}"`).join(', ')}` : 'it has no If nodes'})`);
    }
  }
}

export function ifNode(s: ImportState, node: OnnxNode, inputs: string[]): void {
  const cond = s.values.get(inputs[0]);
  const key = node.name || node.outputs[0];
  const known = cond?.data && cond.data.length === 1 ? (cond.data[0] ? 'then' : 'else') : undefined;
  const chosen = s.options.branches?.[key];
  if (chosen && known && chosen !== known) {
    s.fail(`--branch ${key}=${chosen}: the condition of ${s.label(node)} ("${inputs[0]}") is known at import time and selects the ${known}_branch`);
  }
  const pick = known ?? chosen;
  if (!pick) return ifSubgraphs(s, node, inputs);
  const branch = node.attributes.get(`${pick}_branch`)?.g ?? s.fail(`${s.label(node)} has no ${pick}_branch`);
  for (const t of branch.initializers) {
    s.values.set(t.name, s.constantValue(t));
    s.constants.add(t.name);
  }
  for (const info of branch.valueInfo) s.declared.set(info.name, info);
  s.graph(branch);
  if (branch.outputs.length !== node.outputs.length) {
    s.fail(`${s.label(node)}: the chosen branch has ${branch.outputs.length} outputs, the node ${node.outputs.length}`);
  }
  node.outputs.forEach((o, k) => { if (o !== '') s.rename.set(o, s.resolve(branch.outputs[k].name)); });
  s.stats.inlinedIfs += 1;
}

/**
 * Imports subgraph `g` of `node` on its own: a new importer whose outer reads come from this one
 * (known values stay known, so they fold; unknown ones are persistent there). `formals` are the
 * subgraph's inputs with the values the kernel feeds. `io` says where the subgraph's inputs and
 * outputs live: 'outside' (If, Scan: the enclosing op's buffers, persistent in the subgraph's
 * document) or 'arena' (Loop: the body's own frame, graph inputs and outputs of the document).
 */
export function subgraph(s: ImportState, node: OnnxNode, attr: string, formals: Value[], io: 'outside' | 'arena'): { peak: number; outputs: Value[]; reads: string[] } {
  const g = node.attributes.get(attr)?.g ?? s.fail(`${s.label(node)} has no ${attr} attribute (a graph)`);
  const child = s.child();
  const reads: string[] = [];
  for (const n of new Set(outerReads(g))) {
    const r = s.resolve(n);
    const v = s.values.get(r);
    if (!v) continue; // the child's node that reads it says which name no node provides
    if (r !== n) child.rename.set(n, r);
    child.values.set(r, v);
    if (s.known(r)) child.constants.add(r);
    else child.outer.add(r);
    if (s.external.has(r)) child.external.add(r);
    reads.push(r);
  }
  for (const t of g.initializers) {
    child.values.set(t.name, child.constantValue(t));
    child.constants.add(t.name);
    if (t.external) child.external.add(t.name);
  }
  for (const info of [...g.valueInfo, ...g.outputs]) child.declared.set(info.name, info);
  const where = `${attr} of ${s.label(node)}`;
  if (formals.length !== g.inputs.length) s.fail(`${where} has ${g.inputs.length} inputs, the node feeds it ${formals.length}`);
  g.inputs.forEach((info, k) => {
    child.values.set(info.name, formals[k]);
    child.formals.add(info.name);
    child.addTensor(info.name, formals[k], `input "${info.name}" of the ${where}`);
  });
  child.graph(g);
  const outputs: string[] = [];
  const values = g.outputs.map((o) => {
    const name = child.resolve(o.name);
    const v = child.values.get(name) ?? s.fail(`${where}: output "${o.name}" is produced by no node`);
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
    name: `${s.options.source ?? 'model'}: ${where}`,
    tensors: [...child.tensors.values()],
    ops: child.ops,
    ...(child.aliases.length ? { aliases: [...child.aliases] } : {}),
    inputs: io === 'arena' ? formalNames : [],
    outputs,
    persistent: [...persistent],
  };
  const peak = planSubgraph(s.core!, doc, `${s.options.source ?? 'model'} (${where})`);
  s.stats.nodes += child.stats.nodes;
  s.stats.folded += child.stats.folded;
  s.stats.inlinedIfs += child.stats.inlinedIfs;
  const prefix = node.name || node.outputs[0];
  for (const sg of child.subgraphs) s.subgraphs.push({ ...sg, op: `${prefix}/${sg.op}` });
  return { peak, outputs: values, reads };
}

/** Needs the core (it plans the subgraphs): the free importOnnx has none. */
export function needCore(s: ImportState, node: OnnxNode, why: string): void {
  if (s.core) return;
  s.fail(`${s.label(node)}: ${why}; its subgraphs are planned on their own as ONNX Runtime runs them, which needs the core's planner: use tp.importOnnx(bytes, options) on a session (const tp = await init())`, 'UNSUPPORTED');
}

/** Adds the control-flow op: outputs as ordinary tensors, the subgraphs' outer reads as inputs, the workspace. */
export function controlOp(s: ImportState, node: OnnxNode, live: string[], outs: Value[], entry: Omit<OnnxSubgraph, 'op' | 'opType'>): void {
  node.outputs.forEach((o, k) => {
    if (o === '') return;
    if (s.values.has(o)) s.fail(`${s.label(node)}: "${o}" is written twice`);
    // Shape and type only: the op's elements are computed when it runs (a Scan's final state is
    // not its initial state, even when that one is known).
    const { data: _elements, ...shapeAndType } = outs[k];
    s.values.set(o, { ...shapeAndType, shape: [...shapeAndType.shape] });
    s.producedBy.set(o, { label: s.label(node), reads: live });
  });
  const attributes: Record<string, string | number> = { workspaceFrom: entry.workspaceFrom };
  for (const [attr, peak] of Object.entries(entry.peaks)) attributes[`${attr.replace(/_(\w)/g, (_, c: string) => c.toUpperCase())}PeakBytes`] = peak;
  if (entry.tripCount !== undefined) attributes.tripCount = entry.tripCount;
  if (entry.temporaryBytes) attributes.temporaryBytes = entry.temporaryBytes;
  const { name } = s.pushOp(node, live, { ...(entry.workspaceBytes > 0 ? { workspaceBytes: entry.workspaceBytes } : {}), attributes });
  s.subgraphs.push({ op: name, opType: node.opType, ...entry });
}

/**
 * An If whose condition is not known at import time: both branches are planned on their own
 * (their outer reads and outputs outside their arenas, as ORT's IfImpl feeds and fetches them),
 * and the If op needs the larger branch's arena while it runs.
 */
export function ifSubgraphs(s: ImportState, node: OnnxNode, inputs: string[]): void {
  const key = node.name || node.outputs[0];
  needCore(s, node, `its condition "${inputs[0]}" is not known at import time${whyUnknown(s, inputs[0])}, or choose the branch that runs with --branch ${key}=then|else (API: branches)`);
  const then = subgraph(s, node, 'then_branch', [], 'outside');
  const other = subgraph(s, node, 'else_branch', [], 'outside');
  const outs = ifOutputs(then.outputs, other.outputs, s.opset(node), node.outputs,
    (m) => s.fail(`${s.label(node)}: ${m}`));
  if (outs.length !== node.outputs.length) s.fail(`${s.label(node)}: its branches have ${outs.length} outputs, the node ${node.outputs.length}`);
  const live = [...new Set([inputs[0], ...then.reads, ...other.reads])];
  const from = then.peak >= other.peak ? 'then_branch' : 'else_branch';
  controlOp(s, node, live, outs, {
    workspaceBytes: Math.max(then.peak, other.peak), workspaceFrom: from, peaks: { then_branch: then.peak, else_branch: other.peak },
  });
}

/** A scalar integer input's value (a trip count), or why it is not known. */
export function countOf(s: ImportState, name: string): number | undefined {
  const v = s.values.get(name);
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
export function loopNode(s: ImportState, node: OnnxNode, inputs: string[]): void {
  const [m = '', cond = ''] = inputs;
  const carried = inputs.slice(2);
  const body = node.attributes.get('body')?.g ?? s.fail(`${s.label(node)} has no body attribute (a graph)`);
  const scanOutputs = body.outputs.length - 1 - carried.length;
  if (scanOutputs < 0) s.fail(`${s.label(node)}: its body has ${body.outputs.length} outputs, fewer than 1 + ${carried.length} loop-carried values`);
  const condValue = cond ? s.values.get(cond) : undefined;
  const stops = condValue?.data?.length === 1 && !condValue.data[0];
  let trip = m ? countOf(s, m) : undefined;
  if (stops) trip = 0;
  needCore(s, node, 'a Loop is planned with its body');
  if (trip === undefined && scanOutputs > 0) {
    const sized = node.outputs.slice(carried.length).filter((o) => o !== '').map((o) => `"${o}"`).join(', ');
    const what = `its scan output${scanOutputs > 1 ? 's' : ''} ${sized} (trip count x the per-iteration shape) cannot be sized`;
    s.fail(m
      ? `${s.label(node)}: its trip count (input 0, "${m}") is not known at import time, so ${what}${whyUnknown(s, m, 'to set the trip count at import time')}`
      : `${s.label(node)}: it has no trip count (input 0, "M", is empty): it runs until its condition turns false, which is not known at import time, so ${what}`, 'UNSUPPORTED');
  }
  if (trip !== undefined && trip > 2 ** 31 && scanOutputs > 0) {
    s.fail(`${s.label(node)}: its trip count (input 0, "${m}") is ${trip}, a bound rather than a count (a while loop that stops on its condition), so its scan outputs cannot be sized; give the real count with --value if "${m}" depends on a graph input`, 'UNSUPPORTED');
  }
  const declaredIter = body.inputs[0]?.dims;
  const formals: Value[] = [
    { shape: declaredIter && declaredIter.length === 1 ? [1] : [], elemType: 7 },
    { shape: body.inputs[1]?.dims?.length === 1 ? [1] : [], elemType: 9 },
    ...carried.map((n) => {
      const v = s.values.get(n) ?? s.fail(`${s.label(node)} reads "${n}", which no node, initializer or graph input provides`);
      return { shape: [...v.shape], elemType: v.elemType };
    }),
  ];
  const sub = subgraph(s, node, 'body', formals, 'arena');
  carried.forEach((n, k) => {
    const a = formals[2 + k], b = sub.outputs[1 + k];
    if (a.elemType !== b.elemType || a.shape.length !== b.shape.length || a.shape.some((d, i) => d !== b.shape[i])) {
      s.fail(`${s.label(node)}: loop-carried value ${k} ("${n}") goes in as [${a.shape.join(',')}] and comes out of the body as [${b.shape.join(',')}]: its shape changes across iterations, so its final shape is not known at import time`, 'UNSUPPORTED');
    }
  });
  const perIteration = sub.outputs.slice(1 + carried.length);
  const outs: Value[] = [
    ...carried.map((_, k) => ({ shape: [...formals[2 + k].shape], elemType: formals[2 + k].elemType })),
    ...perIteration.map((v) => ({ shape: [trip!, ...v.shape], elemType: v.elemType })),
  ];
  const temporary = trip === undefined ? 0 : loopTemporaryBytes(trip, perIteration);
  const runs = trip !== 0;
  controlOp(s, node, [...new Set([...inputs.filter((n) => n !== ''), ...sub.reads])], outs, {
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
export function scanNode(s: ImportState, node: OnnxNode, inputs: string[]): void {
  const opset = s.opset(node);
  if (opset < 9) s.fail(`${s.label(node)}: Scan-8 (sequence_lens and a batch axis) is not planned; re-export the model at opset 9 or later`, 'UNSUPPORTED');
  needCore(s, node, 'a Scan is planned with its body');
  const m = node.attributes.get('num_scan_inputs')?.i ?? s.fail(`${s.label(node)} has no num_scan_inputs attribute`);
  const n = inputs.length - m;
  if (n < 0) s.fail(`${s.label(node)}: num_scan_inputs = ${m}, but the node has ${inputs.length} inputs`);
  const valueOf = (name: string) => s.values.get(name) ?? s.fail(`${s.label(node)} reads "${name}", which no node, initializer or graph input provides`);
  const states = inputs.slice(0, n).map(valueOf);
  const inAxes = node.attributes.get('scan_input_axes')?.ints ?? [];
  let length: number | undefined;
  const transposedInputs: Value[] = [];
  const slices = inputs.slice(n).map((name, k) => {
    const v = valueOf(name);
    const axis = normalAxis(inAxes[k] ?? 0, v.shape.length)
      ?? s.fail(`${s.label(node)}: scan_input_axes[${k}] = ${inAxes[k]} is out of range for scan input "${name}" of shape [${v.shape.join(',')}]`);
    if (length !== undefined && v.shape[axis] !== length) {
      s.fail(`${s.label(node)}: scan input "${name}" is ${v.shape[axis]} long on axis ${axis}, the first scan input ${length}`);
    }
    length = v.shape[axis];
    if (axis !== 0) transposedInputs.push(v);
    return { shape: v.shape.filter((_, i) => i !== axis), elemType: v.elemType };
  });
  const trip = length ?? 0;
  const sub = subgraph(s, node, 'body', [...states.map((v) => ({ shape: [...v.shape], elemType: v.elemType })), ...slices], 'outside');
  states.forEach((a, k) => {
    const b = sub.outputs[k];
    if (!b || a.elemType !== b.elemType || a.shape.length !== b.shape.length || a.shape.some((d, i) => d !== b.shape[i])) {
      s.fail(`${s.label(node)}: state variable ${k} ("${inputs[k]}") goes in as [${a.shape.join(',')}] and comes out of the body as [${b?.shape.join(',') ?? ''}]: Scan's states keep their shape`);
    }
  });
  const outAxes = node.attributes.get('scan_output_axes')?.ints ?? [];
  const transposedOutputs: Value[] = [];
  const scanOuts = sub.outputs.slice(n).map((v, k) => {
    const rank = v.shape.length + 1;
    const axis = normalAxis(outAxes[k] ?? 0, rank)
      ?? s.fail(`${s.label(node)}: scan_output_axes[${k}] = ${outAxes[k]} is out of range for a scan output of rank ${rank}`);
    const out = { shape: [...v.shape.slice(0, axis), trip, ...v.shape.slice(axis)], elemType: v.elemType };
    if (axis !== 0) transposedOutputs.push(out);
    return out;
  });
  const temporary = trip === 0 ? 0 : scanTemporaryBytes(trip, states, transposedInputs, transposedOutputs);
  controlOp(s, node, [...new Set([...inputs.filter((x) => x !== ''), ...sub.reads])], [...states, ...scanOuts], {
    workspaceBytes: trip === 0 ? 0 : sub.peak + temporary, workspaceFrom: 'body', peaks: { body: sub.peak }, tripCount: trip, temporaryBytes: temporary,
  });
}
