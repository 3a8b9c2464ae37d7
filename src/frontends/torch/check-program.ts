// The structure of the fields the importer reads (torch/_export/serde/schema.py, major 8), checked
// before it reads them: a damaged or hand-edited model.json is an error naming the field and the
// value, never a TypeError inside the importer. Unknown fields are not looked at.
import { TensorplanError, shown } from '../../errors.js';
import type { ExportedProgramJson } from './export-schema.js';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function checkProgram(p: ExportedProgramJson, source: string): void {
  const bad = (where: string, value: unknown, rule: string): never => {
    throw new TensorplanError('INVALID_ARGUMENT', `${source}: ${where} = ${shown(value)}: must be ${rule} (torch/_export/serde/schema.py)`);
  };
  const object = (where: string, v: unknown, rule = 'an object') => (isObject(v) ? v : bad(where, v, rule));
  const list = (where: string, v: unknown) => (Array.isArray(v) ? v : bad(where, v, 'a list'));
  const symInt = (where: string, v: unknown) => {
    const s = object(where, v, 'a SymInt ({"as_int": N} or {"as_expr": {"expr_str": ...}})');
    if ('as_int' in s) { if (typeof s.as_int !== 'number') bad(`${where}.as_int`, s.as_int, 'an integer'); return; }
    const e = object(`${where}.as_expr`, s.as_expr, 'a SymExpr');
    if (typeof e.expr_str !== 'string') bad(`${where}.as_expr.expr_str`, e.expr_str, 'a string');
    if (e.hint !== undefined && e.hint !== null) object(`${where}.as_expr.hint`, e.hint, 'a SymExprHint');
  };
  const argument = (where: string, v: unknown) => {
    const a = object(where, v, 'an Argument');
    const named = (w: string, t: unknown) => { const o = object(w, t, 'a TensorArgument'); if (typeof o.name !== 'string') bad(`${w}.name`, o.name, 'a string'); };
    if (a.as_tensor !== undefined) named(`${where}.as_tensor`, a.as_tensor);
    if (a.as_tensors !== undefined) list(`${where}.as_tensors`, a.as_tensors).forEach((t, i) => named(`${where}.as_tensors[${i}]`, t));
    const optional = (w: string, t: unknown) => { const o = object(w, t, 'an OptionalTensorArgument'); if (o.as_tensor !== undefined) named(`${w}.as_tensor`, o.as_tensor); };
    if (a.as_optional_tensor !== undefined) optional(`${where}.as_optional_tensor`, a.as_optional_tensor);
    if (a.as_optional_tensors !== undefined) list(`${where}.as_optional_tensors`, a.as_optional_tensors).forEach((t, i) => optional(`${where}.as_optional_tensors[${i}]`, t));
    if (a.name !== undefined && typeof a.name !== 'string') bad(`${where}.name`, a.name, 'a string');
  };
  const gm = object('graph_module', p.graph_module);
  const graph = object('graph_module.graph', gm.graph);
  list('graph_module.graph.inputs', graph.inputs);
  list('graph_module.graph.nodes', graph.nodes).forEach((n, i) => {
    const where = `graph.nodes[${i}]`;
    const node = object(where, n, 'a Node');
    if (typeof node.target !== 'string') bad(`${where}.target`, node.target, 'a string');
    if (node.name !== undefined && node.name !== null && typeof node.name !== 'string') bad(`${where}.name`, node.name, 'a string');
    list(`${where}.inputs`, node.inputs).forEach((input, j) => {
      const named = object(`${where}.inputs[${j}]`, input, 'a NamedArgument');
      if (typeof named.name !== 'string') bad(`${where}.inputs[${j}].name`, named.name, 'a string');
      argument(`${where}.inputs[${j}].arg`, named.arg);
    });
    list(`${where}.outputs`, node.outputs).forEach((o, j) => argument(`${where}.outputs[${j}]`, o));
  });
  const values = object('graph.tensor_values', graph.tensor_values);
  for (const [name, m] of Object.entries(values)) {
    const where = `graph.tensor_values.${name}`;
    const meta = object(where, m, 'a TensorMeta');
    list(`${where}.sizes`, meta.sizes).forEach((s, i) => symInt(`${where}.sizes[${i}]`, s));
    list(`${where}.strides`, meta.strides).forEach((s, i) => symInt(`${where}.strides[${i}]`, s));
    if (meta.storage_offset !== undefined) symInt(`${where}.storage_offset`, meta.storage_offset);
    if (meta.device !== undefined && meta.device !== null) object(`${where}.device`, meta.device, 'a Device');
  }
  const signature = object('graph_module.signature', gm.signature, 'a GraphSignature');
  for (const field of ['input_specs', 'output_specs'] as const) {
    list(`graph_module.signature.${field}`, signature[field]).forEach((spec, i) => {
      const where = `graph_module.signature.${field}[${i}]`;
      const union = object(where, spec, field === 'input_specs' ? 'an InputSpec' : 'an OutputSpec');
      for (const [kind, body] of Object.entries(union)) {
        const b = object(`${where}.${kind}`, body);
        if (b.arg !== undefined) argument(`${where}.${kind}.arg`, b.arg);
        for (const key of ['parameter_name', 'buffer_name', 'user_input_name', 'tensor_constant_name']) {
          if (b[key] !== undefined && typeof b[key] !== 'string') bad(`${where}.${kind}.${key}`, b[key], 'a string');
        }
      }
    });
  }
  if (p.range_constraints !== undefined && p.range_constraints !== null) {
    for (const [name, r] of Object.entries(object('range_constraints', p.range_constraints))) {
      const range = object(`range_constraints.${name}`, r, 'a RangeConstraint');
      for (const key of ['min_val', 'max_val']) if (range[key] !== undefined && range[key] !== null && typeof range[key] !== 'number') bad(`range_constraints.${name}.${key}`, range[key], 'an integer or null');
    }
  }
  if (p.verifiers !== undefined && !(Array.isArray(p.verifiers) && p.verifiers.every((v) => typeof v === 'string'))) bad('verifiers', p.verifiers, 'a list of strings');
}
