// A small schema-valid layer spec must not kill Node or run
// for minutes; its size is bounded from its fields before anything is built.
import { describe, expect, it } from 'vitest';
import { parseLayerSpec } from '../../../dist/index.mjs';
import { BACKENDS, session } from '../../support/backends';

const model = { hidden: 256, ffn: 512, heads: 4, sequence: 128, microBatch: 1 };
const spec = (layer: object) => ({ format: 'tensorplan.layers', version: 1, model, layers: [layer] });

const CASES: [string, object, RegExp][] = [
  ['groups: 2^30', { kind: 'groupedLinear', groups: 2 ** 30, outFeatures: 256 }, /layers\[0\]\.groups = 1073741824: .* more than the limit 131072/],
  ['experts: 2^20', { kind: 'moe', experts: 2 ** 20, topK: 1 }, /layers\[0\]\.experts = 1048576: .* more than the limit 131072/],
  ['repeat: 4096', { kind: 'transformer', repeat: 4096 }, /layers\[0\]\.repeat = 4096: .* more than the limit 131072/],
];

describe('layer spec limits (parseLayerSpec)', () => {
  it.each(CASES)('%s is refused quickly with INVALID_ARGUMENT naming the field, the value and the limit', (_, layer, message) => {
    const started = Date.now();
    expect(() => parseLayerSpec(spec(layer))).toThrow(expect.objectContaining({ name: 'TensorplanError', code: 'INVALID_ARGUMENT', message: expect.stringMatching(message) }));
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('a tensor with more elements than bytes can count exactly is refused naming the model field', () => {
    expect(() => parseLayerSpec({ ...spec({ kind: 'linear', outFeatures: 8 }), model: { ...model, hidden: 2 ** 30, heads: 1, sequence: 2 ** 30, microBatch: 8 } }))
      .toThrow(/model\.hidden = 1073741824: .* more than the limit 2251799813685248/);
  });
});

describe.each(BACKENDS)('layer spec limits on %s', (backend) => {
  it.each(CASES)('layerGraph with %s fails before building', (_, layer, message) => {
    expect(() => session(backend).layerGraph(spec(layer))).toThrow(message);
  });
});
