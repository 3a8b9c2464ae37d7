// Helpers of the torch.export importer's tests: hand-made programs in schema 8 JSON
// (torch/_export/serde/schema.py), packed as .pt2 archives with fflate, and the python probe.
import { spawnSync } from 'node:child_process';
import { zipSync, strToU8 } from 'fflate';

/** A size: a number, or a sympy srepr expression with an optional hint. */
export type Size = number | { expr: string; hint?: number };
const symInt = (s: Size) => (typeof s === 'number' ? { as_int: s } : { as_expr: { expr_str: s.expr, ...(s.hint !== undefined ? { hint: { as_int: s.hint } } : {}) } });

/** Contiguous strides of literal sizes. */
export function contiguous(sizes: number[]): number[] {
  const strides = new Array<number>(sizes.length);
  let s = 1;
  for (let i = sizes.length - 1; i >= 0; i--) { strides[i] = s; s *= sizes[i]; }
  return strides;
}

/** A TensorMeta: float32 (ScalarType 7), contiguous, offset 0 unless given. */
export function meta(sizes: Size[], options: { strides?: Size[]; offset?: Size; dtype?: number } = {}) {
  const strides = options.strides ?? contiguous(sizes.map((s) => (typeof s === 'number' ? s : s.hint ?? 1)));
  return {
    dtype: options.dtype ?? 7, sizes: sizes.map(symInt), requires_grad: false, device: { type: 'cpu', index: null },
    strides: strides.map(symInt), storage_offset: symInt(options.offset ?? 0), layout: 7,
  };
}

/** Node inputs: a tensor name, a list of names, or a raw Argument object. */
type Arg = string | string[] | Record<string, unknown>;
export interface NodeSpec { target: string; inputs: Record<string, Arg>; outputs: (string | string[])[]; name?: string }
export interface ProgramSpec {
  inputs: { name: string; kind: 'user_input' | 'parameter' | 'buffer' | 'tensor_constant' }[];
  nodes: NodeSpec[];
  tensors: Record<string, ReturnType<typeof meta>>;
  outputs: { name: string; kind?: string; target?: string }[];
  major?: number;
  verifiers?: string[];
  ranges?: Record<string, { min_val: number | null; max_val: number | null }>;
}

const argument = (a: Arg) => (typeof a === 'string' ? { as_tensor: { name: a } } : Array.isArray(a) ? { as_tensors: a.map((name) => ({ name })) } : a);

/** The model.json object of a hand-made program. */
export function programJson(p: ProgramSpec): Record<string, unknown> {
  const inputSpec = (i: ProgramSpec['inputs'][number]) => {
    switch (i.kind) {
      case 'user_input': return { user_input: { arg: { as_tensor: { name: i.name } } } };
      case 'parameter': return { parameter: { arg: { name: i.name }, parameter_name: i.name } };
      case 'buffer': return { buffer: { arg: { name: i.name }, buffer_name: i.name, persistent: true } };
      default: return { tensor_constant: { arg: { name: i.name }, tensor_constant_name: i.name } };
    }
  };
  const outputSpec = (o: ProgramSpec['outputs'][number]) => {
    const kind = o.kind ?? 'user_output';
    if (kind === 'user_output') return { user_output: { arg: { as_tensor: { name: o.name } } } };
    if (kind === 'buffer_mutation') return { buffer_mutation: { arg: { name: o.name }, buffer_name: o.target } };
    if (kind === 'user_input_mutation') return { user_input_mutation: { arg: { name: o.name }, user_input_name: o.target } };
    if (kind === 'gradient_to_parameter') return { gradient_to_parameter: { arg: { name: o.name }, parameter_name: o.target } };
    return { [kind]: { arg: { name: o.name } } };
  };
  return {
    graph_module: {
      graph: {
        inputs: p.inputs.map((i) => ({ as_tensor: { name: i.name } })),
        outputs: p.outputs.map((o) => ({ as_tensor: { name: o.name } })),
        nodes: p.nodes.map((n) => ({
          target: n.target, ...(n.name ? { name: n.name } : {}),
          inputs: Object.entries(n.inputs).map(([name, a]) => ({ name, arg: argument(a), kind: 1 })),
          outputs: n.outputs.map((o) => (Array.isArray(o) ? { as_tensors: o.map((name) => ({ name })) } : { as_tensor: { name: o } })),
          metadata: {},
        })),
        tensor_values: p.tensors, sym_int_values: {}, sym_bool_values: {}, is_single_tensor_return: false,
        custom_obj_values: {}, sym_float_values: {},
      },
      signature: { input_specs: p.inputs.map(inputSpec), output_specs: p.outputs.map(outputSpec) },
      module_call_graph: [], metadata: {},
    },
    opset_version: { aten: 10 },
    range_constraints: p.ranges ?? {},
    schema_version: { major: p.major ?? 8, minor: 20 },
    verifiers: p.verifiers ?? ['ATEN'],
    torch_version: '2.13.0+cpu',
    guards_code: [],
  };
}

/** A .pt2 archive (stored zip, as torch.export.save writes) holding only the program. */
export function archive(model: unknown, name = 'archive'): Uint8Array {
  return zipSync({
    [`${name}/archive_format`]: strToU8('pt2'),
    [`${name}/models/model.json`]: strToU8(typeof model === 'string' ? model : JSON.stringify(model)),
  }, { level: 0 });
}

/** python3 (or TP_PYTHON) when it can import torch; else why the tests that need it skip. */
export function findTorch(): { python?: string; version?: string; why: string } {
  const python = process.env.TP_PYTHON ?? 'python3';
  const probe = spawnSync(python, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' });
  if (probe.status === 0) return { python, version: probe.stdout.trim(), why: `with ${python} (torch ${probe.stdout.trim()})` };
  const reason = probe.error ? probe.error.message : (probe.stderr.trim().split('\n').pop() ?? `exit ${probe.status}`);
  return { why: `skipped: ${python} cannot import torch (${reason}); set TP_PYTHON to an interpreter that can` };
}
