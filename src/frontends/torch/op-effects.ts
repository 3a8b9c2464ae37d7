// What an op does to memory, from PyTorch's own schemas (aten-aliases.generated.ts, read from
// native_functions.yaml by scripts/torch/gen-aten-aliases.py) plus the cases the schema does not
// tell (each cited below): which outputs are views of which input, which inputs it writes.
import type { Argument, ExportNode, NamedArgument } from './export-schema.js';
import { ATEN_ALIASES, ATEN_PLAIN_OPS } from './aten-aliases.generated.js';

/**
 * A custom op declared by the caller (options.customOps): output 0 is a view of, or written into, an input.
 *
 * @group Files
 */
export interface CustomOpDeclaration {
  /** `view`: output 0 is a view of the input; `inPlace`: the op writes the input and returns it. */
  kind: 'view' | 'inPlace';
  /** The input: its argument name in the node, or its position among the tensor inputs; default 0. */
  input?: string | number;
}

/** How one output relates to the inputs. */
export type OutputEffect =
  | { kind: 'new' }
  /** The same storage as `input` (a view, or the input itself after an in-place write). */
  | { kind: 'alias'; input: string }
  /**
   * PyTorch decides at run time from sizes and strides: `reshape` rules (a view when
   * computeStride finds strides) or `same` (the input itself when the output's dtype, sizes,
   * strides and offset are the input's: contiguous, to, type_as).
   */
  | { kind: 'mayAlias'; input: string; rule: 'reshape' | 'same' }
  /** A new storage at least as large as `input`'s whole storage (aten.copy.default). */
  | { kind: 'storageOf'; input: string };

export interface OpEffects {
  /** `aten`, or the namespace of an op not in PyTorch's schemas. */
  namespace: string;
  /** `name.overload` (`name` for the default overload), the key of ATEN_ALIASES. */
  key: string;
  /** In PyTorch's schemas, or declared by the caller. */
  known: boolean;
  /** By output tensor name. */
  outputs: Map<string, OutputEffect>;
  /** Input tensors the op writes (`Tensor(a!)` arguments and the cases below). */
  writes: string[];
}

const PLAIN = new Set(ATEN_PLAIN_OPS.split(' ').filter((s) => s.length > 0));

/** Ops whose output PyTorch makes a view or a copy of `self` depending on sizes and strides. */
const MAY_ALIAS: Readonly<Record<string, 'reshape' | 'same'>> = {
  // TensorShape.cpp: reshape_symint views when computeStride succeeds, else _reshape_copy;
  // reshape_as and flatten (flatten.using_ints calls reshape) follow it.
  reshape: 'reshape', reshape_as: 'reshape', 'flatten.using_ints': 'reshape', 'flatten.named_out_dim': 'reshape',
  'flatten.using_names': 'reshape', 'flatten.DimnameList': 'reshape',
  // TensorProperties.cpp contiguous: self when already contiguous in the format; TensorConversions.cpp
  // to / _to_copy: self when dtype, device, layout and memory format already match and copy=False.
  contiguous: 'same', 'to.dtype': 'same', 'to.device': 'same', 'to.other': 'same', 'to.dtype_layout': 'same',
  type_as: 'same', resolve_conj: 'same', resolve_neg: 'same',
  _autocast_to_reduced_precision: 'same', _autocast_to_full_precision: 'same',
};

/** Batch-norm ops that update running_mean / running_var in training without a `(a!)` annotation. */
const BATCH_NORM_RUNNING_STATS = new Set(['batch_norm', 'native_batch_norm', '_batch_norm_impl_index', 'cudnn_batch_norm', 'miopen_batch_norm', '_batch_norm_with_update', 'instance_norm']);

/** Tensor names inside an argument, in order (None entries skipped). */
export function argTensors(arg: Argument | undefined): string[] {
  if (!arg || typeof arg !== 'object') return [];
  if (arg.as_tensor) return [arg.as_tensor.name];
  if (arg.as_tensors) return arg.as_tensors.map((t) => t.name);
  if (arg.as_optional_tensor?.as_tensor) return [arg.as_optional_tensor.as_tensor.name];
  if (arg.as_optional_tensors) return arg.as_optional_tensors.flatMap((t) => (t.as_tensor ? [t.as_tensor.name] : []));
  return [];
}

/** `torch.ops.aten.add_.Tensor` -> { namespace: 'aten', key: 'add_.Tensor' }. */
export function targetKey(target: string): { namespace: string; key: string } {
  const m = /^torch\.ops\.([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)$/.exec(target);
  if (!m) return { namespace: '', key: target };
  return { namespace: m[1], key: m[3] === 'default' ? m[2] : `${m[2]}.${m[3]}` };
}

const boolArg = (inputs: NamedArgument[], name: string): boolean | undefined => {
  const v = inputs.find((i) => i.name === name)?.arg?.as_bool;
  return typeof v === 'boolean' ? v : undefined;
};

/** The effects of one node. `custom` is the caller's declaration for this target, if any. */
export function opEffects(node: ExportNode, custom?: CustomOpDeclaration): OpEffects {
  const { namespace, key } = targetKey(node.target);
  const outputs = new Map<string, OutputEffect>();
  const writes: string[] = [];
  const outputLists = node.outputs.map(argTensors);
  for (const list of outputLists) for (const t of list) outputs.set(t, { kind: 'new' });
  const byArg = new Map(node.inputs.map((i) => [i.name, argTensors(i.arg)]));
  const tensorInputs = node.inputs.flatMap((i) => argTensors(i.arg));

  if (custom) {
    const input = typeof custom.input === 'string' ? byArg.get(custom.input)?.[0] : tensorInputs[custom.input ?? 0];
    const first = outputLists.flat()[0];
    if (input !== undefined && first !== undefined) outputs.set(first, { kind: 'alias', input });
    if (input !== undefined && custom.kind === 'inPlace') writes.push(input);
    return { namespace, key, known: true, outputs, writes };
  }
  const entry = namespace === 'aten' ? ATEN_ALIASES[key] : undefined;
  const known = entry !== undefined || (namespace === 'aten' && PLAIN.has(key));
  if (entry) {
    // The tensors of each alias set, from the annotated arguments ('a!', 'a[]' -> set 'a').
    const sets = new Map<string, string[]>();
    for (const [argName, annotation] of Object.entries(entry.args)) {
      const set = annotation.replace(/[![\]]/g, '');
      const tensors = byArg.get(argName) ?? [];
      sets.set(set, [...(sets.get(set) ?? []), ...tensors]);
      if (annotation.includes('!')) writes.push(...tensors);
    }
    entry.returns.forEach((annotation, i) => {
      if (!annotation || i >= outputLists.length) return;
      const inputs = sets.get(annotation.replace(/[![\]]/g, '')) ?? [];
      if (inputs.length === 0) return;
      const list = outputLists[i];
      const rule = MAY_ALIAS[key];
      list.forEach((t, j) => {
        // A list written element by element (`Tensor(a!)[]` in and out) pairs them; a view list
        // (`Tensor(a)[]` from one `Tensor(a -> *)` self: split, unbind, chunk) shares the one input.
        const input = inputs.length === list.length ? inputs[j] : inputs[0];
        outputs.set(t, rule ? { kind: 'mayAlias', input, rule } : { kind: 'alias', input });
      });
    });
  }
  if (namespace === 'aten') {
    const name = key.split('.')[0];
    // _unsafe_view's schema returns a new Tensor, but TensorShape.cpp's _unsafe_view is
    // `self.view(size)`: it shares self's storage (it exists to skip autograd's view tracking).
    if (name === '_unsafe_view') {
      const self = byArg.get('self')?.[0];
      const out = outputLists[0]?.[0];
      if (self !== undefined && out !== undefined) outputs.set(out, { kind: 'alias', input: self });
    }
    // Batch norm in training updates running_mean and running_var in place
    // (aten/src/ATen/native/Normalization.cpp, batch_norm_cpu_update_stats_template; cuDNN and
    // MIOpen likewise) although batch_norm's and native_batch_norm's schemas mark no argument `(a!)`.
    if (BATCH_NORM_RUNNING_STATS.has(name) && (boolArg(node.inputs, 'training') ?? boolArg(node.inputs, 'use_input_stats') ?? name === '_batch_norm_with_update')) {
      for (const arg of ['running_mean', 'running_var']) for (const t of byArg.get(arg) ?? []) if (!writes.includes(t)) writes.push(t);
    }
    // copy(self, src), the functional form of copy_: its CPU and CUDA kernel is generated from
    // copy_ and clones self with clone_preserve_strides, which allocates self's whole storage
    // (Copy.cpp copy_meta does the same): in torch 2.13.0+cpu copy.default(base[:4], src) of a
    // 16x8 float base returns a 4x8 tensor on a 512 B storage.
    if (key === 'copy') {
      const self = byArg.get('self')?.[0];
      const out = outputLists[0]?.[0];
      if (self !== undefined && out !== undefined) outputs.set(out, { kind: 'storageOf', input: self });
    }
  }
  return { namespace, key, known, outputs, writes };
}
