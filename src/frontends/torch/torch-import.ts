// torch.export program (.pt2) -> graph document (format v1): the public entry. The archive is read
// with fflate, its models/model.json parsed as torch/_export/serde/schema.py (major 8) defines it,
// and TorchImporter (torch-importer.ts) makes the graph.
import { TensorplanError, guarded, isDetached, optionsObject, shown } from '../../errors.js';
import type { ExportedProgramJson } from './export-schema.js';
import { SCHEMA_MAJOR } from './export-schema.js';
import { checkProgram } from './check-program.js';
import { checkTorchImportOptions } from './import-options.js';
import type { TorchImportOptions, TorchImportResult } from './import-options.js';
import { readModelJson } from './pt2-archive.js';
import { TorchImporter } from './torch-importer.js';

export type { TorchImportOptions, TorchImportResult, TorchStorageCategory } from './import-options.js';
export type { CustomOpDeclaration } from './op-effects.js';

/**
 * Reads a PyTorch program exported with `torch.export` (the bytes of a .pt2 archive from
 * `torch.export.save`) into a graph document. The weights' bytes are not read: a weightless archive
 * plans the same, except that only an archive with weights shows which parameters share a storage
 * (tied weights: one storage). Core ATen programs (`run_decompositions()`), the training IR (`export()` as is) and
 * joint forward + backward graphs are read; storages shared by views and in-place ops are one
 * storage, sized and aligned as PyTorch's CUDA caching allocator rounds blocks (`alignment`).
 * Runs in Node, browsers and workers (no core needed). Usage, recipes and what is not modelled:
 * docs/pytorch.md (`importTorchExport(readFileSync('model.pt2'), { dims: { s77: 512 } })`, then
 * `tp.plan(graph, { baselines: true })`).
 *
 * @group Files
 */
export function importTorchExport(bytes: Uint8Array, options?: TorchImportOptions): TorchImportResult {
  return guarded('importTorchExport', [bytes, options], () => importChecked(bytes, checkTorchImportOptions(optionsObject(options, 'options'))));
}

function importChecked(bytes: Uint8Array, options: TorchImportOptions): TorchImportResult {
  const source = options.source ?? 'model.pt2';
  if (!(bytes instanceof Uint8Array) || isDetached(bytes)) {
    throw new TensorplanError('INVALID_ARGUMENT', `${source}: bytes = ${shown(bytes)}: must be the bytes of a .pt2 archive (a Uint8Array${bytes instanceof Uint8Array ? ' whose buffer is not detached' : ''})`);
  }
  const { text, entry, payloads } = readModelJson(bytes, source);
  let program: ExportedProgramJson;
  try {
    program = JSON.parse(text) as ExportedProgramJson;
  } catch (error) {
    throw new TensorplanError('INVALID_ARGUMENT', `${source}: ${entry}: not JSON: ${(error as Error).message}`);
  }
  if (program === null || typeof program !== 'object' || Array.isArray(program)) {
    throw new TensorplanError('INVALID_ARGUMENT', `${source}: ${entry}: must be an object (schema.py ExportedProgram)`);
  }
  const version = program.schema_version;
  if (version === null || typeof version !== 'object' || typeof version.major !== 'number') {
    throw new TensorplanError('INVALID_ARGUMENT', `${source}: schema_version = ${shown(version)}: must be { major, minor } (schema.py SchemaVersion)`);
  }
  if (version.major !== SCHEMA_MAJOR) {
    throw new TensorplanError('UNSUPPORTED', `${source}: schema_version.major = ${version.major} (torch ${program.torch_version ?? 'unknown'}): this importer reads torch.export schema major ${SCHEMA_MAJOR} (torch 2.11 writes 8.17, torch 2.13 8.20); re-export with a torch whose torch/_export/serde/schema.py has SCHEMA_VERSION = (${SCHEMA_MAJOR}, N)`);
  }
  checkProgram(program, source);
  return new TorchImporter(program, { ...options, source }, payloads).run();
}
