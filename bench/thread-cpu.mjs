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

/**
 * Median wall ms of `fn` over at least `minRuns` runs and `minMs` ms, after `warmup` runs, and
 * the main thread's mean CPU ms per run. The kernel's counter moves in scheduler ticks, so a
 * call of a millisecond or two often reads 0 on its own (a median of those was 0, and a ratio
 * of two of them NaN): the mean is taken over the whole batch instead.
 */
export function timeMedianWithCpu(fn, { minRuns = 5, minMs = 300, warmup = 2 } = {}) {
  for (let i = 0; i < warmup; i++) fn();
  const wall = [];
  const start = performance.now();
  const cpuStart = threadCpuMs();
  while (wall.length < minRuns || (performance.now() - start < minMs && wall.length < 1000)) {
    const t0 = performance.now();
    fn();
    wall.push(performance.now() - t0);
  }
  const cpuMs = (threadCpuMs() - cpuStart) / wall.length;
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return { ms: median(wall), cpuMs };
}
