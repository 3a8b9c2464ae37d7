// `tensorplan describe`: the inner buffers of a quantized format (FORMATS.md §2).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const bin = new URL('../../bin/tensorplan.mjs', import.meta.url).pathname;

function run(...args: string[]) {
  const out = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

describe('tensorplan describe', () => {
  it.each(['wasm', 'native'])('--json lists the MXFP8 [1024,4096] buffers on %s', (backend) => {
    const out = run('describe', '--shape', '1024,4096', '--recipe', 'mxfp8', '--json', '--backend', backend);
    if (backend === 'native' && out.code !== 0 && /native/.test(out.stderr)) return;  // addon not built here
    expect(out.code).toBe(0);
    const report = JSON.parse(out.stdout);
    expect(report.buffers.map((b: { name: string; bytes: number }) => [b.name, b.bytes])).toEqual([
      ['_rowwise_data', 4194304], ['_rowwise_scale_inv', 131072], ['_columnwise_data', 4194304], ['_columnwise_scale_inv', 131072],
    ]);
    expect(report.totalBytes).toBe(8650752);
  });

  it('prints a table for people', () => {
    const out = run('describe', '--shape', '1000,4096', '--recipe', 'fp8_current', '--arch', 'blackwell', '--backend', 'wasm');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('_data');
    expect(out.stdout).not.toContain('_transpose');
    expect(out.stdout).toContain('4,096,004 B');
  });

  it('exits 2 naming the rule when the recipe cannot quantize the shape', () => {
    const out = run('describe', '--shape', '1000,4096', '--recipe', 'mxfp8', '--backend', 'wasm');
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('mxfp8 cannot quantize shape [1000, 4096]: needs M % 32 == 0');
    expect(run('describe', '--shape', 'ab', '--backend', 'wasm')).toMatchObject({ code: 2, stderr: expect.stringContaining('--shape') });
    expect(run('describe', '--shape', '32,32', '--usage', 'diagonal', '--backend', 'wasm').code).toBe(2);
  });
});

describe('tensorplan describe --grouped', () => {
  it('prints the grouped layout of FORMATS.md §3 (MXFP8, K=512, first dims 128/256/384) with both sizings', () => {
    const out = spawnSync(process.execPath, [bin, 'describe', '--grouped', '128x512,256x512,384x512', '--recipe', 'mxfp8', '--json'], { encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    const layout = JSON.parse(out.stdout);
    expect(layout.kind).toBe('varying_first');
    expect(layout.logicalShape).toEqual([768, 512]);
    expect(layout.tensorOffsets).toEqual([0, 65536, 196608, 393216]);
    const byName = Object.fromEntries(layout.buffers.map((b: { name: string }) => [b.name, b]));
    expect(byName.rowwise_data.bytes).toBe(393216);
    expect(byName.scale_inv.memberOffsets).toEqual([0, 2048, 6144, 12288]);
    expect(byName.columnwise_scale_inv.memberOffsets).toEqual([0, 2048, 6144, 12288]);
  });

  it('needs exactly one of --shape and --grouped, and checks member shapes', () => {
    expect(spawnSync(process.execPath, [bin, 'describe'], { encoding: 'utf8' }).status).toBe(2);
    const bad = spawnSync(process.execPath, [bin, 'describe', '--grouped', '128x512,7'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--grouped member 1 = "7"');
  });
});
