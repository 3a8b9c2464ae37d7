// Which ops write in place: `--in-place` (element-wise ops, an ONNX fact) or a runtime's kernels
// (`--runtime ort-cpu`: their MayInplace registrations, ort-cpu-rules.ts). The rule itself (last
// use, views, pinned storages, chains of writes) is the core's (in-place-rule.ts).
import type { CoreBinding } from '../../abi/core-binding.js';
import type { GraphDocument, GraphOp } from '../../graph/graph-document.js';
import { graphInPlace } from './in-place-rule.js';
import { BINARY_OPS, UNARY_OPS } from './onnx-infer.js';
import { ORT_CPU_MAY_INPLACE } from './ort-cpu-rules.js';
import type { ImportState } from './import-state.js';

const IN_PLACE_OPS = new Set([...UNARY_OPS, ...BINARY_OPS, 'Dropout']);

/**
 * In-place aliases for element-wise ops whose same-sized input storage dies at the op. Which ops
 * may write in place is an ONNX fact (IN_PLACE_OPS); the rule (last use, views, pinned storages,
 * chains of writes) and the `after` edges that order readers of the overwritten storage's views
 * are the core's (tp_graph_in_place). Graph inputs, outputs and used constants (persistent) are
 * never overwritten.
 */
export function addInPlace(s: ImportState, core: CoreBinding, doc: GraphDocument): void {
  // With a runtime, its kernels' MayInplace registrations decide which ops may write in place.
  const candidate = (op: GraphOp) => {
    if (s.options.runtime !== 'ort-cpu') return IN_PLACE_OPS.has(op.op ?? '');
    const dtype = s.tensors.get(op.outputs[0])?.dtype;
    return dtype !== undefined && (ORT_CPU_MAY_INPLACE.get(op.op ?? '')?.includes(dtype) ?? false);
  };
  const answer = graphInPlace(core, doc, s.ops.map(candidate));
  s.ops.forEach((op, i) => {
    const input = answer.input[i];
    if (input === undefined) return;
    if (answer.after[i].length) op.after = [...new Set([...(op.after ?? []), ...answer.after[i]])];
    s.aliases.push({ kind: 'inPlace', output: op.outputs[0], input });
    s.stats.inPlace += 1;
  });
}
