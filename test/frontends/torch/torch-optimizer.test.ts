// `optimizer` (`--optimizer`): the states torch/optim keeps per trained parameter become
// persistent memory (src/frontends/torch/optimizer-state.ts names the sources): none for SGD,
// one buffer for SGD with momentum, exp_avg and exp_avg_sq for Adam and AdamW; a 16-bit float
// parameter trains against an fp32 master copy and its states are fp32.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importTorchExport } from '../../../dist/index.mjs';
import { BACKENDS, session } from '../../support/backends';

const fp32Step = new Uint8Array(readFileSync(new URL('../../fixtures/torch-models/llama_gqa.train.pt2', import.meta.url)));
const bf16Step = new Uint8Array(readFileSync(new URL('../../../bench/data/torch/llama3-8b-32l.train.pt2', import.meta.url)));
const bin = new URL('../../../bin/tensorplan.mjs', import.meta.url).pathname;

describe('optimizer state of a training step', () => {
  it('adds no tensor without an optimizer or with plain SGD', () => {
    const none = importTorchExport(fp32Step, { alignment: 1 });
    const sgd = importTorchExport(fp32Step, { alignment: 1, optimizer: 'sgd' });
    expect(sgd.graph.persistent).toEqual(none.graph.persistent);
    expect(sgd.categoryBytes['optimizer state']).toBeUndefined();
    expect(sgd.categoryBytes['master weights']).toBeUndefined();
  });

  it('fp32 parameters: one state per parameter for momentum, two for Adam and AdamW, of the parameter\'s bytes, no master copy', () => {
    const parameters = importTorchExport(fp32Step, { alignment: 1 }).categoryBytes.parameters!;
    expect(parameters).toBeGreaterThan(0);
    const momentum = importTorchExport(fp32Step, { alignment: 1, optimizer: 'momentum' });
    expect(momentum.categoryBytes['optimizer state']).toBe(parameters);
    for (const optimizer of ['adam', 'adamw'] as const) {
      const r = importTorchExport(fp32Step, { alignment: 1, optimizer });
      expect(r.categoryBytes['optimizer state'], optimizer).toBe(2 * parameters);
      expect(r.categoryBytes['master weights'], optimizer).toBeUndefined();
      const states = Object.entries(r.categories).filter(([, c]) => c === 'optimizer state').map(([t]) => t);
      expect(states.every((t) => /\.(exp_avg|exp_avg_sq)$/.test(t))).toBe(true);
      expect(states.every((t) => r.graph.persistent!.includes(t))).toBe(true);
    }
  });

  it('bf16 parameters: an fp32 master copy and fp32 states (twice the parameter bytes each); without master weights the states are bf16', () => {
    const parameters = importTorchExport(bf16Step, { alignment: 1 }).categoryBytes.parameters!;
    const adam = importTorchExport(bf16Step, { alignment: 1, optimizer: 'adam' });
    expect(adam.categoryBytes['master weights']).toBe(2 * parameters);
    expect(adam.categoryBytes['optimizer state']).toBe(4 * parameters);
    const plain = importTorchExport(bf16Step, { alignment: 1, optimizer: 'adam', masterWeights: false });
    expect(plain.categoryBytes['master weights']).toBeUndefined();
    expect(plain.categoryBytes['optimizer state']).toBe(2 * parameters);
  });

  it('refuses an optimizer it does not model and a master-weights flag that is not a boolean, naming the field', () => {
    expect(() => importTorchExport(fp32Step, { optimizer: 'rmsprop' as never })).toThrow(/options\.optimizer = "rmsprop": must be one of sgd, momentum, adam, adamw/);
    expect(() => importTorchExport(fp32Step, { optimizer: 'adam', masterWeights: 1 as never })).toThrow(/options\.masterWeights = 1: must be true or false/);
  });

  describe.each(BACKENDS)('planned on %s', (backend) => {
    it('the states are persistent bytes of the plan, and the arena does not change', () => {
      const tp = session(backend);
      const none = tp.plan(importTorchExport(fp32Step, { alignment: 1 }).graph).statistics;
      const r = importTorchExport(fp32Step, { alignment: 1, optimizer: 'adamw' });
      const adamw = tp.plan(r.graph).statistics;
      expect(adamw.persistentBytes - none.persistentBytes).toBe(r.categoryBytes['optimizer state']);
      expect(adamw.peakBytes).toBe(none.peakBytes);
    });
  });

  it('tensorplan plan MODEL.pt2 --optimizer adam prints the optimizer state; a name it does not know exits 2', () => {
    const run = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
    const file = new URL('../../fixtures/torch-models/llama_gqa.train.pt2', import.meta.url).pathname;
    const ok = run('plan', file, '--optimizer', 'adam', '--alignment', '1');
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/optimizer state \d+ B/);
    const bad = run('plan', file, '--optimizer', 'rmsprop');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--optimizer.*rmsprop/);
  });
});
