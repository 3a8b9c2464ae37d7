// Shape rules for the loss operators, onnx 1.23.1 onnx/defs/math/defs.cc
// (NegativeLogLikelihoodLoss-22, SoftmaxCrossEntropyLoss-13; Operators.md gives the shapes).
import { attrStr, gap, input } from '../infer-helpers.js';
import type { InferContext, Rule, Value } from '../infer-helpers.js';

/** The loss: the target's shape (N, d1, ..., dk) with reduction "none", else a scalar; the input's type. */
function loss(c: InferContext): Value {
  const x = input(c, 0), target = input(c, 1);
  if (x.shape.length < 2) gap(`input 0 has rank ${x.shape.length}; the loss takes (N, C) or (N, C, d1, ..., dk)`);
  if (target.shape.length !== x.shape.length - 1) gap(`the target has rank ${target.shape.length}, the input ${x.shape.length} (the target drops C)`);
  const reduction = attrStr(c, 'reduction', 'mean');
  if (!['none', 'sum', 'mean'].includes(reduction)) gap(`reduction "${reduction}" is not none, sum or mean`);
  return { shape: reduction === 'none' ? [...target.shape] : [], elemType: x.elemType };
}

/** NegativeLogLikelihoodLoss: one output, the loss. */
const negativeLogLikelihoodLoss: Rule = (c) => [loss(c)];

/** SoftmaxCrossEntropyLoss: the loss, and log_prob shaped like the scores. */
const softmaxCrossEntropyLoss: Rule = (c) => {
  const scores = input(c, 0);
  return [loss(c), { shape: [...scores.shape], elemType: scores.elemType }];
};

export const LOSS_RULES: Record<string, Rule> = {
  NegativeLogLikelihoodLoss: negativeLogLikelihoodLoss,
  SoftmaxCrossEntropyLoss: softmaxCrossEntropyLoss,
};
