// The default-domain shape rules of the files in this folder, one table for onnx-infer.ts, and
// those of other ONNX domains: ai.onnx.preview (FlexAttention), ai.onnx.preview.training (the
// optimizers), ai.onnx.ml (the tensor operators of scikit-learn and LightGBM exports).
import { gap } from '../infer-helpers.js';
import type { Rule } from '../infer-helpers.js';
import { ATTENTION_RULES, PREVIEW_RULES } from './attention.js';
import { DATA_DEPENDENT_RULES } from './data-dependent.js';
import { GENERATOR_RULES } from './generators.js';
import { IMAGE_RULES } from './image.js';
import { LOSS_RULES } from './losses.js';
import { MATH_RULES } from './math.js';
import { ML_RULES } from './ml.js';
import { OBJECT_DETECTION_RULES } from './object-detection.js';
import { SEQUENCE_RULES, sequenceMap } from './sequences.js';
import { SIGNAL_RULES } from './signal.js';
import { TEXT_RULES } from './text.js';
import { TRAINING_RULES } from './training.js';

/**
 * The opset in which ONNX first defines each operator of the table (onnx 1.23.1,
 * onnx.defs.get_all_schemas_with_history: the smallest since_version in the default domain). A
 * model that imports an older opset has no such operator: a node of that name there (an exporter's
 * own, or ONNX Runtime's contrib Attention written in the wrong domain) gets no rule.
 */
const FIRST_OPSET: Record<string, number> = {
  Attention: 23, RotaryEmbedding: 23, TensorScatter: 24, LinearAttention: 27, CausalConvWithState: 27, SwiGLU: 28,
  NonZero: 9, Unique: 11, Compress: 9, NonMaxSuppression: 10,
  RandomNormal: 1, RandomUniform: 1, RandomNormalLike: 1, RandomUniformLike: 1, Bernoulli: 15, EyeLike: 9, Multinomial: 7,
  GridSample: 16, AffineGrid: 20, RoiAlign: 10, MaxRoiPool: 1, DeformConv: 19, Col2Im: 18, CenterCropPad: 18, MaxUnpool: 9, ImageDecoder: 20,
  NegativeLogLikelihoodLoss: 12, SoftmaxCrossEntropyLoss: 12,
  Acosh: 9, Asinh: 9, Atanh: 9, CumProd: 26, BitCast: 26, Det: 11, RMSNormalization: 23,
  SequenceEmpty: 11, SequenceConstruct: 11, SequenceInsert: 11, SequenceErase: 11, SequenceAt: 11, SequenceLength: 11,
  SplitToSequence: 11, ConcatFromSequence: 11, SequenceMap: 17, Optional: 15, OptionalHasElement: 15, OptionalGetElement: 15,
  DFT: 17, STFT: 17, HannWindow: 17, HammingWindow: 17, BlackmanWindow: 17, MelWeightMatrix: 17,
  TfIdfVectorizer: 9, StringNormalizer: 10, StringSplit: 20, StringConcat: 20, RegexFullMatch: 20,
};

/** `rule`, refusing a model whose opset predates the operator. */
const fromFirstOpset = (op: string, rule: Rule): Rule => (c) => {
  const first = FIRST_OPSET[op] ?? gap(`internal: no first opset listed for ${op}`);
  if (c.opset < first) gap(`no shape rule for this operator at opset ${c.opset}: ONNX defines ${op} from opset ${first} on`);
  return rule(c);
};

/** The table; `inferNode` infers the nodes of SequenceMap's body (onnx-infer.ts passes its own). */
export function operatorFamilyRules(inferNode: Rule): Record<string, Rule> {
  const rules: Record<string, Rule> = {
    ...ATTENTION_RULES, ...DATA_DEPENDENT_RULES, ...GENERATOR_RULES, ...IMAGE_RULES, ...LOSS_RULES,
    ...MATH_RULES, ...OBJECT_DETECTION_RULES, ...SEQUENCE_RULES, ...SIGNAL_RULES, ...TEXT_RULES,
    SequenceMap: sequenceMap(inferNode),
  };
  return Object.fromEntries(Object.entries(rules).map(([op, rule]) => [op, fromFirstOpset(op, rule)]));
}

/** Rules of ONNX's other domains, by domain. */
export const ONNX_DOMAIN_RULES: ReadonlyMap<string, Record<string, Rule>> = new Map([
  ['ai.onnx.preview', PREVIEW_RULES],
  ['ai.onnx.preview.training', TRAINING_RULES],
  ['ai.onnx.ml', ML_RULES],
]);
