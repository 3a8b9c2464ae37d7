// Shape rules for the tensor operators of ai.onnx.ml that scikit-learn and LightGBM exports
// (skl2onnx, onnxmltools) write, onnx 1.23.1 onnx/defs/traditionalml/defs.cc: ArrayFeatureExtractor-1,
// Binarizer-1, Imputer-1, Scaler-1, Normalizer-1, LabelEncoder-4, OneHotEncoder-1,
// LinearRegressor-1, SVMRegressor-1, TreeEnsembleRegressor-3, TreeEnsemble-5. A batch is (N, C),
// or one example (C), which ONNX Runtime's kernels read as N = 1 (onnxruntime
// core/providers/cpu/ml/*.cc: the regressors' output is (N, targets) either way).
import { DT } from '../onnx-model.js';
import { attr, attrInt, gap, input } from '../infer-helpers.js';
import type { InferContext, Rule } from '../infer-helpers.js';

const STRING = 8;
const same: Rule = (c) => { const x = input(c, 0); return [{ shape: [...x.shape], elemType: x.elemType }]; };
const sameFloat: Rule = (c) => [{ shape: [...input(c, 0).shape], elemType: DT.FLOAT }];

/** The batch size of X: N of (N, C), 1 for one example (C). */
function batch(c: InferContext): number {
  const x = input(c, 0);
  if (x.shape.length === 1) return 1;
  if (x.shape.length === 2) return x.shape[0];
  return gap(`X has rank ${x.shape.length}; the operator takes (N, C) or (C)`);
}

/**
 * ArrayFeatureExtractor: the indices Y select along X's last axis: X (..., C) gives (..., len(Y));
 * a 1-D X gives (1, len(Y)) (ORT's array_feature_extractor.cc, which the spec's example follows).
 */
const arrayFeatureExtractor: Rule = (c) => {
  const x = input(c, 0), y = input(c, 1);
  const n = y.shape.reduce((a, b) => a * b, 1);
  return [{ shape: x.shape.length === 1 ? [1, n] : [...x.shape.slice(0, -1), n], elemType: x.elemType }];
};

/** LabelEncoder: X's shape; the type of the values_* attribute (strings, int64s, floats, or the tensor's). */
const labelEncoder: Rule = (c) => {
  const x = input(c, 0);
  const elemType = attr(c, 'values_tensor')?.t?.dataType
    ?? (attr(c, 'values_strings') ? STRING : attr(c, 'values_int64s') ? DT.INT64 : attr(c, 'values_floats') ? DT.FLOAT : gap('no values_* attribute'));
  return [{ shape: [...x.shape], elemType }];
};

/** OneHotEncoder: X's shape plus one axis of the categories' count, FLOAT (integer categories; string lists are not read). */
const oneHotEncoder: Rule = (c) => {
  const x = input(c, 0);
  const cats = attr(c, 'cats_int64s')?.ints.length || gap('the categories are not cats_int64s (the importer does not read string lists)');
  return [{ shape: [...x.shape, cats], elemType: DT.FLOAT }];
};

const regressor = (targets: (c: InferContext) => number, type?: number): Rule => (c) => [{ shape: [batch(c), targets(c)], elemType: type ?? input(c, 0).elemType }];

export const ML_RULES: Record<string, Rule> = {
  ArrayFeatureExtractor: arrayFeatureExtractor,
  Binarizer: same,
  Imputer: same,
  Scaler: sameFloat,
  Normalizer: sameFloat,
  LabelEncoder: labelEncoder,
  OneHotEncoder: oneHotEncoder,
  LinearRegressor: regressor((c) => attrInt(c, 'targets', 1), DT.FLOAT),
  SVMRegressor: regressor(() => 1, DT.FLOAT),
  TreeEnsembleRegressor: regressor((c) => attrInt(c, 'n_targets', 1), DT.FLOAT),
  TreeEnsemble: regressor((c) => attrInt(c, 'n_targets', 1)),
};
