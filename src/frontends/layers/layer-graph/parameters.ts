// Parameters and what training keeps for them: the weight (persistent), its
// fp32 master copy and the optimizer moments (TransformerEngine d0067d0da6,
// transformer_engine/pytorch/optimizers/fused_adam.py `FusedAdam`:
// master_weights, exp_avg, exp_avg_sq), and the weight gradients, graph
// outputs allocated one by one (`separate`), as one 256 B aligned group per
// layer and unit (`bulk`, TE csrc/extensions/allocate.cpp `bulk_allocate`) or
// packed without padding (`packed`, TE main's grouped wgrad torch.empty([G, *w])).
import type { GraphState } from './graph-state.js';

/** A weight (and its master copy and optimizer states), created once per layer and module. */
export function param(g: GraphState, module: string, shape: number[], suffix = 'weight'): string {
  const name = `${g.layer}.${module}.${suffix}`;
  if (g.params.has(name)) return name;
  g.params.add(name);
  g.t(name, { shape, dtype: g.dtype }, module, 'weight', true);
  g.writer.persistent(name);
  optimizerState(g, name, module, shape);
  return name;
}

/** fp32 master weight and optimizer states of a parameter. */
export function optimizerState(g: GraphState, name: string, module: string, shape: number[]): void {
  if (g.master) {
    g.t(`${name}.master`, { shape, dtype: 'fp32' }, module, 'masterWeight', true);
    g.writer.persistent(`${name}.master`);
  }
  for (let i = 0; i < g.states; i++) {
    const state = `${name}.state${i}`;
    g.t(state, { shape, dtype: 'fp32' }, module, 'optimizerState', true);
    g.writer.persistent(state);
  }
}

/** A weight gradient, a graph output; `unit` groups those that are bulk-allocated together. */
export function wgrad(g: GraphState, module: string, shape: number[], unit: string, gemm = true, suffix = 'wgrad'): string {
  const mode = g.spec.weightGradients ?? 'separate';
  const grouped = gemm && mode !== 'separate';
  const alignment = mode === 'bulk' ? 256 : g.elementBytes(g.wgradDtype);
  const name = g.t(`${g.layer}.${module}.${suffix}`, { shape, dtype: g.wgradDtype, ...(grouped ? { alignment } : {}) },
    module, 'weightGradient', true);
  g.writer.output(name);
  if (grouped) {
    const key = `${g.layer}.${unit}`;
    const list = g.wgrads.get(key) ?? [];
    list.push(name);
    g.wgrads.set(key, list);
  }
  return name;
}

/** The weight-gradient groups: one bulk_allocate (256 B) or one packed buffer per layer and unit. */
export function groupWeightGradients(g: GraphState): void {
  for (const members of g.wgrads.values()) g.writer.group(members);
}
