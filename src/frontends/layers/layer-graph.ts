// A layer spec as one joint forward+backward training graph, the way
// TransformerEngine runs it (TE commit d0067d0da6): every saved tensor, alias
// and quantized buffer, with weights, master weights and optimizer state
// persistent. This file assembles the step: each layer's forward in order
// (layer-graph/layer-forward.ts, one file per TE module and concern beside
// it), the loss, each layer's backward in reverse (after re-running its
// forward where the layer recomputes), the weight-gradient groups, and what
// autograd saves (layer-graph/saved-tensors.ts).
import type { CoreBinding } from '../../abi/core-binding.js';
import type { LayerEntry, LayerSpec } from './layer-spec.js';
import { parseLayerSpec } from './layer-spec.js';
import { GraphState, invalid } from './layer-graph/graph-state.js';
import type { LayerGraph } from './layer-graph/layer-graph-types.js';
import { layerForward } from './layer-graph/layer-forward.js';
import { groupWeightGradients } from './layer-graph/parameters.js';
import { markSaved } from './layer-graph/saved-tensors.js';
import type { Act, Bwd } from './layer-graph/values.js';

export type { LayerGraph, LayerOpPhase, LayerTensorInfo, LayerTensorRole } from './layer-graph/layer-graph-types.js';

/**
 * Turns a layer spec into one joint forward+backward training graph: every
 * saved tensor, alias and quantized buffer (TE Linear rules, FORMATS.md §6),
 * with weights, master weights and optimizer state persistent.
 */
export function layerGraph(core: CoreBinding, input: LayerSpec | unknown): LayerGraph {
  const name = (input as LayerSpec | null)?.name;
  const spec = parseLayerSpec(input, typeof name === 'string' ? name : 'layer spec');
  const g = new GraphState(core, spec);
  const m = spec.model;
  const rows = g.sp ? g.tokens / g.tp : g.tokens;
  const xName = g.t('input', { shape: [rows, m.hidden], dtype: g.dtype }, 'input', 'input', true);
  g.writer.input(xName);
  let x: Act = { name: xName, rows, cols: m.hidden };
  const layers: LayerGraph['layers'] = [];
  const stack: { bwd: Bwd; layer: string; entry: LayerEntry; x: Act }[] = [];
  let index = 0;
  for (const entry of spec.layers) {
    for (let r = 0; r < (entry.repeat ?? 1); r++) {
      const layer = `L${index++}`;
      g.layer = layer;
      g.prefix = `${layer}.`;
      g.phase = 'forward';
      layers.push({ layer, kind: entry.kind, name: entry.name ?? entry.kind, recompute: entry.recompute ?? false });
      const fwd = layerForward(g, entry, x);
      if (!fwd.y.name) invalid(`${layer}: layer output must be high precision`);
      stack.push({ bwd: fwd.bwd, layer, entry, x });
      x = fwd.y;
    }
  }
  g.layer = 'model';
  g.prefix = '';
  g.phase = 'loss';
  const dy0 = g.t('loss.grad', { shape: [x.rows, x.cols], dtype: g.dtype }, 'loss', 'gradient', true);
  // The loss is ½·Σ y² (op set v1: dL/dy = y is a copy), so the graph is executable end to end.
  g.op('loss', 'copy', [x.name], [dy0]);
  let dy: Act = { name: dy0, rows: x.rows, cols: x.cols };
  let lastOp = 'loss';
  for (let i = stack.length - 1; i >= 0; i--) {
    const item = stack[i];
    g.layer = item.layer;
    let bwd = item.bwd;
    if (item.entry.recompute) {
      // Recomputation: re-run this layer's forward after its output gradient exists.
      g.prefix = `${item.layer}.recompute.`;
      g.phase = 'recompute';
      g.after = [lastOp];
      bwd = layerForward(g, item.entry, item.x).bwd;
      g.after = [];
    }
    g.prefix = `${item.layer}.`;
    g.phase = 'backward';
    const before = Object.keys(g.ops).length;
    dy = bwd(dy);
    const names = Object.keys(g.ops);
    if (names.length > before) lastOp = names[names.length - 1];
  }
  g.writer.output(dy.name!);
  g.tensors[dy.name!].role = 'gradient';

  // Weight-gradient allocation: one bulk_allocate (256 B) or one packed buffer per layer and unit.
  groupWeightGradients(g);
  markSaved(g);
  return { graph: g.writer.build(), spec, tensors: g.tensors, ops: g.ops, layers };
}
