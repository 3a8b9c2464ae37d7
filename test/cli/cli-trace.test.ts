// `tensorplan plan ... --trace out.json`: the plan as a Chrome
// trace-event file (Trace Event Format, JSON object form) that Perfetto and
// chrome://tracing open.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PlanDocument } from '../../dist/index.mjs';

const bin = new URL('../../bin/tensorplan.mjs', import.meta.url).pathname;
const example = (name: string) => new URL(`../../examples/${name}`, import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'tensorplan-trace-'));

interface TraceEvent { name: string; ph: string; ts?: number; dur?: number; pid: number; tid?: number; args?: Record<string, unknown> }

/** Plans `file` writing both the plan and the trace, and returns them. */
function planWithTrace(file: string, tag: string): { plan: PlanDocument; events: TraceEvent[]; stdout: string } {
  const planFile = join(dir, `${tag}.plan.json`);
  const traceFile = join(dir, `${tag}.trace.json`);
  const out = spawnSync(process.execPath, [bin, 'plan', file, '-o', planFile, '--trace', traceFile, '--backend', 'wasm'], { encoding: 'utf8' });
  expect(out.status, out.stderr).toBe(0);
  const trace = JSON.parse(readFileSync(traceFile, 'utf8'));
  expect(trace.displayTimeUnit).toBe('ms');
  return { plan: JSON.parse(readFileSync(planFile, 'utf8')), events: trace.traceEvents, stdout: out.stdout };
}

describe('tensorplan plan --trace', () => {
  it.each(['mlp-training.graph.json', 'moe-layer.json', 'transformer-block-training.json'])('%s: one slice per op in schedule order; the live-bytes series add up to the plan', (name) => {
    const { plan, events, stdout } = planWithTrace(example(name), name);
    expect(stdout).toContain('trace written to');
    // Metadata names the process and the thread.
    expect(events.filter((e) => e.ph === 'M').map((e) => e.name).sort()).toEqual(['process_name', 'thread_name']);
    const slices = events.filter((e) => e.ph === 'X');
    expect(slices.map((e) => e.name)).toEqual(plan.schedule);
    slices.forEach((e, k) => {
      expect(e.ts).toBe(k * 1000);
      expect(e.dur).toBe(1000);
      expect(e.args!.liveBytes).toBe(plan.statistics.liveBytes[k]);
    });
    const live = events.filter((e) => e.ph === 'C' && e.name === 'live bytes');
    expect(live).toHaveLength(plan.schedule.length);
    live.forEach((e, k) => {
      const { persistent, ...arena } = e.args as Record<string, number>;
      expect(persistent).toBe(plan.statistics.persistentBytes);
      // Every category series is bytes in the arena: together they are the step's live bytes.
      expect(Object.values(arena).reduce((a, b) => a + b, 0), `step ${k}`).toBe(plan.statistics.liveBytes[k]);
    });
    const peak = events.find((e) => e.ph === 'i')!;
    expect(peak.ts).toBe(plan.statistics.peakStep * 1000);
    expect(peak.args!.peakBytes).toBe(plan.statistics.peakBytes);
    const arena = events.filter((e) => e.ph === 'C' && e.name === 'arena');
    expect(arena.every((e) => e.args!.arena === plan.arenaBytes && e.args!['lower bound'] === plan.statistics.lowerBoundBytes)).toBe(true);
  });

  it('a layer spec: bytes saved for backward, gradients and transients are separate series', () => {
    const { plan, events } = planWithTrace(example('llama3-8b-bf16-tp8sp.layers.json'), 'llama');
    const atPeak = events.filter((e) => e.ph === 'C' && e.name === 'live bytes')[plan.statistics.peakStep].args as Record<string, number>;
    expect(Object.keys(atPeak).sort()).toEqual(expect.arrayContaining(['gradients', 'persistent', 'saved for backward', 'transients']));
    // At a training step's peak most of the arena is what forward saved for backward.
    expect(atPeak['saved for backward']).toBeGreaterThan(plan.statistics.peakBytes / 2);
  });
});
