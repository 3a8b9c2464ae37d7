// Control flow planned as ONNX Runtime runs it. A data-dependent If has both
// branches planned as subgraphs, its op's workspace the larger branch's arena (ORT's IfImpl feeds the
// branch the enclosing graph's values and fetches its outputs into the If's outputs:
// onnxruntime/core/providers/cpu/controlflow/if.cc, IfImpl::Execute); --branch inlines one branch;
// Loop and Scan plan their body (loop.cc LoopImpl::Execute keeps every iteration's scan outputs and
// concatenates them at the end; scan_utils.cc LoopStateVariable holds two state buffers).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importOnnx } from '../../../dist/index.mjs';
import type { GraphDocument } from '../../../dist/index.mjs';
import { BACKENDS, session } from '../../support/backends';
import { dataDependentIfModel, loopModel, scanModel, unequalShapesIfModel } from './onnx-control-flow.mjs';
import { sampleRateModel } from './onnx-patterns.mjs';

const shape = (g: GraphDocument, name: string) => g.tensors.find((t) => t.name === name)?.shape;
const op = (g: GraphDocument, name: string) => g.ops.find((o) => o.name === name);
const bin = new URL('../../../bin/tensorplan.mjs', import.meta.url).pathname;
const run = (...args: string[]) => {
  const out = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
};
const dir = mkdtempSync(join(tmpdir(), 'tp-onnx-cf-'));
const file = (name: string, bytes: Uint8Array) => {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
};

const KiB16 = 64 * 64 * 4; // one [64, 64] fp32 tensor
const T256 = 4 * 16 * 4; // one [4, 16] fp32 tensor: one 256-byte alignment unit

describe.each(BACKENDS)('ONNX control flow planned with subgraphs (%s)', (backend) => {
  const tp = session(backend);

  it('a data-dependent If: the op needs the larger branch\'s arena as its workspace, named by the branch', () => {
    // Hand computation. then: Relu(x) -> a, Tanh(a) -> b, Neg(b) -> out: a and b are live together
    // while Tanh runs (x and out are the enclosing graph's, outside the branch's arena): 2 x 16 KiB.
    // else: Neg(x) -> e, Abs(e) -> out: e alone, 16 KiB. The workspace is the then branch's 32 KiB.
    for (const swap of [false, true]) {
      const r = tp.importOnnx(dataDependentIfModel({ swap }));
      const big = swap ? 'else_branch' : 'then_branch';
      expect(r.subgraphs).toEqual([{
        op: 'gate', opType: 'If', workspaceBytes: 2 * KiB16, workspaceFrom: big,
        peaks: { then_branch: swap ? KiB16 : 2 * KiB16, else_branch: swap ? 2 * KiB16 : KiB16 },
      }]);
      expect(op(r.graph, 'gate')).toMatchObject({
        op: 'If', inputs: ['c', 'x'], outputs: ['y'], workspaceBytes: 2 * KiB16,
        attributes: { workspaceFrom: big, thenBranchPeakBytes: swap ? KiB16 : 2 * KiB16, elseBranchPeakBytes: swap ? 2 * KiB16 : KiB16 },
      });
      expect(r.graph.ops.map((o) => o.op)).toEqual(['If', 'Sigmoid']);
      expect(shape(r.graph, 'y')).toEqual([64, 64]);
      expect(r.nodes).toBe(7);
      const plan = tp.plan(r.graph);
      expect(plan.workspaces).toEqual([expect.objectContaining({ op: 'gate', bytes: 2 * KiB16 })]);
      // While the If runs: c (256 B), x, y and the workspace.
      expect(plan.arenaBytes).toBe(256 + 2 * KiB16 + 2 * KiB16);
    }
  });

  it('If outputs of different shapes: the elementwise maximum from opset 11 on; different ranks or opset < 11 are errors', () => {
    // then x[0:2] is [2, 8], else x[0:4, 0:4] is [4, 4]: ORT allocates the shape of the branch that
    // runs, so the plan holds [4, 8], which bounds both (and Relu's output after it).
    const r = tp.importOnnx(unequalShapesIfModel());
    expect(shape(r.graph, 'y')).toEqual([4, 8]);
    expect(shape(r.graph, 'z')).toEqual([4, 8]);
    expect(() => tp.importOnnx(unequalShapesIfModel({ rank1: true }))).toThrow(
      /node "gate" \(If\): output 0 \("y"\): the then_branch gives shape \[2,8\], the else_branch \[32\]: different ranks.*--branch/);
    expect(() => tp.importOnnx(unequalShapesIfModel({ opset: 10 }))).toThrow(/\[2,8\], the else_branch \[4,4\]; before opset 11 both branches must give the same shape/);
  });

  it('branches (--branch NODE=then|else) inlines the branch that runs; errors name the node and list the Ifs', () => {
    const then = tp.importOnnx(dataDependentIfModel(), { branches: { gate: 'then' } });
    expect(then.graph.ops.map((o) => o.name)).toEqual(['relu', 'tanh', 'neg_big', 'sigmoid']);
    expect(then).toMatchObject({ inlinedIfs: 1, subgraphs: [] });
    const other = tp.importOnnx(dataDependentIfModel(), { branches: { gate: 'else' } });
    expect(other.graph.ops.map((o) => o.name)).toEqual(['neg_small', 'abs', 'sigmoid']);
    expect(op(other.graph, 'sigmoid')?.inputs).toEqual(['small_out']);
    // Inlined, the branch's intermediates are ordinary tensors: two [64, 64] live at every step (x
    // dies at relu, a at tanh, ...), and c: less than the If planned with its branches as
    // subgraphs (c, x, y and the 32 KiB workspace), since the planner sees the branch's ops.
    expect(tp.plan(then.graph).arenaBytes).toBe(256 + 2 * KiB16);
    expect(() => tp.importOnnx(dataDependentIfModel(), { branches: { gat: 'then' } })).toThrow(/--branch gat=then: the model has no If node "gat" \(If nodes: "gate"\)/);
    expect(() => tp.importOnnx(dataDependentIfModel(), { branches: { gate: 'maybe' as 'then' } })).toThrow(/options.branches.gate = "maybe": must be 'then' or 'else'/);
    expect(() => tp.importOnnx(loopModel(), { branches: { loop: 'then' } })).toThrow(/no If node "loop" \(it has no If nodes\)/);
    // A branch that contradicts a condition known at import time.
    expect(() => tp.importOnnx(sampleRateModel(), { values: { sr: 16000 }, branches: { outer_if: 'else' } }))
      .toThrow(/--branch outer_if=else: the condition of node "outer_if" \(If\) \("is16k"\) is known at import time and selects the then_branch/);
    // Nested Ifs are named by their own node name.
    const nested = tp.importOnnx(sampleRateModel(), { branches: { outer_if: 'then', inner_if: 'else' } });
    expect(nested.graph.ops.map((o) => o.op)).toEqual(['Equal', 'Greater', 'Neg', 'Sigmoid']);
  });

  it('--branch on the CLI, both ways', () => {
    const model = file(`if-${backend}.onnx`, dataDependentIfModel());
    for (const [which, ops] of [['then', 4], ['else', 3]] as const) {
      const r = run('import', model, '--branch', `gate=${which}`, '--json', '--backend', backend);
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toMatchObject({ inlinedIfs: 1, ops, subgraphs: [] });
      expect(run('plan', model, '--branch', `gate=${which}`, '--backend', backend).code).toBe(0);
    }
    const both = run('plan', model, '--backend', backend);
    expect(both).toMatchObject({ code: 0, stdout: expect.stringMatching(/If "gate": workspace 32768 B from its then_branch \(then_branch 32768 B, else_branch 16384 B\)/) });
    expect(run('plan', model, '--branch', 'gate', '--backend', backend)).toMatchObject({ code: 2, stderr: expect.stringMatching(/--branch gate: expected NODE=then or NODE=else/) });
    expect(run('plan', model, '--branch', 'gates=else', '--backend', backend)).toMatchObject({ code: 2, stderr: expect.stringMatching(/no If node "gates" \(If nodes: "gate"\)/) });
  });

  it('a Loop with a trip count from the file: the body\'s arena plus the scan outputs ORT keeps, as the workspace', () => {
    // Body (its inputs and outputs in its own frame, as ORT's LoopImpl runs it; x is the enclosing
    // graph's): cond_in (bool, and cond_out, a view of it) lives throughout; Add(acc_in, x) -> s
    // holds cond_in + acc_in + s; Relu holds cond_in + s + acc_out; Neg cond_in + acc_out + per:
    // 3 x 256 B (the iteration number is read by no op). ORT keeps the 4 earlier iterations' `per`
    // (256 B each) until it concatenates them: 768 + 4 x 256 = 1792 B.
    const r = tp.importOnnx(loopModel());
    expect(r.subgraphs).toEqual([{ op: 'loop', opType: 'Loop', workspaceBytes: 3 * T256 + 4 * T256, workspaceFrom: 'body', peaks: { body: 3 * T256 }, tripCount: 5, temporaryBytes: 4 * T256 }]);
    expect(op(r.graph, 'loop')).toMatchObject({ inputs: ['M', 'acc0', 'x'], outputs: ['acc', 'scan'], workspaceBytes: 7 * T256 });
    expect(shape(r.graph, 'acc')).toEqual([4, 16]);
    expect(shape(r.graph, 'scan')).toEqual([5, 4, 16]);
    expect(tp.plan(r.graph).workspaces).toEqual([expect.objectContaining({ op: 'loop', bytes: 7 * T256 })]);
    // No iterations: the body never runs.
    const none = tp.importOnnx(loopModel({ trip: 0 }));
    expect(shape(none.graph, 'scan')).toEqual([0, 4, 16]);
    expect(op(none.graph, 'loop')?.workspaceBytes).toBeUndefined();
  });

  it('a Loop whose trip count is a graph input: --value sets it; unknown, it is an error that names the input', () => {
    const r = tp.importOnnx(loopModel({ tripFromInput: true }), { values: { M: 3 } });
    expect(shape(r.graph, 'scan')).toEqual([3, 4, 16]);
    expect(r.subgraphs[0]).toMatchObject({ tripCount: 3, workspaceBytes: 3 * T256 + 2 * T256 });
    expect(() => tp.importOnnx(loopModel({ tripFromInput: true }))).toThrow(
      /node "loop" \(Loop\): its trip count \(input 0, "M"\) is not known at import time, so its scan output "scan" \(trip count x the per-iteration shape\) cannot be sized: it depends on graph input "M"; give its value with --value M=V/);
    expect(() => tp.importOnnx(loopModel({ noTrip: true }))).toThrow(/it has no trip count \(input 0, "M", is empty\): it runs until its condition turns false/);
    const model = file(`loop-${backend}.onnx`, loopModel({ tripFromInput: true }));
    const cli = run('import', model, '--value', 'M=3', '--json', '--backend', backend);
    expect(cli.stderr).toBe('');
    expect(JSON.parse(cli.stdout).graph.ops[0]).toMatchObject({ name: 'loop', workspaceBytes: 5 * T256 });
    expect(run('plan', model, '--backend', backend)).toMatchObject({ code: 2, stderr: expect.stringMatching(/--value M=V/) });
  });

  it('a Scan: the body\'s arena plus ORT\'s two state buffers (and the transpose of an input scanned along axis 1)', () => {
    // Body inputs (the state, a slice of xs) and outputs (the state, a slice of ys) are the Scan's
    // buffers or ORT's state buffers, outside the body's arena: it holds s alone (256 B). ORT's
    // LoopStateVariable adds two state buffers for 6 iterations: 256 + 2 x 256 B.
    const r = tp.importOnnx(scanModel());
    expect(r.subgraphs).toEqual([{ op: 'scan', opType: 'Scan', workspaceBytes: 3 * T256, workspaceFrom: 'body', peaks: { body: T256 }, tripCount: 6, temporaryBytes: 2 * T256 }]);
    expect(shape(r.graph, 'ys')).toEqual([6, 4, 16]);
    expect(shape(r.graph, 'acc')).toEqual([4, 16]);
    // xs of [4, 6, 16] scanned on axis 1: ORT transposes it into a temporary of its size first.
    const t = tp.importOnnx(scanModel({ inputAxis: 1 }));
    expect(t.subgraphs[0]).toMatchObject({ tripCount: 6, workspaceBytes: 3 * T256 + 6 * T256, temporaryBytes: 2 * T256 + 6 * T256 });
    expect(shape(t.graph, 'ys')).toEqual([6, 4, 16]);
  });

  it('nested: a data-dependent If in a Loop body is planned inside the body\'s plan', () => {
    // inner_if (on i < 3, unknown): then Relu(acc_in) -> r1, Neg(r1) -> out holds r1 (256 B); else 0.
    // Body: Less(i, 3) holds i, cond_in, acc_in, early; the If holds cond_in, acc_in, early, h and its
    // 256 B workspace = 5 x 256 B (i is dead); then add, relu, neg hold 3 x 256 B.
    const r = tp.importOnnx(loopModel({ nested: true }));
    expect(r.subgraphs).toEqual([
      { op: 'loop/inner_if', opType: 'If', workspaceBytes: T256, workspaceFrom: 'then_branch', peaks: { then_branch: T256, else_branch: 0 } },
      { op: 'loop', opType: 'Loop', workspaceBytes: 5 * T256 + 4 * T256, workspaceFrom: 'body', peaks: { body: 5 * T256 }, tripCount: 5, temporaryBytes: 4 * T256 },
    ]);
    expect(r.nodes).toBe(10);
  });
});

describe('control flow without a session', () => {
  it('the free importOnnx has no planner: a data-dependent If or a Loop says to use tp.importOnnx (or --branch)', () => {
    expect(() => importOnnx(dataDependentIfModel())).toThrow(
      /node "gate" \(If\): its condition "c" is not known at import time: it depends on graph input "c".*or choose the branch that runs with --branch gate=then\|else \(API: branches\); .*use tp.importOnnx\(bytes, options\) on a session/);
    expect(importOnnx(dataDependentIfModel(), { branches: { gate: 'else' } }).graph.ops).toHaveLength(3);
    expect(() => importOnnx(loopModel())).toThrow(/node "loop" \(Loop\): a Loop is planned with its body; .*use tp.importOnnx/);
    expect(() => importOnnx(scanModel())).toThrow(/node "scan" \(Scan\): a Scan is planned with its body/);
  });
});
