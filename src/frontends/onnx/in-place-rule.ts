// Asks the core which ops of a graph may write in place (tp_graph_in_place,
// core-cpp in_place_rule.h): the front end says which ops' types may, and the
// core applies the rule on its own storages and last uses.
import { callGraphInPlace } from '../../abi/c-api.generated.js';
import type { CoreBinding } from '../../abi/core-binding.js';
import { encodeTensorShapes } from '../../execute/op-set.js';
import { encodeGraph } from '../../graph/encode-graph.js';
import type { GraphDocument } from '../../graph/graph-document.js';

/** The core's answer, by name: per op, the input its output 0 overwrites and the ops it must now run after. */
export interface InPlaceAnswer {
  /** Per op (graph order): the input tensor written in place, or undefined. */
  input: (string | undefined)[];
  /** Per op: control edges to add (op names), none already among its `after`. */
  after: string[][];
}

/**
 * Encodes `doc`, asks tp_graph_in_place with `candidates[k]` (may op k's type write output 0 into an
 * input?) and `pinned` (tensors never to overwrite beyond the graph's inputs, outputs and persistent
 * tensors), and decodes the answer (the one place that calls it).
 */
export function graphInPlace(core: CoreBinding, doc: GraphDocument, candidates: readonly boolean[],
  pinned: readonly string[] = []): InPlaceAnswer {
  const encoded = encodeGraph(core, doc);
  const tensors = encoded.doc.tensors;
  const { tensorDtype, shapeOffsets, shapeDims } = encodeTensorShapes(encoded.doc);
  const flags = Uint8Array.from(candidates, (c) => (c ? 1 : 0));
  const pins = Int32Array.from(pinned, (name) => encoded.tensorIndex.get(name)!);
  const { inPlaceInput: input, afterOffsets, afterOps } = callGraphInPlace(core, {
    ...encoded.graph,
    candidates: flags, candidateCount: flags.length,
    pinned: pins, pinnedCount: pins.length,
    tensorDtype, tensorDtypeCount: tensorDtype.length,
    shapeOffsets, shapeOffsetsCount: shapeOffsets.length,
    shapeDims, shapeDimsCount: shapeDims.length,
  });
  const ops = encoded.doc.ops;
  return {
    input: Array.from(input, (t) => (t >= 0 ? tensors[t].name : undefined)),
    after: ops.map((_, k) => Array.from(afterOps.subarray(afterOffsets[k], afterOffsets[k + 1]), (j) => ops[j].name)),
  };
}
