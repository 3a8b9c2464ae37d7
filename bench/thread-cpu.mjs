// CPU time of the calling (main) thread, for benchmarks that must tell the
// planner's own work from V8's background compiler threads.
import { readFileSync } from 'node:fs';

/** CPU time of the main thread in ms, from the kernel's scheduler statistics; NaN off Linux. */
export function threadCpuMs() {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return NaN;
  }
}

/** Median wall and main-thread CPU ms of `fn` over at least `minRuns` runs and `minMs` ms, after `warmup` runs. */
export function timeMedianWithCpu(fn, { minRuns = 5, minMs = 300, warmup = 2 } = {}) {
  for (let i = 0; i < warmup; i++) fn();
  const wall = [];
  const cpu = [];
  const start = performance.now();
  while (wall.length < minRuns || (performance.now() - start < minMs && wall.length < 1000)) {
    const cpu0 = threadCpuMs();
    const t0 = performance.now();
    fn();
    wall.push(performance.now() - t0);
    cpu.push(threadCpuMs() - cpu0);
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return { ms: median(wall), cpuMs: median(cpu) };
}
