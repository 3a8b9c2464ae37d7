// ONNX import: import + plan time for a generated 10^4-node model, per backend,
// and arena / lower bound (with and without in-place) for every model the ONNX tests plan.
import { importOnnx } from '../dist/index.mjs';
import { CASES } from '../test/frontends/onnx/onnx-cases.mjs';
import { ALL_MODELS, MODEL_OPTIONS, generatedModel } from '../test/frontends/onnx/onnx-zoo.mjs';
import { fmt, printTable, timeMedian } from './harness.mjs';

export async function run({ sessions }) {
  const big = generatedModel(10_000);
  const importMs = timeMedian(() => importOnnx(big), { minRuns: 3, minMs: 500, warmup: 1 });
  const { graph } = importOnnx(big);
  const rows = [];
  for (const [backend, tp] of Object.entries(sessions)) {
    let plan;
    const planMs = timeMedian(() => { plan = tp.plan(graph); }, { minRuns: 3, minMs: 500, warmup: 1 });
    rows.push([backend, `${(big.byteLength / 2 ** 10).toFixed(0)} KiB`, graph.ops.length, fmt(importMs, 1), fmt(planMs, 1), fmt(importMs + planMs, 1), fmt(plan.statistics.arenaOverLowerBound, 4)]);
  }
  printTable('ONNX import + plan of a generated 10^4-node model (median ms)',
    ['backend', 'file', 'ops', 'import ms', 'plan ms', 'total ms', 'arena / LB'], rows);

  const models = { ...ALL_MODELS, 'generated-10000': () => big };
  const tp = sessions.native ?? sessions.wasm;
  const quality = [];
  for (const [name, make] of Object.entries(models)) {
    const cells = [name];
    for (const inPlace of [false, true]) {
      const r = tp.importOnnx(make(), { ...MODEL_OPTIONS[name], inPlace });
      const s = tp.plan(r.graph).statistics;
      if (!inPlace) cells.push(r.nodes, r.graph.ops.length, r.folded, r.views);
      cells.push(fmt(s.peakBytes / 2 ** 20, 2), fmt(s.arenaOverLowerBound, 4));
      if (inPlace) cells.push(r.inPlace);
    }
    quality.push(cells);
  }
  const ratios = CASES.map((c) => tp.plan(importOnnx(c.model).graph).statistics.arenaOverLowerBound);
  quality.push([`${CASES.length} one-operator models`, '1 each', '', '', '', '', `${fmt(Math.min(...ratios), 4)}..${fmt(Math.max(...ratios), 4)}`, '', '', '']);
  printTable(`ONNX models of the tests: arena / lower bound (backend ${tp === sessions.native ? 'native' : 'wasm'}, fast effort)`,
    ['model', 'nodes', 'ops', 'folded', 'views', 'peak MiB', 'arena / LB', 'peak MiB in-place', 'arena / LB in-place', 'in-place aliases'], quality);
}
