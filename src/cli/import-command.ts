import { readFile, writeFile } from 'node:fs/promises';
import { init } from '../index.js';
import type { BackendChoice, GraphDocument, OnnxImportOptions, OnnxImportResult, TorchImportResult, TorchOptimizer } from '../index.js';
import { RUNTIMES } from '../frontends/onnx/ort-cpu-rules.js';
import { CliError, EXIT_OK } from './exit-codes.js';

/** Options shared by `import` and `plan MODEL.onnx`. */
export interface OnnxCliOptions {
  /** `--input NAME=DxDx...` (repeatable): a graph input's shape, or a symbolic dimension's value. */
  input?: string[];
  /** `--value NAME=V[,V...]` (repeatable): a graph input's value (its element type is the file's). */
  value?: string[];
  /** `--branch NODE=then|else` (repeatable): the branch of If NODE that runs, inlined. */
  branch?: string[];
  /** `--in-place`: element-wise ops may overwrite an input that dies there. */
  inPlace?: boolean;
  /** `--external-io`: graph inputs and outputs are user buffers outside the arena. */
  externalIo?: boolean;
  /** `--runtime NAME`: plan like this runtime's kernels allocate (`ort-cpu`). */
  runtime?: string;
  /** `--ort-threads N`: ONNX Runtime's intra-op thread count (sizes MLAS's Conv working buffer). */
  ortThreads?: string;
  /** `--backend`: the core that imports (it decides the in-place writes). */
  backend?: BackendChoice;
  /** `--alignment N` (.pt2 only): every storage's size rounds up to N bytes (default 512). */
  alignment?: string;
  /** `--custom-op TARGET=view|inPlace[:INPUT]` (.pt2 only, repeatable): a custom op's aliasing. */
  customOp?: string[];
  /** `--optimizer NAME` (.pt2 only): the optimizer states kept per parameter. */
  optimizer?: TorchOptimizer;
  /** `--no-master-weights` (.pt2 only) sets this to false. */
  masterWeights?: boolean;
}

export interface ImportCommandOptions extends OnnxCliOptions {
  output?: string;
  json?: boolean;
}

/** Collects repeated `--input` values (commander's variadic-by-repetition helper). */
export function collectInput(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `x=1x3x640x640` -> ['x', [1, 3, 640, 640]]; `batch=4` -> ['batch', [4]]. */
export function parseInputSpec(spec: string): [string, number[]] {
  const eq = spec.lastIndexOf('=');
  const name = spec.slice(0, eq), dims = spec.slice(eq + 1);
  if (eq <= 0 || !/^\d+(x\d+)*$/.test(dims)) {
    throw new CliError(`--input ${spec}: expected NAME=DxDx... (e.g. images=1x3x640x640) or SYMBOL=N (e.g. batch=4)`);
  }
  return [name, dims.split('x').map(Number)];
}

/** The non-finite values `--value` takes, by their lower-case spelling. */
const SPECIAL_FLOATS = new Map<string, number>([
  ['nan', Number.NaN], ['inf', Infinity], ['+inf', Infinity], ['-inf', -Infinity],
  ['infinity', Infinity], ['+infinity', Infinity], ['-infinity', -Infinity],
]);

/**
 * `sr=16000` -> ['sr', [16000]]; `mask=1,0,1` -> ['mask', [1, 0, 1]]; `flag=true` -> ['flag', [true]];
 * `bias=0,-inf` -> ['bias', [0, -Infinity]]; `cache=` -> ['cache', []] (an empty tensor).
 * Integers beyond 2^53 stay exact (bigint); the importer checks them against the input's type.
 */
export function parseValueSpec(spec: string): [string, (number | bigint | boolean)[]] {
  const eq = spec.indexOf('=');
  const name = spec.slice(0, eq), text = spec.slice(eq + 1);
  const bad = () => new CliError(
    `--value ${spec}: expected NAME=V[,V...] or NAME= for an empty tensor (e.g. sr=16000, mask=1,0,1, flag=true, bias=0,-inf)`);
  if (eq <= 0) throw bad();
  // `NAME=` is an empty tensor, which real masks and caches can be.
  if (text === '') return [name, []];
  const items = text.split(',').map((v): number | bigint | boolean => {
    if (v === 'true' || v === 'false') return v === 'true';
    if (/^[-+]?\d+$/.test(v)) {
      const b = BigInt(v);
      return Number.isSafeInteger(Number(b)) ? Number(b) : b;
    }
    // NaN and the infinities as ONNX's Cast spells them ("NaN", "INF", "-INF"), in any case;
    // attention masks hold -inf. Whether the input's type can hold them is checked by the importer.
    const special = SPECIAL_FLOATS.get(v.toLowerCase());
    if (special !== undefined) return special;
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n)) throw bad();
    return n;
  });
  return [name, items];
}

/** `gate=then` -> ['gate', 'then']. */
export function parseBranchSpec(spec: string): [string, 'then' | 'else'] {
  const eq = spec.lastIndexOf('=');
  const name = spec.slice(0, eq), which = spec.slice(eq + 1);
  if (eq <= 0 || (which !== 'then' && which !== 'else')) {
    throw new CliError(`--branch ${spec}: expected NODE=then or NODE=else (the If node's name and the branch that runs)`);
  }
  return [name, which];
}

/** True when the path names an ONNX model rather than a graph file. */
export const isOnnxPath = (file: string) => /\.onnx$/i.test(file);

/** True when the path names a torch.export archive (.pt2). */
export const isTorchExportPath = (file: string) => /\.pt2$/i.test(file);

/** `mylib.scale_.default=inPlace:0` -> ['mylib.scale_.default', { kind: 'inPlace', input: 0 }]. */
export function parseCustomOpSpec(spec: string): [string, { kind: 'view' | 'inPlace'; input?: string | number }] {
  const m = /^(.+)=(view|inPlace)(?::(.+))?$/.exec(spec);
  if (!m) throw new CliError(`--custom-op ${spec}: expected TARGET=view or TARGET=inPlace, optionally :INPUT (an argument name or index), e.g. mylib.scale_.default=inPlace:self`);
  const input = m[3] === undefined ? undefined : /^\d+$/.test(m[3]) ? Number(m[3]) : m[3];
  return [m[1], { kind: m[2] as 'view' | 'inPlace', ...(input !== undefined ? { input } : {}) }];
}

/** The model file's bytes; a file that cannot be read is a CliError naming it. */
async function readModelFile(file: string): Promise<Uint8Array> {
  try {
    return await readFile(file);
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** `--input` specs by name: a whole input's shape or one symbolic size. */
function inputBindings(options: OnnxCliOptions): Record<string, number[]> {
  return Object.fromEntries((options.input ?? []).map(parseInputSpec));
}

/** Reads a .pt2 archive and imports it with the CLI's options (`--input`, `--alignment`, `--custom-op`, `--optimizer`). */
export async function importTorchFile(file: string, options: OnnxCliOptions): Promise<TorchImportResult> {
  if (options.value?.length || options.branch?.length || options.inPlace || options.externalIo || options.runtime || options.ortThreads) {
    throw new CliError('--value, --branch, --in-place, --external-io, --runtime and --ort-threads apply to ONNX models only; a .pt2 program takes --input, --alignment, --custom-op and --optimizer');
  }
  const bytes = await readModelFile(file);
  const bindings = inputBindings(options);
  let alignment: number | undefined;
  if (options.alignment !== undefined) {
    alignment = Number(options.alignment);
    if (!/^\d+$/.test(options.alignment) || alignment < 1 || (alignment & (alignment - 1)) !== 0) {
      throw new CliError(`--alignment ${options.alignment}: expected a power of two (bytes), e.g. 512 (PyTorch's CUDA caching allocator) or 1 (exact bytes)`);
    }
  }
  const customOps = Object.fromEntries((options.customOp ?? []).map(parseCustomOpSpec));
  const tp = await init({ backend: options.backend ?? 'auto' });
  const result = tp.importTorchExport(bytes, {
    bindings, customOps, source: file, ...(alignment !== undefined ? { alignment } : {}),
    ...(options.optimizer !== undefined ? { optimizer: options.optimizer, masterWeights: options.masterWeights ?? true } : {}),
  });
  for (const warning of result.warnings) console.error(`tensorplan: warning: ${warning}`);
  return result;
}

/** A one-line summary of a .pt2 import, with the bytes of each storage category. */
export function torchImportSummary(file: string, r: TorchImportResult): string {
  const categories = Object.entries(r.categoryBytes).map(([k, v]) => `${k} ${v} B`).join(', ');
  return `imported ${file} (torch ${r.torchVersion || 'unknown'}, schema ${r.schemaVersion}, ${r.verifiers.join(', ') || 'no verifier'}${r.joint ? ', joint forward + backward' : ''}): `
    + `${r.nodes} nodes -> ${r.graph.ops.length} ops, ${r.views} views, ${r.inPlace} storages written in place, alignment ${r.graph.defaultAlignment} B`
    + `\n  storages: ${categories}`
    + (Object.keys(r.bound).length ? `\n  bound: ${Object.entries(r.bound).map(([k, v]) => `${k}=${v}`).join(', ')}` : '');
}

/** Reads an .onnx file and imports it with the CLI's options, on a session (the core decides in-place writes). */
export async function importOnnxFile(file: string, options: OnnxCliOptions): Promise<OnnxImportResult> {
  const bytes = await readModelFile(file);
  const bindings = inputBindings(options);
  const values: Record<string, (number | bigint | boolean)[]> = {};
  for (const spec of options.value ?? []) {
    const [name, items] = parseValueSpec(spec);
    values[name] = items;
  }
  const branches: Record<string, 'then' | 'else'> = {};
  for (const spec of options.branch ?? []) {
    const [name, which] = parseBranchSpec(spec);
    branches[name] = which;
  }
  const tp = await init({ backend: options.backend ?? 'auto' });
  if (options.runtime !== undefined && !(RUNTIMES as readonly string[]).includes(options.runtime)) {
    throw new CliError(`--runtime ${options.runtime}: expected one of ${RUNTIMES.join(', ')}`);
  }
  if (options.ortThreads !== undefined && (!/^\d+$/.test(options.ortThreads) || Number(options.ortThreads) < 1 || options.runtime !== 'ort-cpu')) {
    throw new CliError(`--ort-threads ${options.ortThreads}: expected an integer >= 1 (ONNX Runtime's intra_op_num_threads), with --runtime ort-cpu`);
  }
  return tp.importOnnx(bytes, {
    bindings, values, branches, inPlace: options.inPlace ?? false, source: file,
    ...(options.externalIo ? { externalIO: true } : {}),
    ...(options.runtime ? { runtime: options.runtime as OnnxImportOptions['runtime'] } : {}),
    ...(options.ortThreads !== undefined ? { ortThreads: Number(options.ortThreads) } : {}),
  });
}

/** A one-line summary of an import. */
export function importSummary(file: string, r: OnnxImportResult, graph: GraphDocument = r.graph): string {
  return `imported ${file} (opset ${r.opset}${r.producer ? `, from ${r.producer}` : ''}): ${r.nodes} nodes -> ${graph.ops.length} ops, `
    + `${r.folded} folded into constants, ${graph.persistent?.length ?? 0} persistent tensors, ${r.views} views, ${r.inPlace} in place`
    + (r.inlinedIfs ? `, ${r.inlinedIfs} If inlined` : '')
    + r.subgraphs.map((g) => `\n  ${g.opType} "${g.op}": workspace ${g.workspaceBytes} B from its ${g.workspaceFrom}`
      + ` (${Object.entries(g.peaks).map(([k, v]) => `${k} ${v} B`).join(', ')}${g.tripCount !== undefined ? `, ${g.tripCount} iterations` : ''}${g.temporaryBytes ? `, ${g.temporaryBytes} B kept by the kernel` : ''})`).join('');
}

/** `tensorplan import MODEL.onnx -o GRAPH.json`: writes the graph file. */
export async function importCommand(file: string, options: ImportCommandOptions): Promise<number> {
  if (isTorchExportPath(file)) return importTorchCommand(file, options);
  if (options.alignment !== undefined || options.customOp?.length || options.optimizer !== undefined) {
    throw new CliError('--alignment, --custom-op and --optimizer apply to torch.export programs (MODEL.pt2) only');
  }
  const r = await importOnnxFile(file, options);
  const text = JSON.stringify(r.graph, null, 2) + '\n';
  if (options.output) await writeFile(options.output, text);
  if (options.json) {
    const { graph, ...facts } = r;
    console.log(JSON.stringify({ ...facts, ops: graph.ops.length, tensors: graph.tensors.length, ...(options.output ? {} : { graph }) }, null, 2));
  } else if (options.output) {
    console.log(importSummary(file, r));
    console.log(`graph written to ${options.output}`);
  } else {
    process.stdout.write(text);
  }
  return EXIT_OK;
}

/** `tensorplan import MODEL.pt2`: writes the graph file. */
async function importTorchCommand(file: string, options: ImportCommandOptions): Promise<number> {
  const r = await importTorchFile(file, options);
  const text = JSON.stringify(r.graph, null, 2) + '\n';
  if (options.output) await writeFile(options.output, text);
  if (options.json) {
    // The per-tensor categories are left out (categoryBytes sums them); JSON drops undefined fields.
    const facts = { ...r, graph: undefined, categories: undefined };
    console.log(JSON.stringify({ ...facts, ops: r.graph.ops.length, tensors: r.graph.tensors.length, ...(options.output ? {} : { graph: r.graph }) }, null, 2));
  } else if (options.output) {
    console.log(torchImportSummary(file, r));
    console.log(`graph written to ${options.output}`);
  } else {
    process.stdout.write(text);
  }
  return EXIT_OK;
}
