// Shape rules for operators that generate tensors (random ones and EyeLike), onnx 1.23.1
// onnx/defs/generator/defs.cc (RandomNormal / RandomUniform / RandomNormalLike / RandomUniformLike-22,
// Bernoulli-22, EyeLike-22) and onnx/defs/math/defs.cc (Multinomial-22).
import { DT } from '../onnx-model.js';
import { attr, attrInt, attrInts, gap, input } from '../infer-helpers.js';
import type { InferContext, Rule } from '../infer-helpers.js';

/** The `dtype` attribute, else `fallback`. */
const dtype = (c: InferContext, fallback: number) => attr(c, 'dtype')?.i ?? fallback;

/** RandomNormal, RandomUniform: the `shape` attribute, dtype (default FLOAT). */
const random: Rule = (c) => [{ shape: attrInts(c, 'shape') ?? (attr(c, 'shape') ? [] : gap('the shape attribute is missing')), elemType: dtype(c, DT.FLOAT) }];

/** RandomNormalLike, RandomUniformLike, Bernoulli, EyeLike: the input's shape, dtype (default the input's type). */
const like: Rule = (c) => { const x = input(c, 0); return [{ shape: [...x.shape], elemType: dtype(c, x.elemType) }]; };

/** Multinomial: input (batch_size, class_size) gives (batch_size, sample_size), dtype (default INT32). */
const multinomial: Rule = (c) => {
  const x = input(c, 0);
  if (x.shape.length !== 2) gap(`the input has rank ${x.shape.length}; Multinomial takes (batch_size, class_size)`);
  return [{ shape: [x.shape[0], attrInt(c, 'sample_size', 1)], elemType: dtype(c, DT.INT32) }];
};

export const GENERATOR_RULES: Record<string, Rule> = {
  RandomNormal: random,
  RandomUniform: random,
  RandomNormalLike: like,
  RandomUniformLike: like,
  Bernoulli: like,
  EyeLike: like,
  Multinomial: multinomial,
};
