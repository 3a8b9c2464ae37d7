// The subset of torch.export's serialized program (models/model.json) the importer reads, as
// torch/_export/serde/schema.py defines it (SCHEMA_VERSION = (8, 20) in torch 2.13.0, (8, 17) in 2.11.0;
// pytorch/pytorch, BSD-3-Clause) and serialize.py writes it (ExportedProgramSerializer). A union
// (`_Union`) is an object with one key. Fields not listed here are ignored: within major 8 a new
// field always has a default (torch/_export/serde/schema_check.py's rule), so an older reader stays
// correct by skipping it.

/** The schema major this importer reads; ExportedProgramDeserializer.deserialize refuses another. */
export const SCHEMA_MAJOR = 8;

/** schema.py SymExprHint / SymExpr / SymInt. */
export interface SymExpr { expr_str: string; hint?: { as_int?: number; as_bool?: boolean; as_float?: number } | null }
export type SymInt = { as_int: number } | { as_expr: SymExpr };

/** schema.py TensorMeta. */
export interface TensorMeta {
  dtype: number;
  sizes: SymInt[];
  strides: SymInt[];
  storage_offset: SymInt;
  requires_grad?: boolean;
  device?: { type: string; index?: number | null };
  layout?: number;
}

/** schema.py Argument (the keys the importer looks at; others are non-tensor values). */
export interface Argument {
  as_none?: boolean;
  as_tensor?: { name: string };
  as_tensors?: { name: string }[];
  as_optional_tensor?: { as_tensor?: { name: string }; as_none?: boolean };
  as_optional_tensors?: { as_tensor?: { name: string }; as_none?: boolean }[];
  as_graph?: { name: string };
  [other: string]: unknown;
}

/** schema.py NamedArgument: `name` is the argument's name in the op's schema. */
export interface NamedArgument { name: string; arg: Argument; kind?: number | null }

/** schema.py Node. */
export interface ExportNode {
  target: string;
  inputs: NamedArgument[];
  outputs: Argument[];
  metadata?: Record<string, string>;
  name?: string | null;
}

/** schema.py Graph. */
export interface ExportGraph {
  inputs: Argument[];
  outputs: Argument[];
  nodes: ExportNode[];
  tensor_values: Record<string, TensorMeta>;
}

/** schema.py InputSpec / OutputSpec: unions keyed by kind. */
export type InputSpec = Record<string, { arg?: Argument & { name?: string }; parameter_name?: string; buffer_name?: string; tensor_constant_name?: string } | undefined>;
export type OutputSpec = Record<string, { arg?: Argument & { name?: string }; parameter_name?: string; buffer_name?: string; user_input_name?: string } | undefined>;

/** schema.py ExportedProgram (top level of model.json). */
export interface ExportedProgramJson {
  graph_module: { graph: ExportGraph; signature: { input_specs: InputSpec[]; output_specs: OutputSpec[] } };
  opset_version?: Record<string, number>;
  range_constraints?: Record<string, { min_val?: number | null; max_val?: number | null }>;
  schema_version: { major: number; minor: number };
  verifiers?: string[];
  torch_version?: string;
}
