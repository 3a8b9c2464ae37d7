// A value the evaluator will not claim although its inputs are known: a random output (Dropout in
// training mode), or a conversion where the spec and ONNX Runtime give different values. Unlike
// FoldGap (invalid values: the runtime fails too), the output keeps the shape its rule gives; the
// reason is kept with the value for the messages that need it (unknown-values.ts).
export class ValueUnknown extends Error {
  /** `varies`: the value differs from run to run (random), so the node must run, never be folded. */
  constructor(message: string, readonly varies = false) {
    super(message);
  }
}
