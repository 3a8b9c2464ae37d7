// Shape rule for NonMaxSuppression, onnx 1.23.1 onnx/defs/object_detection/defs.cc
// (NonMaxSuppression-11): selected_indices is (num_selected, 3) int64 [batch, class, box]. How many
// boxes survive depends on the scores, so unless the evaluator computes it the rule gives the
// most that can be selected: every class of every batch keeps at most
// min(max_output_boxes_per_class, spatial_dimension) boxes (max_output_boxes_per_class omitted:
// 0, nothing selected). ONNX Runtime (core/providers/cpu/object_detection/non_max_suppression.cc,
// NonMaxSuppression::Compute) collects the selected indices and then allocates exactly them, so a
// plan by this bound holds what it allocates.
import { DT } from '../onnx-model.js';
import { gap, input } from '../infer-helpers.js';
import type { Rule } from '../infer-helpers.js';
import type { BoundedValue } from './data-dependent.js';

const nonMaxSuppression: Rule = (c) => {
  const boxes = input(c, 0), scores = input(c, 1);
  if (boxes.shape.length !== 3 || scores.shape.length !== 3) gap(`boxes [${boxes.shape.join(',')}] and scores [${scores.shape.join(',')}] must be (B, spatial, 4) and (B, classes, spatial)`);
  const [batches, spatial] = boxes.shape;
  const classes = scores.shape[1];
  const max = c.inputs[2];
  // An omitted input selects nothing; an unknown one at most every box.
  const perClass = !max ? 0 : max.data ? Math.max(0, Math.min(Number(max.data[0]), spatial)) : spatial;
  const out: BoundedValue = { shape: [batches * classes * perClass, 3], elemType: DT.INT64 };
  if (perClass > 0) out.bound = 'NonMaxSuppression: at most min(max_output_boxes_per_class, boxes) per class and batch';
  return [out];
};

export const OBJECT_DETECTION_RULES: Record<string, Rule> = { NonMaxSuppression: nonMaxSuppression };
