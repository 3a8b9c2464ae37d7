// Child process of bench/wasm-native.bench.mjs: one fresh process, one backend,
// one graph. Prints JSON { firstMs, firstCpuMs, warmMs, warmCpuMs, fingerprint }:
// first runs from just before init() to the return of the first plan() (loading
// the core, compiling and instantiating the module, and the first plan with
// every cold path), warm is the median of later plan() calls in the same
// process. *CpuMs is the CPU time of the calling thread alone (Linux), without
// V8's background compiler threads: on a machine with idle cores those run
// beside it and the wall time approaches it; on a loaded one they compete for
// the same cores and the wall time grows.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';

const [backend, graphFile, warmRuns] = process.argv.slice(2);
const graph = JSON.parse(readFileSync(graphFile, 'utf8'));
const { init } = await import('../dist/index.mjs');

/** CPU time of this (the main) thread in ms, from the scheduler's own account; NaN off Linux. */
function threadCpuMs() {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return NaN;
  }
}

const startCpu = threadCpuMs();
const start = performance.now();
const tp = await init({ backend });
const plan = tp.plan(graph);
const firstMs = performance.now() - start;
const firstCpuMs = threadCpuMs() - startCpu;

const samples = [];
const cpuSamples = [];
for (let i = 0; i < Number(warmRuns); i++) {
  const cpu0 = threadCpuMs();
  const t0 = performance.now();
  tp.plan(graph);
  samples.push(performance.now() - t0);
  cpuSamples.push(threadCpuMs() - cpu0);
}
const median = (values) => (values.length ? [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] : NaN);
// The plan without what may differ between backends (timings, the backend's name): both must agree.
delete plan.statistics.timeMs;
delete plan.tool.backend;
const fingerprint = createHash('sha256').update(JSON.stringify(plan)).digest('hex').slice(0, 16);
console.log(JSON.stringify({ firstMs, firstCpuMs, warmMs: median(samples), warmCpuMs: median(cpuSamples), fingerprint }));
