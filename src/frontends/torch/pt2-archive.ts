// A .pt2 archive (torch.export.save) is an uncompressed zip; the program is
// `<archive name>/models/model.json` (torch/export/pt2_archive/_package.py, PT2ArchiveWriter and
// package_pt2 in torch 2.13). Weights, constants and sample inputs (`data/`) are not needed to plan.
import { unzipSync } from 'fflate';
import { TensorplanError } from '../../errors.js';

// The entry that holds the program: <archive name>/models/model.json (the name is free).
const MODEL_JSON = /(^|\/)models\/model\.json$/;

/** The text of models/model.json inside the archive's bytes; errors name the file and why. */
export function readModelJson(bytes: Uint8Array, source: string): { text: string; entry: string } {
  let files: Record<string, Uint8Array>;
  try {
    // Only the program is decompressed: every other entry is skipped unread.
    files = unzipSync(bytes, { filter: (file) => MODEL_JSON.test(file.name) });
  } catch (error) {
    throw new TensorplanError('INVALID_ARGUMENT', `${source}: not a readable .pt2 archive (a zip written by torch.export.save): ${(error as Error).message}`);
  }
  const entries = Object.keys(files).filter((name) => MODEL_JSON.test(name)).sort();
  if (entries.length === 0) {
    throw new TensorplanError('INVALID_ARGUMENT', `${source}: the archive has no <name>/models/model.json (torch.export.save writes the program there)`);
  }
  // torch.export.save writes one program, "model"; an archive with several (torch._inductor's
  // packages) is read by its first in name order.
  const entry = entries[0];
  return { text: new TextDecoder('utf-8', { fatal: false }).decode(files[entry]), entry };
}
