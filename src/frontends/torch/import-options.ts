// What importTorchExport takes and returns, and the check of every option field.
import { TensorplanError, shown } from '../../errors.js';
import type { GraphDocument } from '../../graph/graph-document.js';
import type { CustomOpDeclaration } from './op-effects.js';
import { TORCH_OPTIMIZERS } from './optimizer-state.js';
import type { TorchOptimizer } from './optimizer-state.js';

/**
 * Options of {@link importTorchExport}.
 *
 * @group Files
 */
export interface TorchImportOptions {
  /** Graph name; default: the archive's file name (`source`) or "torch.export program". */
  name?: string;
  /** Values of the symbols in symbolic sizes (`s77`), by name; others take the export's hint. */
  dims?: Record<string, number>;
  /**
   * What the CLI's `--input NAME=DxD...` gives: a user input's whole shape when NAME is a user
   * input (each symbolic size of it is bound to the given number), otherwise (one number) the
   * value of the symbol NAME.
   */
  bindings?: Record<string, number[]>;
  /**
   * Every storage's size rounds up to this many bytes and its offset aligns to it (a power of two;
   * the CLI's `--alignment N`). Default 512: PyTorch's CUDA caching allocator rounds every block
   * up to kMinBlockSize = 512 bytes (round_size in c10/cuda/CUDACachingAllocator.cpp). 1 counts
   * exact bytes (what PyTorch's CPU allocator hands out).
   */
  alignment?: number;
  /**
   * Ops PyTorch's schemas do not describe (custom ops), by node target
   * (`torch.ops.mylib.scale_.default`, or without `torch.ops.`): `{ kind: 'view' }` makes output 0
   * a view of an input, `{ kind: 'inPlace' }` says the op writes the input and returns it. `input`
   * is the argument's name or its position among the tensor inputs (default 0). Undeclared ones
   * take their outputs as new tensors and are named in `warnings`.
   */
  customOps?: Record<string, CustomOpDeclaration>;
  /**
   * The optimizer of a training step (the CLI's `--optimizer`): its states per parameter are
   * added as persistent memory (optimizer-state.ts says which, from torch/optim). Default: none.
   */
  optimizer?: TorchOptimizer;
  /** With `optimizer`: an fp32 master copy of every 16-bit or 8-bit float parameter (default true). */
  masterWeights?: boolean;
  /** Label for error messages (a file name); default "model.pt2". */
  source?: string;
}

/**
 * What a storage's bytes count as, for the report's categories.
 *
 * @group Files
 */
export type TorchStorageCategory =
  | 'parameters' | 'master weights' | 'optimizer state' | 'buffers' | 'constants' | 'graph inputs' | 'gradients' | 'outputs'
  | 'saved for backward' | 'activations';

/**
 * What {@link importTorchExport} returns: the graph plus facts about the import.
 *
 * @group Files
 */
export interface TorchImportResult {
  graph: GraphDocument;
  /** `verifiers` of the program: `["ATEN"]` (core ATen), `["TRAINING"]` (the training IR), ... */
  verifiers: string[];
  /** `schema_version` of the file, e.g. "8.20". */
  schemaVersion: string;
  /** `torch_version` of the exporting torch. */
  torchVersion: string;
  /** Graph nodes in the file. */
  nodes: number;
  /** Nodes without tensor outputs or writes (`_assert_tensor_metadata`, `sym_size`): no op. */
  skipped: number;
  /** Node outputs that share an input's storage (views, in-place results). */
  views: number;
  /** Storages written in place by an op (in-place ops, running statistics, mutation copies). */
  inPlace: number;
  /** Symbol values given by the caller. */
  bound: Record<string, number>;
  /** Symbols that took the export's hint, with the value (null: only an expression's hint was used). */
  defaulted: Record<string, number | null>;
  /** True for a joint forward + backward graph (a `loss_output` and gradients). */
  joint: boolean;
  /** The category of each tensor's storage, by tensor name. */
  categories: Record<string, TorchStorageCategory>;
  /** Bytes of the distinct storages of each category (rounded to the alignment). */
  categoryBytes: Partial<Record<TorchStorageCategory, number>>;
  /** Node targets PyTorch's schemas do not describe (taken as new tensors, not aliasing). */
  unknownOps: string[];
  /** What the import assumed that may not hold (unknown ops, defaulted symbols). */
  warnings: string[];
}

/** Checks every field of the import options (named, not a TypeError deep in the importer). */
export function checkTorchImportOptions(options: TorchImportOptions): TorchImportOptions {
  const bad = (field: string, value: unknown, rule: string): never => {
    throw new TensorplanError('INVALID_ARGUMENT', `options.${field} = ${shown(value)}: must be ${rule}`);
  };
  for (const field of ['name', 'source'] as const) {
    if (options[field] !== undefined && typeof options[field] !== 'string') bad(field, options[field], 'a string');
  }
  if (options.alignment !== undefined) {
    const a = options.alignment;
    if (typeof a !== 'number' || !Number.isSafeInteger(a) || a < 1 || (a & (a - 1)) !== 0 || a > 2 ** 30) bad('alignment', a, 'a power of two from 1 to 2^30 (bytes)');
  }
  const record = (field: 'dims' | 'bindings', value: unknown, list: boolean) => {
    if (value === undefined) return;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) bad(field, value, 'an object by name');
    for (const [name, item] of Object.entries(value as object)) {
      const items: unknown[] = list ? (Array.isArray(item) ? item : bad(`${field}.${name}`, item, 'an array of sizes')) : [item];
      items.forEach((d, i) => {
        if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 0) bad(`${field}.${name}${list ? `[${i}]` : ''}`, d, 'an integer >= 0');
      });
    }
  };
  record('dims', options.dims, false);
  record('bindings', options.bindings, true);
  if (options.optimizer !== undefined && !TORCH_OPTIMIZERS.includes(options.optimizer)) {
    bad('optimizer', options.optimizer, `one of ${TORCH_OPTIMIZERS.join(', ')}`);
  }
  if (options.masterWeights !== undefined && typeof options.masterWeights !== 'boolean') bad('masterWeights', options.masterWeights, 'true or false');
  if (options.customOps !== undefined) {
    const ops: unknown = options.customOps;
    if (ops === null || typeof ops !== 'object' || Array.isArray(ops)) bad('customOps', ops, 'an object by node target');
    for (const [target, d] of Object.entries(ops as object)) {
      if (d === null || typeof d !== 'object') bad(`customOps.${target}`, d, "an object { kind: 'view' | 'inPlace', input?: name or index }");
      const decl = d as { kind?: unknown; input?: unknown };
      if (decl.kind !== 'view' && decl.kind !== 'inPlace') bad(`customOps.${target}.kind`, decl.kind, "'view' or 'inPlace'");
      if (decl.input !== undefined && typeof decl.input !== 'string' && !(typeof decl.input === 'number' && Number.isSafeInteger(decl.input) && decl.input >= 0)) {
        bad(`customOps.${target}.input`, decl.input, 'an argument name or an index >= 0');
      }
    }
  }
  return options;
}
