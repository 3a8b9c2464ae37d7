// Child process of bench/wasm-native.bench.mjs: one fresh process, one backend,
// one graph. Prints JSON { firstMs, firstCpuMs, fingerprint }: the first call
// runs from just before init() to the return of the first plan() (loading the
// core, compiling and instantiating the module, and the first plan with every
// cold path). firstCpuMs is the CPU time of the calling thread alone (Linux),
// without V8's background compiler threads: on a machine with idle cores those
// run beside it and the wall time approaches it; on a loaded one they compete
// for the same cores and the wall time grows.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { threadCpuMs } from './thread-cpu.mjs';

const [backend, graphFile] = process.argv.slice(2);
const graph = JSON.parse(readFileSync(graphFile, 'utf8'));
const { init } = await import('../dist/index.mjs');

const startCpu = threadCpuMs();
const start = performance.now();
const tp = await init({ backend });
const plan = tp.plan(graph);
const firstMs = performance.now() - start;
const firstCpuMs = threadCpuMs() - startCpu;

// The plan without what may differ between backends (timings, the backend's name): both must agree.
delete plan.statistics.timeMs;
delete plan.tool.backend;
const fingerprint = createHash('sha256').update(JSON.stringify(plan)).digest('hex').slice(0, 16);
console.log(JSON.stringify({ firstMs, firstCpuMs, fingerprint }));
