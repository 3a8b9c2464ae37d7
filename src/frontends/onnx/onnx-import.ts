// ONNX model -> graph document (format v1): the public entry. Nodes become ops, initializers and
// folded constant subgraphs become persistent tensors, Reshape-like outputs become views, and
// (optionally) element-wise ops whose input dies there run in place. The work is importer.ts's.
import type { CoreBinding } from '../../abi/core-binding.js';
import { TensorplanError, guarded, isDetached, optionsObject, shown } from '../../errors.js';
import { decodeOnnxModel } from './onnx-model.js';
import type { OnnxModel } from './onnx-model.js';
import { RUNTIMES } from './ort-cpu-rules.js';
import { checkImportOptions } from './import-options.js';
import type { OnnxImportOptions, OnnxImportResult } from './import-options.js';
import { Importer } from './importer.js';

export type { OnnxImportOptions, OnnxImportResult } from './import-options.js';
export { VIEW_OPS } from './importer.js';

/**
 * Reads an ONNX model (the bytes of a .onnx file) into a graph document. `inPlace` needs the core,
 * which decides the in-place writes: use `tp.importOnnx` (a session) for it; here it is an
 * INVALID_ARGUMENT error. Node entry only (the browser bundle has no ONNX importer).
 *
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * import { importOnnx } from 'tensorplan';
 *
 * // No session needed: model.onnx has input x [N, 3, 8, 8]; dims binds its symbolic dimension.
 * const { graph, producer, opset } = importOnnx(readFileSync('model.onnx'), { dims: { N: 8 } });
 * // graph.tensors.find((t) => t.name === 'y').shape.join('x') === '8x10'
 * // opset === 17
 * ```
 *
 * @group Files
 */
export function importOnnx(bytes: Uint8Array, options?: OnnxImportOptions): OnnxImportResult {
  return guarded('importOnnx', [bytes, options], () => importOnnxChecked(bytes, optionsObject(options, 'options')));
}

function importOnnxChecked(bytes: Uint8Array, options: OnnxImportOptions): OnnxImportResult {
  if (options.runtime !== undefined && (RUNTIMES as readonly unknown[]).includes(options.runtime)) {
    throw new TensorplanError('INVALID_ARGUMENT', `${options.source ?? 'model'}: runtime: '${options.runtime}' needs the core, which decides the in-place writes: use tp.importOnnx(bytes, options) on a session (const tp = await init())`);
  }
  if (options.inPlace) {
    throw new TensorplanError('INVALID_ARGUMENT', `${options.source ?? 'model'}: inPlace: true needs the core, which decides the in-place writes: use tp.importOnnx(bytes, options) on a session (const tp = await init())`);
  }
  return importOnnxWith(undefined, bytes, options);
}

/** {@link importOnnx} with a core, which `inPlace` needs (`tp.importOnnx` calls this). */
export function importOnnxWith(core: CoreBinding | undefined, bytes: Uint8Array, given?: OnnxImportOptions): OnnxImportResult {
  const options = checkImportOptions(optionsObject(given, 'options'));
  if (!(bytes instanceof Uint8Array) || isDetached(bytes)) {
    throw new TensorplanError('INVALID_ARGUMENT', `${options.source ?? 'model'}: bytes = ${shown(bytes)}: must be the bytes of an .onnx file (a Uint8Array${bytes instanceof Uint8Array ? ' whose buffer is not detached' : ''})`);
  }
  if ((options.inPlace || options.runtime) && !core) {
    throw new TensorplanError('INVALID_ARGUMENT', `${options.source ?? 'model'}: ${options.runtime ? `runtime: '${options.runtime}'` : 'inPlace: true'} needs a core: use tp.importOnnx(bytes, options)`);
  }
  let model: OnnxModel;
  try {
    model = decodeOnnxModel(bytes);
  } catch (error) {
    if (error instanceof TensorplanError) throw error;
    throw new TensorplanError('INVALID_ARGUMENT', `${options.source ?? 'model'}: not a readable ONNX file: ${(error as Error).message}`);
  }
  const importer = new Importer(model, options, core);
  const graph = importer.run();
  return { graph, opset: model.opsets.get('') ?? 1, producer: model.producer, ...importer.stats, subgraphs: importer.subgraphs };
}
