// Operators whose signature changed between opsets: an attribute that became an
// input. A node that uses the form its model's opset does not have would be read
// wrongly (an `axes` attribute ignored at opset 13 squeezes every 1-dim; a
// `split` input ignored at opset 11 splits evenly), so the importer refuses it,
// naming the node, the operator and the opset. The opsets are those
// of the ONNX operator changelog (onnx/docs/Changelog.md, Operators.md).

interface SignatureChange {
  /** The attributes that became inputs. */
  attributes: readonly string[];
  /** The (0-based) input that took the first of them. */
  input: number;
  /** The opset version from which they are inputs. */
  since: number;
}

const REDUCE_18 = ['ReduceMean', 'ReduceMax', 'ReduceMin', 'ReduceProd', 'ReduceL1', 'ReduceL2', 'ReduceLogSum', 'ReduceLogSumExp', 'ReduceSumSquare'];

const CHANGES = new Map<string, SignatureChange>([
  // Split-13: the `split` attribute (Split-2, Split-11) became optional input 2.
  ['Split', { attributes: ['split'], input: 1, since: 13 }],
  // Squeeze-13, Unsqueeze-13: the `axes` attribute (versions 1 and 11) became input 2.
  ['Squeeze', { attributes: ['axes'], input: 1, since: 13 }],
  ['Unsqueeze', { attributes: ['axes'], input: 1, since: 13 }],
  // ReduceSum-13: `axes` became optional input 2; the other reductions followed at opset 18.
  ['ReduceSum', { attributes: ['axes'], input: 1, since: 13 }],
  ...REDUCE_18.map((op) => [op, { attributes: ['axes'], input: 1, since: 18 }] as [string, SignatureChange]),
  // Clip-11: the `min` and `max` attributes (Clip-1, Clip-6) became inputs 2 and 3.
  ['Clip', { attributes: ['min', 'max'], input: 1, since: 11 }],
  // Pad-11: `pads` and `value` (Pad-2) became inputs 2 and 3.
  ['Pad', { attributes: ['pads', 'value'], input: 1, since: 11 }],
  // TopK-10: `k` (TopK-1) became input 2.
  ['TopK', { attributes: ['k'], input: 1, since: 10 }],
  // Slice-10: `starts`, `ends`, `axes` (Slice-1) became inputs 2 to 4.
  ['Slice', { attributes: ['starts', 'ends', 'axes'], input: 1, since: 10 }],
]);

/**
 * Why a default-domain node does not have its operator's signature at `opset`
 * (an attribute that opset moved to an input, or an input it does not have
 * yet), or undefined when it does.
 */
export function signatureMismatch(opType: string, opset: number, attributes: Iterable<string>, inputs: readonly string[]): string | undefined {
  const change = CHANGES.get(opType);
  if (!change) return undefined;
  if (opset >= change.since) {
    const moved = [...attributes].find((name) => change.attributes.includes(name));
    if (moved !== undefined) {
      const k = change.input + change.attributes.indexOf(moved);
      return `attribute "${moved}" is not part of ${opType} from opset ${change.since} on: it is input ${k + 1} there`;
    }
  } else if (inputs.slice(change.input).some((name) => name !== '')) {
    return `${opType} takes ${change.attributes.map((a) => `"${a}"`).join(', ')} as attributes before opset ${change.since}, `
      + `not as inputs (the node has ${inputs.length} inputs)`;
  }
  return undefined;
}
