// What autograd keeps for backward, and how long. A tensor made in forward (or
// recomputation) and read in backward is saved; a saved view keeps its base.
// TE's autograd ctx holds every tensor a module saved (prepare_for_saving)
// until that module's backward returns, whether or not its last op reads them
// (TransformerEngine d0067d0da6, transformer_engine/pytorch/module/linear.py
// `_Linear.backward`, layernorm_linear.py `_LayerNormLinear.backward`,
// layernorm_mlp.py `_LayerNormMLP.backward`): holdUntil models that by making
// the op that ends the node read them.
import type { TeBehaviourId } from '../te-behaviours.js';
import { type GraphState, invalid } from './graph-state.js';

/**
 * Keeps tensors alive until an op that already exists (its short name under
 * the current prefix) by adding them to its inputs. `because` is what the
 * summary names when a tensor is alive only for that reason (`heldUntilNodeEnd`
 * unless told).
 */
export function holdUntil(g: GraphState, opName: string, tensors: string[], because: TeBehaviourId = 'heldUntilNodeEnd'): void {
  if (tensors.length === 0) return;
  const full = g.prefix + opName;
  const op = g.writer.ops.find((o) => o.name === full);
  if (!op) invalid(`${full}: no such op to hold saved tensors until`);
  for (const t of tensors) {
    if (op.inputs.includes(t)) continue;
    op.inputs.push(t);
    g.tensors[t].held = { lastReader: g.lastReader.get(t) ?? null, until: full, because };
    const list = g.reads.get(t) ?? [];
    list.push(g.ops[full]);
    g.reads.set(t, list);
  }
}

/** Marks the saved tensors once the graph is complete (weights and the input are never "saved"). */
export function markSaved(g: GraphState): void {
  for (const [tensor, phases] of g.reads) {
    const made = g.producers.get(tensor) ?? 'forward';
    if ((made === 'forward' || made === 'recompute') && phases.includes('backward') && g.tensors[tensor]) {
      if (g.tensors[tensor].role !== 'weight' && g.tensors[tensor].role !== 'input') g.tensors[tensor].saved = true;
    }
  }
  // A saved view keeps its base's storage for backward: the base is saved too.
  const parent = new Map<string, string>();
  for (const alias of g.writer.aliases) if (alias.kind === 'view') parent.set(alias.tensor, alias.base);
  for (const [view, base] of parent) {
    if (!g.tensors[view]?.saved) continue;
    let at: string | undefined = base;
    while (at !== undefined) {
      const info = g.tensors[at];
      if (info && info.role !== 'weight' && info.role !== 'input') info.saved = true;
      at = parent.get(at);
    }
  }
  // A forward output some backward reads is saved by autograd, whatever else reads it.
  for (const info of Object.values(g.tensors)) if (info.saved && info.because === 'forwardOutput') info.because = 'savedForBackward';
}
