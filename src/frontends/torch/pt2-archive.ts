// A .pt2 archive (torch.export.save) is an uncompressed zip; the program is
// `<archive name>/models/model.json` (torch/export/pt2_archive/_package.py, PT2ArchiveWriter and
// package_pt2 in torch 2.13). The weights' and constants' bytes (`data/`) are not needed to plan;
// only their configs and record sizes are read, for the storages that tensors share.
import { unzipSync } from 'fflate';
import { TensorplanError } from '../../errors.js';

// The entry that holds the program: <archive name>/models/model.json (the name is free).
const MODEL_JSON = /(^|\/)models\/model\.json$/;
// The payload configs of weights and constants: <archive name>/data/{weights,constants}/model_*_config.json.
const PAYLOAD_CONFIG = /(^|\/)data\/(weights|constants)\/model_(weights|constants)_config\.json$/;
const PAYLOAD_RECORD = /(^|\/)data\/(weights|constants)\/[^/]+$/;

/**
 * One storage that torch.export.save wrote for a parameter, buffer or constant: `_save_raw_tensors`
 * (torch/export/pt2_archive/_package.py, torch 2.13) groups the state dict's tensors by storage
 * (`group_weights`) and writes each group's whole storage once, as one record that every tensor of
 * the group names as its `path_name`; `_build_file_map` loads one tensor per record. Records of
 * fake or meta tensors are empty (`_get_raw_tensor_bytes`) and say nothing about sharing.
 */
export interface PayloadStorage { record: string; bytes: number }

/** The program's text and, per state-dict name (FQN), the record holding its storage's bytes. */
export interface Pt2Contents { text: string; entry: string; payloads: Map<string, PayloadStorage> }

/** The text of models/model.json inside the archive's bytes; errors name the file and why. */
export function readModelJson(bytes: Uint8Array, source: string): Pt2Contents {
  let files: Record<string, Uint8Array>;
  const recordBytes = new Map<string, number>();
  try {
    // Only the program and the payload configs are decompressed: the records are skipped unread.
    files = unzipSync(bytes, {
      filter: (file) => {
        if (MODEL_JSON.test(file.name) || PAYLOAD_CONFIG.test(file.name)) return true;
        if (PAYLOAD_RECORD.test(file.name)) recordBytes.set(file.name, file.originalSize);
        return false;
      },
    });
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
  const text = new TextDecoder('utf-8', { fatal: false }).decode(files[entry]);
  return { text, entry, payloads: payloadStorages(files, recordBytes, entry.slice(0, entry.length - 'models/model.json'.length)) };
}

/** FQN -> its non-empty record, from the payload configs under `prefix` (schema.py PayloadConfig). */
function payloadStorages(files: Record<string, Uint8Array>, recordBytes: Map<string, number>, prefix: string): Map<string, PayloadStorage> {
  const payloads = new Map<string, PayloadStorage>();
  for (const dir of ['weights', 'constants']) {
    const config = files[`${prefix}data/${dir}/model_${dir}_config.json`];
    if (!config) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder('utf-8', { fatal: false }).decode(config));
    } catch {
      continue; // the program plans without it: each tensor then has its own storage
    }
    const entries = (parsed as { config?: unknown } | null)?.config;
    if (entries === null || typeof entries !== 'object') continue;
    for (const [fqn, meta] of Object.entries(entries as Record<string, unknown>)) {
      const m = meta as { path_name?: unknown; use_pickle?: unknown } | null;
      if (!m || typeof m.path_name !== 'string' || m.use_pickle === true) continue;
      const record = `${prefix}data/${dir}/${m.path_name}`;
      const size = recordBytes.get(record);
      if (size !== undefined && size > 0) payloads.set(fqn, { record, bytes: size });
    }
  }
  return payloads;
}
