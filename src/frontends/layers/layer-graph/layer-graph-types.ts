// What tp.layerGraph returns: the joint forward+backward graph of a layer spec
// and, for every tensor and op, where it comes from (layer-graph.ts re-exports
// these types). Each tensor names the TransformerEngine behaviour that puts it
// in memory (te-behaviours.ts, TE commit d0067d0da6) and, where TE keeps it
// past its last reader, the op it is kept until (saved-tensors.ts).
import type { Recipe } from '../../../formats/tensor-format.js';
import type { GraphDocument } from '../../../graph/graph-document.js';
import type { LayerEntry, LayerSpec } from '../layer-spec.js';
import type { TeBehaviourId } from '../te-behaviours.js';

/**
 * What a tensor of a layer graph is, for attribution.
 *
 * @group Planning
 */
export type LayerTensorRole =
  | 'input' | 'activation' | 'quantizedActivation' | 'communication' | 'gradient' | 'quantizedGradient'
  | 'quantizedWeight' | 'weightGradient' | 'weight' | 'masterWeight' | 'optimizerState';

/**
 * Where a tensor of a layer graph comes from.
 *
 * @group Planning
 */
export interface LayerTensorInfo {
  /** `L<i>` for the i-th layer after repeats; `model` for the graph input and the loss. */
  layer: string;
  /** The module inside the layer, e.g. `fc1`, `attn`, `ln1`. */
  module: string;
  role: LayerTensorRole;
  /** Made in forward (or recomputation) and read in backward. */
  saved: boolean;
  /** For a quantized buffer: the TE attribute (e.g. `_columnwise_data`) and the recipe. */
  buffer?: string;
  recipe?: Recipe;
  /** The TE behaviour that puts it in memory (te-behaviours.ts). */
  because: TeBehaviourId;
  /**
   * Set when TE keeps it past its last reader (holdUntil): `lastReader` is the
   * last op that really reads it (in build order), `until` the op it is kept
   * alive until, `because` the behaviour that keeps it there.
   */
  held?: { lastReader: string | null; until: string; because: TeBehaviourId };
}

/**
 * Phase of an op of a layer graph.
 *
 * @group Planning
 */
export type LayerOpPhase = 'forward' | 'loss' | 'backward' | 'recompute';

/**
 * A layer spec turned into a graph, with what every tensor and op is.
 *
 * @group Planning
 */
export interface LayerGraph {
  /** The joint forward+backward graph (graph format v1). */
  graph: GraphDocument;
  /** The spec it came from, checked. */
  spec: LayerSpec;
  tensors: Record<string, LayerTensorInfo>;
  ops: Record<string, LayerOpPhase>;
  /** Names of the layers in order (`L0`, `L1`, ...) with their kind. */
  layers: { layer: string; kind: LayerEntry['kind']; name: string; recompute: boolean }[];
}
