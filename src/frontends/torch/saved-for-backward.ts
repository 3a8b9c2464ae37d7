// In a joint forward + backward graph (torch.export.experimental._export_forward_backward) nothing
// marks the saved tensors: they are the forward values that backward nodes read. The backward
// starts at the seed gradient of the loss, `full_like(loss, 1)` (aot_autograd's joint trace seeds
// the backward with ones like each output; torch 2.13 writes full_like in core ATen graphs).
import type { ExportNode } from './export-schema.js';
import { argTensors, targetKey } from './op-effects.js';

const SEEDS = new Set(['full_like', 'ones_like']);

/** Index of the first backward node, or -1 when there is no seed for the loss. */
export function backwardStart(nodes: readonly ExportNode[], loss: string): number {
  return nodes.findIndex((n) => SEEDS.has(targetKey(n.target).key.split('.')[0]) && argTensors(n.inputs.find((i) => i.name === 'self')?.arg)[0] === loss);
}

/** Tensors made by forward nodes that backward nodes read. */
export function savedForBackward(nodes: readonly ExportNode[], loss: string): Set<string> {
  const start = backwardStart(nodes, loss);
  const saved = new Set<string>();
  if (start < 0) return saved;
  const forward = new Set(nodes.slice(0, start).flatMap((n) => n.outputs.flatMap((o) => argTensors(o))));
  for (const n of nodes.slice(start)) {
    for (const i of n.inputs) for (const t of argTensors(i.arg)) if (forward.has(t) && t !== loss) saved.add(t);
  }
  return saved;
}
