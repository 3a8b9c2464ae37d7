// PyTorch programs (torch.export .pt2). The fixtures of test/fixtures/torch-models/, imported at
// alignment 1 (exact bytes, as PyTorch's CPU allocator and Inductor's estimate count): every
// schedule baseline, ours and the lower bound, beside the peak Inductor itself logged for the
// same program (inductor.json, from scripts/torch/inductor_estimate.py). Then the joint
// forward + backward graph of a 32-layer Llama-3-8B-like model (bench/data/torch/, from
// scripts/torch/export_llama_scale.py) imported and planned on each backend.
import { existsSync, readFileSync } from 'node:fs';
import { fmt, printTable, timeMedian } from './harness.mjs';

const FIXTURES = new URL('../test/fixtures/torch-models/', import.meta.url);
const SCALE = new URL('data/torch/llama3-8b-32l.train.pt2', import.meta.url);
const SCALE_FIGURES = new URL('data/torch/llama3-8b-32l.train.json', import.meta.url);
const readJson = (url) => JSON.parse(readFileSync(url, 'utf8'));
const bytes = (n) => (Number.isFinite(n) ? n.toLocaleString('en-US') : 'n/a');
const XLA = ['xla-list', 'xla-dfs', 'xla-post-order'];

/** Inductor's figure for one fixture and compile mode: the peak it kept, or why there is none. */
function inductorFigure(record, mode, graph = 0) {
  const entry = record?.[mode];
  if (!entry) return { text: 'not run' };
  if (entry.error) return { text: entry.error.startsWith('compile and run took over') ? 'over limit' : 'failed' };
  const g = entry.graphs[graph];
  return g ? { value: g.chosen, nodes: g.scheduler_nodes, text: bytes(g.chosen) } : { text: 'no log' };
}

function fixtureTables(tp, backend) {
  const manifest = readJson(new URL('manifest.json', FIXTURES));
  const inductorUrl = new URL('inductor.json', FIXTURES);
  const inductor = existsSync(inductorUrl) ? readJson(inductorUrl) : null;
  const rows = [];
  const autograd = [];
  for (const file of Object.keys(manifest.files)) {
    const { graph } = tp.importTorchExport(readFileSync(new URL(file, FIXTURES)), { alignment: 1 });
    // A work limit, not a time limit: the same orders on every machine and backend.
    const s = tp.schedule(graph, { workLimit: 1e6 });
    const b = Object.fromEntries(Object.entries(s.baselines).map(([name, f]) => [name, f.peakBytes]));
    const xlaBest = Math.min(...XLA.map((n) => b[n] ?? Infinity));
    const record = inductor?.files?.[file];
    const logged = inductorFigure(record, 'program');
    rows.push([
      file.replace(/\.pt2$/, ''), graph.ops.length,
      bytes(b.given), bytes(b['inductor-lpmf']), bytes(b['inductor-bfs']), bytes(b['inductor-dfs']), bytes(xlaBest),
      bytes(s.peakBytes), `${bytes(s.lowerBoundBytes)}${s.provedOptimal ? ' (proved)' : ''}`,
      logged.value === undefined ? logged.text : `${logged.text} (${logged.nodes} nodes)`,
      logged.value === undefined ? 'n/a' : fmt(logged.value / s.peakBytes, 3),
    ]);
    if (file.includes('.train.')) {
      const fwd = inductorFigure(record, 'autograd', 0);
      const bwd = inductorFigure(record, 'autograd', 1);
      autograd.push([file.replace(/\.pt2$/, ''), bytes(b.given), bytes(s.peakBytes), logged.text, fwd.text, bwd.text,
        record?.autograd?.graphs ? record.autograd.graphs.length : 'n/a']);
    }
  }
  const source = inductor
    ? `Inductor: torch ${inductor.torch}, ${inductor.source}; ${inductor.machine}; limit ${inductor.limit_s} s per compile`
    : 'Inductor: test/fixtures/torch-models/inductor.json is missing (scripts/torch/inductor_estimate.py writes it)';
  printTable(`PyTorch fixtures: peak bytes of intermediates and outputs (alignment 1, backend ${backend}, work limit 10^6)`,
    ['program', 'ops', 'given', 'Ind. LPMF', 'Ind. BFS', 'Ind. DFS', 'XLA best', 'ours', 'lower bound', 'Inductor logged', 'Inductor / ours'], rows, [
      source,
      'given: the program\'s node order; Ind. LPMF/BFS/DFS: torch/_inductor/memory.py\'s orders on our graph; XLA best: the',
      '  lowest of XLA\'s list, DFS and post-order schedulers; ours: our order; lower bound: no order of our graph is lower.',
      'Inductor logged: the peak memory.py logs for the same ATen program compiled by torch.compile (the lowest of its',
      '  baseline, LPMF, BFS and DFS, the order reorder_for_peak_memory keeps), over its fused scheduler nodes. It is lower',
      '  where fusion removes buffers: a value computed and consumed inside one fused kernel (elementwise chains, a norm\'s',
      '  mean and rsqrt, an activation) has no buffer, while each ATen op here writes its own storage. Buffer reuse',
      '  (allow_buffer_reuse, inplace_buffers in torch/_inductor/codegen/wrapper.py) comes after this estimate and is not in',
      '  it; in ours, reuse of address ranges is the placement, which packs the same live bytes. Neither counts',
      '  parameters or user inputs; both keep outputs (gradients) to the end. It is higher where Inductor adds buffers the',
      '  ATen graph has none of: channels-last copies of a convolution\'s input and weight for oneDNN (ResNet), and new',
      '  buffers for in-place ops that AOTAutograd makes functional (the in-place MLP).',
    ]);
  if (autograd.length > 0) {
    printTable('Training steps: the joint graph against torch.compile(step) + loss.backward() (AOTAutograd: a forward and a backward graph)',
      ['program', 'given', 'ours', 'Inductor, joint as one graph', 'Inductor forward', 'Inductor backward', 'graphs logged'], autograd, [
        'Inductor forward / backward: the figures memory.py logs for the two graphs AOTAutograd partitions the step into; the',
        '  backward graph counts the saved activations it may free (its inputs other than primals_* and tangents_*), not',
        '  the parameters; the forward graph keeps the saved activations as outputs.',
      ]);
  }
}

function scaleTable(sessions) {
  if (!existsSync(SCALE)) {
    console.log(`\n32-layer Llama-3-8B-like training step not measured: ${SCALE.pathname} is missing ` +
      '(scripts/torch/export_llama_scale.py writes it; it needs torch and transformers)');
    return;
  }
  const file = readFileSync(SCALE);
  const made = existsSync(SCALE_FIGURES) ? readJson(SCALE_FIGURES) : null;
  const rows = [];
  for (const [backend, tp] of Object.entries(sessions)) {
    let imported;
    const importMs = timeMedian(() => { imported = tp.importTorchExport(file); }, { minRuns: 3, minMs: 0, warmup: 1 });
    let plan;
    const planMs = timeMedian(() => { plan = tp.plan(imported.graph); }, { minRuns: 3, minMs: 0, warmup: 1 });
    const s = plan.statistics;
    rows.push([backend, `${(file.byteLength / 2 ** 20).toFixed(2)} MiB`, imported.nodes, imported.graph.ops.length,
      fmt(importMs, 0), fmt(planMs, 0), fmt(importMs + planMs, 0), fmt(s.peakBytes / 2 ** 30, 2),
      fmt(s.persistentBytes / 2 ** 30, 2), fmt(s.arenaOverLowerBound, 4)]);
  }
  const shape = made ? `batch ${made.batch} x sequence ${made.seq}, ${made.dtype}` : '';
  printTable(`32-layer Llama-3-8B-like training step (joint forward + backward, no weights${shape ? `; ${shape}` : ''}): import + plan (median ms, default alignment 512)`,
    ['backend', 'file', 'nodes', 'ops', 'import ms', 'plan ms', 'total ms', 'peak GiB', 'persistent GiB', 'arena / LB'], rows,
    made ? [`exported by scripts/torch/export_llama_scale.py with torch ${made.torch}, transformers ${made.transformers} on ` +
      `${made.machine} (load average ${made.load_average}): build ${made.build_s} s, trace and joint graph ${made.export_s} s, ` +
      `save ${made.save_s} s, deflate ${made.deflate_s} s`] : []);
}

export async function run({ sessions }) {
  const [backend, tp] = Object.entries(sessions).find(([name]) => name === 'native') ?? Object.entries(sessions)[0];
  fixtureTables(tp, backend);
  scaleTable(sessions);
}
