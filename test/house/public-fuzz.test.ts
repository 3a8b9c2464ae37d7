// Every public function answers wrong or incomplete input
// either with a result or with a TensorplanError, never another exception, and
// the session still works afterwards. Every exported function and class, and
// every method of Tensorplan, GraphBuilder and LayerSpecBuilder, is a target
// (a test fails naming any that is not). Each target has seed arguments that
// succeed; the fuzz mutates them (any node of any argument, an argument as a
// whole, options objects included) with seeded fast-check, and also replaces
// each argument in turn by each WEIRD value. TP_FUZZ_RUNS=<n> runs n cases per
// target instead of the few of the normal run (docs/DEVELOPING.md).
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import * as api from '../../dist/index.mjs';
import {
  DeviceArena, GraphBuilder, LayerSpecBuilder, Tensorplan, TensorplanError, applyAlternative, compareLayerSpecs, formatMinimallocCsv,
  baselineCurves, importOnnx, importTorchExport, info, init, loadEchartsSource, parseGraph, parseLayerSpec, parseMinimallocCsv, parsePlan, planReportData, renderReport,
} from '../../dist/index.mjs';
import type { GraphDocument } from '../../dist/index.mjs';
import { BACKENDS, session } from '../support/backends';

const RUNS = Number(process.env.TP_FUZZ_RUNS ?? 20);
const SEED = Number(process.env.TP_FUZZ_SEED ?? 14);
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url));
const GRAPH = JSON.parse(read('examples/two-chains.graph.json').toString());
const LAYERS = JSON.parse(read('examples/mixtral-moe.layers.json').toString());
const SMALL_LAYERS = {
  format: 'tensorplan.layers', version: 1, model: { hidden: 64, ffn: 128, heads: 4, sequence: 32, microBatch: 1 },
  recipe: 'mxfp8', layers: [{ kind: 'linear', name: 'proj', outFeatures: 64 }],
};
const CSV = read('examples/buffers.minimalloc.csv').toString();
const ONNX = new Uint8Array(read('test/fixtures/official-writer.onnx'));
const PT2 = new Uint8Array(read('test/fixtures/torch/mlp_aten.pt2'));
/** A graph the reference executor runs (op set v1). */
const EXEC_GRAPH: GraphDocument = {
  format: 'tensorplan.graph', version: 1,
  tensors: [
    { name: 'x', shape: [2, 2], dtype: 'fp32' }, { name: 'w', shape: [2, 2], dtype: 'fp32' },
    { name: 'h', shape: [2, 2], dtype: 'fp32' }, { name: 'y', shape: [2, 2], dtype: 'fp32' },
  ],
  ops: [
    { name: 'mm', op: 'matmul', inputs: ['x', 'w'], outputs: ['h'], attributes: { transposeB: true } },
    { name: 'act', op: 'relu', inputs: ['h'], outputs: ['y'] },
  ],
  inputs: ['x'], outputs: ['y'], persistent: ['w'],
};
const EXEC_INPUTS = { x: new Float32Array([1, 2, 3, 4]), w: new Float32Array([1, 0, -1, 1]) };

/** Exports that are data, not functions: nothing to call. */
const CONSTANTS = [
  'DTYPES', 'GRAPH_SCHEMA_V1', 'INFERRED_OPS', 'LAYER_SPEC_SCHEMA_V1', 'MAX_DRAWN_STORAGES', 'OP_SET_V1', 'PLAN_SCHEMA_V1',
  'RECIPES', 'SCHEDULE_METHODS', 'SCHEMAS', 'TE_BEHAVIOURS', 'VERSION', 'VIEW_OPS',
];
/** Classes whose methods are targets one by one (`GraphBuilder.prototype.op`). */
const CLASSES_BY_METHOD = { Tensorplan, GraphBuilder, LayerSpecBuilder } as const;

/** Values that break code which does not check its input: wrong types, BigInts, deep nesting, detached buffers. */
function deep(depth: number): unknown {
  let v: unknown = [];
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}
function detached(): Uint8Array {
  const bytes = new Uint8Array(8);
  structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
  return bytes;
}
const WEIRD: (() => unknown)[] = [
  () => undefined, () => null, () => 'x', () => '1024', () => 10n, () => -1, () => 0.5, () => Number.NaN, () => Infinity,
  () => 2 ** 60, () => ({}), () => [], () => true, () => deep(20000), () => detached(), () => [1, 'a', null],
  () => ({ a: { b: [10n] } }), () => new Uint8Array(3),
];

/** The slots (parent, key) of `root`'s nodes in pre-order. */
function slotsOf(root: unknown): [Record<string, unknown> | unknown[], string | number][] {
  const slots: [Record<string, unknown> | unknown[], string | number][] = [];
  const walk = (v: unknown) => {
    if (v === null || typeof v !== 'object' || ArrayBuffer.isView(v)) return;
    for (const key of Object.keys(v)) {
      slots.push([v as Record<string, unknown>, Array.isArray(v) ? Number(key) : key]);
      if (slots.length < 5000) walk((v as Record<string, unknown>)[key]);
    }
  };
  walk(root);
  return slots;
}

/**
 * A copy of the argument list `args` with `edits` applied. Edit [a, k, w]: with
 * a even, the k-th node (pre-order) of the whole list; with a odd, the k-th node
 * of argument (a >> 1) counted from the argument itself (so a small options
 * argument is hit as often as a large document). The node is replaced by
 * WEIRD[w], or deleted (w = WEIRD.length + 1); w = WEIRD.length replaces the
 * whole argument list.
 */
function mutate(args: readonly unknown[], edits: [number, number, number][]): unknown[] {
  let copy: unknown = structuredClone(args);
  for (const [a, k, w] of edits) {
    if (!Array.isArray(copy) || w === WEIRD.length) {
      copy = WEIRD[k % WEIRD.length]();
      continue;
    }
    let root: unknown = copy;
    let arg = -1;
    if (a % 2 === 1 && copy.length > 0) {
      arg = (a >> 1) % copy.length;
      root = [copy[arg]];
    }
    const slots = slotsOf(root);
    if (slots.length === 0) continue;
    const [parent, key] = slots[k % slots.length];
    if (w > WEIRD.length) delete (parent as Record<string, unknown>)[key as string];
    else (parent as Record<string, unknown>)[key as string] = WEIRD[w]();
    if (arg >= 0) copy[arg] = (root as unknown[])[0];
  }
  return Array.isArray(copy) ? copy : [copy];
}
const edits = fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat({ max: WEIRD.length + 1 })), { minLength: 1, maxLength: 3 });

/** Every object key in `value` (for the check that an error names something of the document). */
function keysOf(value: unknown, into = new Set<string>()): Set<string> {
  for (const [parent, key] of slotsOf(value)) if (!Array.isArray(parent)) into.add(String(key));
  return into;
}

/** The health probe: what the session plans for the example graph. */
function probe(tp: Tensorplan): string {
  const plan = tp.plan(GRAPH);
  return JSON.stringify({ arena: plan.arenaBytes, schedule: plan.schedule, storages: plan.storages });
}

/** A target: seed arguments that succeed, and how to call the public function with (mutated) arguments. */
interface Target {
  args: unknown[];
  call: (args: unknown[]) => unknown;
  /**
   * Document-reading targets: a TensorplanError must name what it refuses, a
   * field path (`[3]`), a key of the seed document, or one of these parameter names.
   */
  names?: string[];
  /** The seed itself fails on this backend (say, the CUDA executor without a GPU): only check the error type. */
  seedMayFail?: boolean;
}

let calls = 0;
async function outcome(f: () => unknown): Promise<unknown> {
  // The targets are mostly synchronous: yield to the event loop now and then, or a
  // long run (TP_FUZZ_RUNS) starves vitest's worker RPC ("Timeout calling onTaskUpdate").
  if (++calls % 200 === 0) await new Promise((resolve) => setImmediate(resolve));
  try {
    await f();
    return undefined;
  } catch (error) {
    return error;
  }
}

/** Checks what `target` did with `args`: a result, or a TensorplanError (naming something, for document targets). */
async function check(name: string, target: Target, args: unknown[], keys: Set<string>): Promise<void> {
  const error = await outcome(() => target.call(args));
  if (error === undefined) return;
  expect((error as Error).name, `${name}: ${String((error as Error).stack)}`).toBe('TensorplanError');
  expect(typeof (error as { code?: unknown }).code).toBe('string');
  if (!target.names) return;
  const message = (error as Error).message;
  // A path ([3]), an argument number, a CSV line (file:3:), the document root, or a key or parameter name.
  const named = /\[\d+\]/.test(message) || /\bargument \d/.test(message) || /:\d+: /.test(message) || message.includes('(the document)')
    || [...keys, ...target.names].some((key) => new RegExp(`(^|[^\\w])${key.replace(/[$]/g, '\\$')}([^\\w]|$)`).test(message));
  expect(named, `${name}: the error names no field or parameter: ${message}`).toBe(true);
}

function targetsFor(tp: Tensorplan): Record<string, Target> {
  const plan = tp.plan(GRAPH);
  const execPlan = tp.plan(EXEC_GRAPH);
  const trace = tp.executeReference(execPlan, EXEC_INPUTS).trace;
  const small = tp.layerGraph(SMALL_LAYERS);
  const smallPlan = tp.plan(small.graph);
  const format = { shape: [32, 64], dtype: 'fp32', recipe: 'nvfp4', options: { gemmSwizzledScales: true } };
  const x = new Float32Array(32 * 64).map((_, i) => Math.sin(i) * 3);
  const quantized = tp.quantize(format as never, new Uint8Array(x.buffer));
  const given = tp.tensorSpecBuffers(format as never).buffers.map((b) => ({ name: b.name, shape: b.shape, dtype: b.dtype, bytes: b.bytes }));
  const csv = parseMinimallocCsv(CSV);
  const report = planReportData(plan, 'fuzz');
  const builderGraph = () => {
    const b = new GraphBuilder('g');
    b.input('x', { bytes: 256 });
    b.tensor('y', { shape: [8, 8], dtype: 'fp32' });
    return b;
  };
  const gb = (method: keyof GraphBuilder, args: unknown[], finish = true): Target => ({
    args,
    call: (a) => {
      const b = builderGraph();
      (b[method] as (...x: unknown[]) => unknown)(...a);
      if (finish) {
        b.op('f', 'relu', ['x'], ['y']);
        b.output('y');
        return b.build();
      }
      return undefined;
    },
  });
  const lb = (method: keyof LayerSpecBuilder, args: unknown[]): Target => ({
    args,
    call: (a) => {
      const b = new LayerSpecBuilder(SMALL_LAYERS.model as never, 'fuzz');
      b.linear({ outFeatures: 64 } as never);
      (b[method] as (...x: unknown[]) => unknown)(...a);
      return tp.layerGraph(b.build());
    },
  });
  const method = (name: keyof Tensorplan, args: unknown[], extra: Partial<Target> = {}): Target => ({
    args, call: (a) => (tp[name] as (...x: unknown[]) => unknown)(...a), ...extra,
  });
  const cuda = tp.backend === 'cuda';
  return {
    // Free functions and classes.
    parseGraph: { args: [GRAPH, 'graph'], call: (a) => parseGraph(...(a as [unknown])), names: ['graph', 'source'] },
    parsePlan: { args: [plan, 'plan'], call: (a) => parsePlan(...(a as [unknown])), names: ['plan', 'source'] },
    parseLayerSpec: { args: [LAYERS, 'layer spec'], call: (a) => parseLayerSpec(...(a as [unknown])), names: ['layer spec', 'source'] },
    applyAlternative: { args: [LAYERS, 'recipe=none'], call: (a) => applyAlternative(...(a as [never, string])) },
    compareLayerSpecs: {
      args: ['$tp', SMALL_LAYERS, ['recipe=none', 'tp=2'], { baselines: false }],
      call: (a) => compareLayerSpecs(...(a.map((v) => (v === '$tp' ? tp : v)) as [never, never, string[]])),
    },
    planReportData: {
      args: [smallPlan, { title: 'title', layers: small, layerSummary: tp.layerPlanSummary(small, smallPlan), baselineSchedules: baselineCurves(tp, small.graph, smallPlan) }],
      call: (a) => planReportData(...(a as [never])),
    },
    baselineCurves: { args: [GRAPH, plan], call: (a) => baselineCurves(tp, ...(a as [never, never])) },
    renderReport: { args: [report, '/* echarts */'], call: (a) => renderReport(...(a as [never, string])) },
    loadEchartsSource: { args: [], call: () => loadEchartsSource() },
    parseMinimallocCsv: { args: [CSV, 'buffers.csv'], call: (a) => parseMinimallocCsv(...(a as [string])), names: ['buffers.csv', 'input.csv', 'text', 'source'] },
    formatMinimallocCsv: { args: [csv, csv.buffers.map((_, i) => i * 4096)], call: (a) => formatMinimallocCsv(...(a as [never, number[]])) },
    importOnnx: { args: [ONNX, { inputShapes: {}, dims: { N: 2 }, bindings: {}, name: 'm', source: 'm.onnx' }], call: (a) => importOnnx(...(a as [Uint8Array])) },
    importTorchExport: {
      args: [PT2, { dims: {}, bindings: {}, alignment: 1, name: 'm', source: 'm.pt2' }], call: (a) => importTorchExport(...(a as [Uint8Array])),
    },
    init: { args: [{ backend: tp.backend }], call: (a) => init(...(a as [never])) },
    info: { args: [{ backend: tp.backend }], call: (a) => info(...(a as [never])) },
    TensorplanError: { args: ['INVALID_ARGUMENT', 'message', { wasm: 'why' }], call: (a) => new TensorplanError(...(a as [never, string])) },
    // The constructors marked @internal (sessions come from init(), arenas from tp.createDeviceArena) still refuse wrong input by name.
    Tensorplan: { args: [{ name: 'wasm', source: 'x' }, {}], call: (a) => new Tensorplan(...(a as [never])), seedMayFail: true },
    DeviceArena: { args: [null, 1024], call: (a) => new DeviceArena(...(a as [unknown, number])), seedMayFail: true },
    GraphBuilder: { args: ['g', 256], call: (a) => new GraphBuilder(...(a as [string])).build() },
    LayerSpecBuilder: { args: [SMALL_LAYERS.model, 'm'], call: (a) => new LayerSpecBuilder(...(a as [never])).linear({ outFeatures: 64 } as never).build() },
    // GraphBuilder methods, each then building the graph.
    'GraphBuilder.prototype.tensor': gb('tensor', ['t', { shape: [2, 3], dtype: 'bf16', alignment: 64 }]),
    'GraphBuilder.prototype.input': gb('input', ['i', { bytes: 64 }]),
    'GraphBuilder.prototype.persistent': gb('persistent', ['p', { bytes: 64, alignment: 16 }]),
    'GraphBuilder.prototype.output': gb('output', ['x']),
    'GraphBuilder.prototype.op': gb('op', ['g', 'relu', ['x'], ['y'], { workspaceBytes: 64, after: [] }]),
    'GraphBuilder.prototype.view': gb('view', ['y', 'x', 0]),
    'GraphBuilder.prototype.inPlace': gb('inPlace', ['y', 'x']),
    'GraphBuilder.prototype.group': gb('group', [['x', 'y']]),
    'GraphBuilder.prototype.build': gb('build', []),
    // LayerSpecBuilder methods, each then building and expanding the spec.
    'LayerSpecBuilder.prototype.recipe': lb('recipe', ['mxfp8']),
    'LayerSpecBuilder.prototype.arch': lb('arch', ['blackwell']),
    'LayerSpecBuilder.prototype.parallel': lb('parallel', [2, true]),
    'LayerSpecBuilder.prototype.weightGradients': lb('weightGradients', ['bulk']),
    'LayerSpecBuilder.prototype.quantizedWeights': lb('quantizedWeights', ['cached']),
    'LayerSpecBuilder.prototype.cudnnNorms': lb('cudnnNorms', [true]),
    'LayerSpecBuilder.prototype.optimizer': lb('optimizer', [{ masterWeights: true, statesPerParameter: 2 }]),
    'LayerSpecBuilder.prototype.linear': lb('linear', [{ name: 'l', outFeatures: 32 }]),
    'LayerSpecBuilder.prototype.layernormLinear': lb('layernormLinear', [{ outFeatures: 32 }]),
    'LayerSpecBuilder.prototype.layernormMLP': lb('layernormMLP', [{}]),
    'LayerSpecBuilder.prototype.attention': lb('attention', [{ fused: true }]),
    'LayerSpecBuilder.prototype.transformer': lb('transformer', [{ repeat: 1 }]),
    'LayerSpecBuilder.prototype.moe': lb('moe', [{ experts: 2, topK: 1 }]),
    'LayerSpecBuilder.prototype.groupedLinear': lb('groupedLinear', [{ groups: 2, outFeatures: 32 }]),
    'LayerSpecBuilder.prototype.build': lb('build', []),
    'LayerSpecBuilder.prototype.add': lb('add', [{ kind: 'linear', outFeatures: 32 }]),
    // Session methods.
    'Tensorplan.prototype.bulkLayout': method('bulkLayout', [[{ shape: [4, 4], dtype: 'fp32' }, { shape: [3], dtype: 'uint8', alignment: 16 }]], { names: ['tensors'] }),
    'Tensorplan.prototype.schedule': method('schedule', [GRAPH, { method: 'inductor-best', timeLimitSeconds: 0.01 }]),
    'Tensorplan.prototype.liveness': method('liveness', [GRAPH, plan.schedule]),
    'Tensorplan.prototype.checkFusion': method('checkFusion', [GRAPH, ['p1', 'c1'], { maxReadBytes: 2 ** 21 }]),
    'Tensorplan.prototype.verifyTrace': method('verifyTrace', [EXEC_GRAPH, execPlan.schedule, trace]),
    'Tensorplan.prototype.tensorSpecBuffers': method('tensorSpecBuffers', [{ shape: [128, 128], dtype: 'bf16', recipe: 'mxfp8', rowwise: true, columnwise: true }], { names: ['format'] }),
    'Tensorplan.prototype.updateUsage': method('updateUsage', [{ shape: [128, 128], dtype: 'bf16', recipe: 'mxfp8', columnwise: false }, { columnwise: true }, 'proto']),
    'Tensorplan.prototype.checkBuffers': method('checkBuffers', [format, given]),
    'Tensorplan.prototype.splitQuantizeLayout': method('splitQuantizeLayout', [[[96, 160], [128, 160]], { dtype: 'bf16', recipe: 'mxfp8' }, 'rowwise']),
    'Tensorplan.prototype.groupedLayout': method('groupedLayout', [[[128, 512], [256, 512]], { dtype: 'bf16', recipe: 'mxfp8' }]),
    'Tensorplan.prototype.quantize': method('quantize', [format, new Uint8Array(x.buffer), { amaxEpsilon: 0, delayedScale: 1 }]),
    'Tensorplan.prototype.dequantize': method('dequantize', [format, quantized.buffers.map((b) => b.bytes)]),
    'Tensorplan.prototype.swizzleScales': method('swizzleScales', [new Uint8Array(128 * 8), 128, 8, { transpose: false, validRows: 128, validCols: 8, inverse: false }]),
    'Tensorplan.prototype.delayedScalingUpdate': method('delayedScalingUpdate', [[1, 2, 3, 4], 4, [1], { algo: 'max', fp8Max: 448, margin: 0 }]),
    'Tensorplan.prototype.tensorSpecToJson': method('tensorSpecToJson', [format, { requiresGrad: true, internal: false }]),
    'Tensorplan.prototype.tensorSpecFromJson': method('tensorSpecFromJson', [tp.tensorSpecToJson(format as never)]),
    'Tensorplan.prototype.flatten': method('flatten', [format, quantized]),
    'Tensorplan.prototype.unflatten': method('unflatten', [format, tp.flatten(format as never, quantized)]),
    'Tensorplan.prototype.plan': method('plan', [GRAPH, { timeLimitSeconds: 0.01, baselines: true, budgetBytes: 2 ** 30, joint: true }], { names: ['graph', 'options'] }),
    'Tensorplan.prototype.validate': method('validate', [plan, GRAPH], { names: ['plan', 'graph'] }),
    'Tensorplan.prototype.place': method('place', [[{ lower: 0, upper: 2, size: 64 }, { lower: 1, upper: 3, size: 32, alignment: 16 }], { timeLimitSeconds: 0.01 }], { names: ['buffers', 'options'] }),
    'Tensorplan.prototype.layerGraph': method('layerGraph', [LAYERS], { names: ['layer spec', 'spec'] }),
    'Tensorplan.prototype.layerPlanSummary': method('layerPlanSummary', [small, smallPlan]),
    'Tensorplan.prototype.fit': method('fit', [SMALL_LAYERS, { vary: 'model.microBatch', budgetBytes: 2 ** 24, reserveBytes: 2 ** 20, min: 1, max: 8 }],
      { names: ['spec', 'options', 'vary', 'budgetBytes', 'reserveBytes', 'min', 'max', 'plan', 'onProbe'] }),
    'Tensorplan.prototype.importOnnx': method('importOnnx', [ONNX, { inPlace: true, name: 'm', bindings: { N: [2] } }]),
    'Tensorplan.prototype.importTorchExport': method('importTorchExport', [PT2, { dims: {}, bindings: {}, alignment: 1, name: 'm', source: 'm.pt2' }]),
    'Tensorplan.prototype.executeReference': method('executeReference', [execPlan, EXEC_INPUTS, { memory: 'arena' }, undefined]),
    'Tensorplan.prototype.execute': method('execute', [execPlan, EXEC_INPUTS, { executor: 'reference', memory: 'separate' }]),
    'Tensorplan.prototype.createDeviceArena': method('createDeviceArena', [1024], { seedMayFail: !cuda }),
    'Tensorplan.prototype.planDeviceBytes': method('planDeviceBytes', [execPlan], { seedMayFail: !cuda }),
    'Tensorplan.prototype.deviceAllocationCount': method('deviceAllocationCount', [], { seedMayFail: !cuda }),
    // On a session of its own (sharing the core), so disposing it leaves `tp` to the other targets.
    'Tensorplan.prototype.dispose': {
      args: [], call: () => new Tensorplan({ name: tp.backend, source: 'fuzz', core: (tp as unknown as { core: unknown }).core } as never).dispose(),
    },
    'Tensorplan.prototype.cudaAddon': { args: [], call: () => (tp as unknown as { cudaAddon(): unknown }).cudaAddon(), seedMayFail: !cuda },
  };
}

/** What the completeness check expects a target for: every export that is a function, and every method of the classes above. */
function publicFunctions(): string[] {
  const names: string[] = [];
  for (const [name, value] of Object.entries(api)) {
    if (CONSTANTS.includes(name)) {
      expect(typeof value, `${name} is listed as a constant`).not.toBe('function');
      continue;
    }
    names.push(name);
  }
  for (const [className, cls] of Object.entries(CLASSES_BY_METHOD)) {
    for (const key of Object.getOwnPropertyNames(cls.prototype)) {
      const descriptor = Object.getOwnPropertyDescriptor(cls.prototype, key);
      if (key !== 'constructor' && typeof descriptor?.value === 'function') names.push(`${className}.prototype.${key}`);
    }
  }
  return names;
}

// A long run reports its size (cases over every target, on every backend).
if (process.env.TP_FUZZ_RUNS) afterAll(() => console.log(`public fuzz: ${calls} cases on ${BACKENDS.join(', ')}`));

describe.each(BACKENDS)('public functions fed mutated input on %s', (backend) => {
  const tp = session(backend);
  const healthy = probe(tp);
  const targets = targetsFor(tp);

  it('every exported function and class, and every method, has a fuzz target', () => {
    const missing = publicFunctions().filter((name) => !(name in targets));
    expect(missing, 'public functions without a fuzz target: add them to targetsFor').toEqual([]);
  });

  it.each(Object.keys(targets))('%s: its seed arguments succeed', async (name) => {
    const target = targets[name];
    const error = await outcome(() => target.call(structuredClone(target.args)));
    if (target.seedMayFail) expect(error === undefined || error instanceof TensorplanError, String(error)).toBe(true);
    else expect(error).toBeUndefined();
  });

  it.each(Object.keys(targets))('%s returns or throws a TensorplanError, and the session still plans the same', async (name) => {
    const target = targets[name];
    const keys = keysOf(target.args);
    // Each argument replaced in turn by each weird value, then random mutations.
    for (let i = 0; i <= target.args.length; i++) {
      for (const weird of WEIRD) {
        const args = structuredClone(target.args);
        args[i] = weird();
        await check(name, target, args, keys);
      }
    }
    await fc.assert(fc.asyncProperty(edits, async (e) => {
      await check(name, target, mutate(target.args, e), keys);
    }), { seed: SEED, numRuns: RUNS });
    expect(probe(tp)).toBe(healthy);
  });

  it('parseMinimallocCsv with random cells', async () => {
    const cell = fc.oneof(
      fc.constantFrom('id', 'lower', 'upper', 'end', 'size', 'alignment', 'hint', '', '-1', '1e400', '0x10', 'NaN', '1.5', '9007199254740993', ' 7 ', '"a"'),
      fc.nat().map(String),
    );
    const text = fc.array(fc.array(cell, { maxLength: 6 }).map((cells) => cells.join(',')), { maxLength: 6 }).map((lines) => lines.join('\n'));
    await fc.assert(fc.asyncProperty(text, async (t) => {
      await check('parseMinimallocCsv', targets.parseMinimallocCsv, [t], new Set());
      await check('parseMinimallocCsv', targets.parseMinimallocCsv, [`${CSV}${t}`], new Set());
    }), { seed: SEED, numRuns: RUNS });
  });

  it('importOnnx and tp.importOnnx with flipped bytes', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.tuple(fc.nat(), fc.nat({ max: 255 })), { minLength: 1, maxLength: 8 }), async (flips) => {
      const bytes = ONNX.slice();
      for (const [at, value] of flips) bytes[at % bytes.length] = value;
      await check('importOnnx', targets.importOnnx, [bytes, { dims: { N: 2 } }], new Set());
      await check('tp.importOnnx', targets['Tensorplan.prototype.importOnnx'], [bytes, { inPlace: true, dims: { N: 2 } }], new Set());
      await check('importOnnx', targets.importOnnx, [bytes.subarray(0, flips[0][0] % bytes.length)], new Set());
    }), { seed: SEED, numRuns: RUNS });
    expect(probe(tp)).toBe(healthy);
  });

  it('importTorchExport and tp.importTorchExport with flipped bytes', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.tuple(fc.nat(), fc.nat({ max: 255 })), { minLength: 1, maxLength: 8 }), async (flips) => {
      const bytes = PT2.slice();
      for (const [at, value] of flips) bytes[at % bytes.length] = value;
      await check('importTorchExport', targets.importTorchExport, [bytes, { alignment: 1 }], new Set());
      await check('tp.importTorchExport', targets['Tensorplan.prototype.importTorchExport'], [bytes, { alignment: 1 }], new Set());
      await check('importTorchExport', targets.importTorchExport, [bytes.subarray(0, flips[0][0] % bytes.length)], new Set());
    }), { seed: SEED, numRuns: RUNS });
    expect(probe(tp)).toBe(healthy);
  });
});
