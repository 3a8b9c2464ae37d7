// The committed alias table (src/frontends/torch/aten-aliases.generated.ts) is what
// scripts/torch/gen-aten-aliases.py makes from the installed torch (skipped with the reason when
// python cannot import torch, or when the installed torch is another version than the table's).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ATEN_ALIASES, ATEN_ALIAS_SOURCE } from '../../../src/frontends/torch/aten-aliases.generated';
import { findTorch } from './torch-support';

const torch = findTorch();
const tablePath = new URL('../../../src/frontends/torch/aten-aliases.generated.ts', import.meta.url).pathname;
const script = new URL('../../../scripts/torch/gen-aten-aliases.py', import.meta.url).pathname;
const sameVersion = torch.version !== undefined && `torch ${torch.version}` === ATEN_ALIAS_SOURCE;
const why = !torch.python ? torch.why : sameVersion ? torch.why : `skipped: installed torch ${torch.version}, table from ${ATEN_ALIAS_SOURCE} (npm run gen:aten regenerates it)`;

describe('the ATen alias table', () => {
  it('holds the annotations the rules rely on', () => {
    expect(ATEN_ALIASES['add_.Tensor']).toEqual({ args: { self: 'a!' }, returns: ['a!'] });
    expect(ATEN_ALIASES['split.Tensor']).toEqual({ args: { self: 'a' }, returns: ['a[]'] });
    expect(ATEN_ALIASES['_foreach_add_.List']).toEqual({ args: { self: 'a![]' }, returns: [] });
    expect(ATEN_ALIASES['view']).toEqual({ args: { self: 'a' }, returns: ['a'] });
    expect(ATEN_ALIASES['topk.values'].returns).toEqual(['a!', 'b!']);
  });

  it.skipIf(!sameVersion)(`equals the generator's output for the installed torch (${why})`, { timeout: 120_000 }, () => {
    const out = spawnSync(torch.python!, [script, '--stdout'], { encoding: 'utf8', maxBuffer: 64 << 20 });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toBe(readFileSync(tablePath, 'utf8'));
  });
});
