// Shape rules for the optimizers of ai.onnx.preview.training, onnx 1.23.1
// onnx/defs/training/defs.cc (Adagrad-1, Adam-1, Momentum-1). Their variadic input holds n tensors
// to optimize, then one group of n per state (gradients, and accumulated values); the outputs are
// the n new tensors, then the n new values of each updated state, each shaped and typed like the
// tensor it belongs to.
import { gap, input } from '../infer-helpers.js';
import type { Rule } from '../infer-helpers.js';

/** An optimizer whose variadic input has `groups` groups of n (X, G, and the states) and output `groups - 1` groups. */
const optimizer = (groups: number): Rule => (c) => {
  const count = c.inputs.length - 2;
  if (count <= 0 || count % groups !== 0) gap(`its ${count} tensors after R and T are not ${groups} groups of one size`);
  const n = count / groups;
  return Array.from({ length: n * (groups - 1) }, (_, k) => {
    const x = input(c, 2 + (k % n));
    return { shape: [...x.shape], elemType: x.elemType };
  });
};

export const TRAINING_RULES: Record<string, Rule> = {
  Adagrad: optimizer(3),
  Adam: optimizer(4),
  Momentum: optimizer(3),
};
