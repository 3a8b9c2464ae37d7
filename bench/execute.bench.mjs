// Execution: the reference executor (every backend) in the planned arena vs
// one allocation per storage, and, on a cuda session, the CUDA executor
// (plan in one device allocation vs one cudaMalloc/cudaFree per tensor). The
// kernel-level GPU benchmark (quantize bandwidth vs a D2D copy, matmul
// TFLOP/s) is the C++ program cuda/tests/bench_cuda_executor.cu (docs/op-set.md).
import { init } from '../dist/index.mjs';
import { fmt, printTable, timeMedian } from './harness.mjs';

/** A chain of `ops` elementwise/norm/matmul ops over [n, n] fp32 tensors, with a skip every 4 ops. */
function chainGraph(ops, n) {
  const tensors = [{ name: 'x', shape: [n, n], dtype: 'fp32' }, { name: 'w', shape: [n, n], dtype: 'fp32' },
    { name: 'gamma', shape: [n], dtype: 'fp32' }];
  const graphOps = [];
  let prev = 'x';
  for (let i = 0; i < ops; i++) {
    const out = `t${i}`;
    tensors.push({ name: out, shape: [n, n], dtype: 'fp32' });
    const kind = i % 4;
    if (kind === 0) graphOps.push({ name: `op${i}`, op: 'matmul', inputs: [prev, 'w'], outputs: [out] });
    else if (kind === 1) graphOps.push({ name: `op${i}`, op: 'rmsnorm', inputs: [prev, 'gamma'], outputs: [out] });
    else if (kind === 2) graphOps.push({ name: `op${i}`, op: 'gelu', inputs: [prev], outputs: [out] });
    else graphOps.push({ name: `op${i}`, op: 'add', inputs: [prev, `t${i - 3}`], outputs: [out] });
    prev = out;
  }
  return { format: 'tensorplan.graph', version: 1, tensors, ops: graphOps, inputs: ['x', 'gamma'], outputs: [prev], persistent: ['w'] };
}

function inputsFor(n) {
  const x = Float32Array.from({ length: n * n }, (_, i) => Math.sin(i) * 0.5);
  return { x, gamma: new Float32Array(n).fill(1), w: Float32Array.from({ length: n * n }, (_, i) => Math.cos(i) / n) };
}

export async function run({ sessions }) {
  const rows = [];
  for (const [ops, n] of [[32, 64], [64, 128]]) {
    const graph = chainGraph(ops, n);
    const inputs = inputsFor(n);
    for (const [name, tp] of Object.entries(sessions)) {
      const plan = tp.plan(graph);
      const arena = timeMedian(() => tp.executeReference(plan, inputs));
      const separate = timeMedian(() => tp.executeReference(plan, inputs, { memory: 'separate' }));
      rows.push([name, `${ops} ops, [${n}, ${n}]`, fmt(arena), fmt(separate), fmt(separate / arena, 2)]);
    }
  }
  printTable('reference executor: median ms per plan, one arena vs one allocation per storage',
    ['backend', 'graph', 'arena ms', 'separate ms', 'separate / arena'], rows);

  let cuda;
  try {
    cuda = await init({ backend: 'cuda' });
  } catch (error) {
    console.log(`\nCUDA executor: skipped (${error.message})`);
    return;
  }
  const gpuRows = [];
  for (const [ops, n] of [[64, 1024], [64, 2048]]) {
    const graph = chainGraph(ops, n);
    const inputs = inputsFor(n);
    const plan = cuda.plan(graph);
    const arena = cuda.createDeviceArena(cuda.planDeviceBytes(plan));
    const times = async (options) => {
      const t = [];
      for (let i = 0; i < 6; i++) {
        const start = performance.now();
        await cuda.execute(plan, inputs, options);
        t.push(performance.now() - start);
      }
      t.shift();
      return t.sort((a, b) => a - b)[Math.floor(t.length / 2)];
    };
    const planned = await times({ arena });
    const separate = await times({ memory: 'separate' });
    arena.dispose();
    gpuRows.push([`${ops} ops, [${n}, ${n}]`, fmt(planned), fmt(separate), fmt(separate / planned, 2)]);
  }
  printTable('CUDA executor: median ms per plan (host transfers included)',
    ['graph', 'one device arena ms', 'cudaMalloc/cudaFree per tensor ms', 'ratio'], gpuRows);
}
