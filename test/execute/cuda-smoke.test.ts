// The CUDA smoke kernel through the addon. Skipped, with the reason in the
// test name, where no GPU is usable (CI and this project's dev machines).
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { info } from '../../dist/index.mjs';
import type { NativeAddon } from '../../src/backend/native-core';

const report = await info();
const cuda = report.backends.find((b) => b.name === 'cuda')!;
const skipReason = cuda.available ? '' : ` (skipped: ${cuda.reason})`;
if (!cuda.available) console.warn(`[tests] CUDA tests skipped: ${cuda.reason}`);

describe('cuda', () => {
  it.skipIf(!cuda.available)(`saxpy smoke kernel matches the host${skipReason}`, async () => {
    // The addon the built package loaded (src/backend resolves paths relative
    // to dist/, so it cannot be imported from src/ here).
    const addon = createRequire(import.meta.url)(cuda.source!) as NativeAddon;
    const x = Float32Array.from({ length: 1000 }, (_, i) => i * 0.5);
    const y = Float32Array.from({ length: 1000 }, (_, i) => 1 - i);
    const out = addon.cuda_smoke_saxpy(3, x, y);
    expect(typeof out).not.toBe('string');
    for (let i = 0; i < x.length; i++) expect((out as Float32Array)[i]).toBe(Math.fround(Math.fround(3 * x[i]) + y[i]));
  });

  it.skipIf(!cuda.available)(`info() lists the device with its memory${skipReason}`, () => {
    expect(report.cuda!.devices.length).toBeGreaterThan(0);
    expect(report.cuda!.devices[0].totalMemoryBytes).toBeGreaterThan(0);
  });
});
