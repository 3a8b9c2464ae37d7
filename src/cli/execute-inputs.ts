import { readFile } from 'node:fs/promises';
import type { GraphDocument, GraphTensor, Tensorplan } from '../index.js';
import { CliError } from './exit-codes.js';
import { shortChecksum } from './execute-verdict.js';
import { acceptedDescrs, parseNpy } from './npy.js';
import { randomTensorBytes } from './random-inputs.js';

/** A tensor an execution starts from: a graph input, or a persistent tensor (weights, optimizer state). */
export interface EntryTensor {
  name: string;
  dtype?: string;
  shape?: number[];
  /** Bytes the executor expects (computed by the core from shape and dtype when not given). */
  bytes: number;
  /** Graph inputs and persistent tensors no op writes must be given; persistent tensors an op writes start as zeros. */
  required: boolean;
  persistent: boolean;
}

/** Where an input's bytes came from. */
export interface InputSource {
  name: string;
  source: 'file' | 'random' | 'zeros';
  /** The file, for `source: 'file'`. */
  file?: string;
  /** `npy` or `raw`, for files. */
  format?: 'npy' | 'raw';
  dtype?: string;
  shape?: number[];
  bytes: number;
  /** First 12 hex digits of the bytes' SHA-256 (absent for zeros). */
  sha256?: string;
}

/** `bf16 [8, 16]`, or `1024 bytes` for a tensor given by size only. */
export function describeTensor(t: { dtype?: string; shape?: number[]; bytes: number }): string {
  return t.dtype && t.shape ? `${t.dtype} [${t.shape.join(', ')}]` : `${t.bytes} bytes`;
}

/**
 * The graph's entry tensors, in graph order: its inputs, then its persistent
 * tensors. Bytes come from the core (`bulkLayout`), so FP4 packing and every
 * dtype size have one definition.
 */
export function entryTensors(tp: Tensorplan, graph: GraphDocument): EntryTensor[] {
  const byName = new Map(graph.tensors.map((t) => [t.name, t]));
  const written = new Set(graph.ops.flatMap((op) => op.outputs));
  const names = [...(graph.inputs ?? []), ...(graph.persistent ?? []).filter((n) => !(graph.inputs ?? []).includes(n))];
  const tensors = names.map((name) => byName.get(name)!);
  const shaped = tensors.filter((t) => t.bytes === undefined);
  const layout = shaped.length > 0
    ? tp.bulkLayout(shaped.map((t) => ({ name: t.name, shape: t.shape ?? [], dtype: t.dtype!, alignment: 1 })))
    : undefined;
  const computed = new Map(shaped.map((t, k) => [t.name, layout!.entries[k].bytes]));
  const inputs = new Set(graph.inputs ?? []);
  return tensors.map((t: GraphTensor) => ({
    name: t.name,
    ...(t.dtype ? { dtype: t.dtype } : {}),
    ...(t.shape ? { shape: [...t.shape] } : {}),
    bytes: t.bytes ?? computed.get(t.name)!,
    required: inputs.has(t.name) || !written.has(t.name),
    persistent: !inputs.has(t.name),
  }));
}

/** `name=FILE` -> [name, FILE]; the name is everything before the first '='. */
export function parseInputArgument(spec: string): [string, string] {
  const eq = spec.indexOf('=');
  if (eq <= 0 || eq === spec.length - 1) throw new CliError(`--input ${JSON.stringify(spec)}: expected NAME=FILE (a .npy file or raw little-endian bytes)`);
  return [spec.slice(0, eq), spec.slice(eq + 1)];
}

/**
 * Reads one input file for a tensor: `.npy` files (by extension) are parsed
 * and their dtype and shape checked against the graph tensor; anything else
 * is raw little-endian bytes, checked by count.
 */
export async function readTensorFile(tensor: EntryTensor, file: string): Promise<{ bytes: Uint8Array; format: 'npy' | 'raw' }> {
  let content: Uint8Array;
  try {
    content = new Uint8Array(await readFile(file));
  } catch (error) {
    throw new CliError(`--input ${tensor.name}=${file}: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const label = `--input ${tensor.name}=${file}`;
  if (!file.toLowerCase().endsWith('.npy')) {
    if (content.length !== tensor.bytes) {
      throw new CliError(`${label}: tensor "${tensor.name}" (${describeTensor(tensor)}) takes ${tensor.bytes} bytes, the file has ${content.length}`);
    }
    return { bytes: content, format: 'raw' };
  }
  let npy;
  try {
    npy = parseNpy(content);
  } catch (error) {
    throw new CliError(`${label}: ${(error as Error).message}`);
  }
  const given = `${npy.descr} (${npy.shape.join(', ')}${npy.shape.length === 1 ? ',' : ''})`;
  if (tensor.dtype) {
    const accepted = acceptedDescrs(tensor.dtype);
    if (!accepted.includes(npy.descr)) {
      throw new CliError(`${label}: tensor "${tensor.name}" is ${describeTensor(tensor)}, the .npy array is ${given}; expected dtype ${accepted.join(' or ')}`);
    }
    // FP4 is stored packed, two elements per byte: only the byte count is checked.
    if (tensor.shape && tensor.dtype !== 'fp4_e2m1' && (npy.shape.length !== tensor.shape.length || npy.shape.some((d, i) => d !== tensor.shape![i]))) {
      throw new CliError(`${label}: tensor "${tensor.name}" is ${describeTensor(tensor)}, the .npy array has shape (${npy.shape.join(', ')})`);
    }
  }
  if (npy.data.length !== tensor.bytes) {
    throw new CliError(`${label}: tensor "${tensor.name}" (${describeTensor(tensor)}) takes ${tensor.bytes} bytes, the .npy array ${given} holds ${npy.data.length}`);
  }
  return { bytes: npy.data, format: 'npy' };
}

/** Elements of a tensor when its dtype and shape describe its bytes exactly (else undefined: raw bytes). */
function elementCount(t: EntryTensor): number | undefined {
  if (!t.dtype || !t.shape) return undefined;
  const size = ({ fp32: 4, fp64: 8, bf16: 2, fp16: 2, bool: 1 } as Record<string, number>)[t.dtype];
  const count = t.shape.reduce((a, b) => a * b, 1);
  return size !== undefined && size * count === t.bytes ? count : undefined;
}

/**
 * The bytes of every entry tensor: from `--input` files, then from the seed
 * for the rest when `seed` is given. Unknown or repeated names and missing
 * required inputs are usage errors (exit 2) naming every offender.
 */
export async function gatherInputs(tp: Tensorplan, graph: GraphDocument, specs: readonly string[], seed: number | undefined):
  Promise<{ inputs: Record<string, Uint8Array>; sources: InputSource[] }> {
  const entries = entryTensors(tp, graph);
  const byName = new Map(entries.map((t) => [t.name, t]));
  const files = new Map<string, string>();
  const unknown: string[] = [];
  for (const spec of specs) {
    const [name, file] = parseInputArgument(spec);
    if (files.has(name)) throw new CliError(`--input ${name} is given twice (${files.get(name)} and ${file})`);
    if (!byName.has(name)) unknown.push(name);
    files.set(name, file);
  }
  if (unknown.length > 0) {
    const isTensor = (n: string) => graph.tensors.some((t) => t.name === n);
    const why = unknown.map((n) => `"${n}"${isTensor(n) ? ' (an intermediate tensor, not a graph input or persistent tensor)' : ''}`).join(', ');
    throw new CliError(`--input: unknown input${unknown.length === 1 ? '' : 's'} ${why}; the graph's inputs and persistent tensors are ${entries.map((t) => t.name).join(', ') || '(none)'}`);
  }
  const missing = entries.filter((t) => t.required && !files.has(t.name));
  if (missing.length > 0 && seed === undefined) {
    throw new CliError(`missing input${missing.length === 1 ? '' : 's'}: ${missing.map((t) => `${t.name} (${describeTensor(t)})`).join(', ')}; `
      + 'give each with --input NAME=FILE (.npy or raw bytes), or --random-inputs SEED to fill them with seeded values');
  }
  const inputs: Record<string, Uint8Array> = {};
  const sources: InputSource[] = [];
  for (const t of entries) {
    const shapeInfo = { ...(t.dtype ? { dtype: t.dtype } : {}), ...(t.shape ? { shape: t.shape } : {}), bytes: t.bytes };
    const file = files.get(t.name);
    if (file !== undefined) {
      const read = await readTensorFile(t, file);
      inputs[t.name] = read.bytes;
      sources.push({ name: t.name, source: 'file', file, format: read.format, ...shapeInfo, sha256: shortChecksum(read.bytes) });
    } else if (seed !== undefined) {
      const count = elementCount(t);
      inputs[t.name] = randomTensorBytes(seed, t.name, count === undefined ? undefined : t.dtype, count ?? t.bytes, t.bytes);
      sources.push({ name: t.name, source: 'random', ...shapeInfo, sha256: shortChecksum(inputs[t.name]) });
    } else {
      sources.push({ name: t.name, source: 'zeros', ...shapeInfo });
    }
  }
  return { inputs, sources };
}
