// Shape rules for the signal operators, onnx 1.23.1 onnx/defs/math/defs.cc (DFT-17/20, STFT-17,
// HannWindow / HammingWindow / BlackmanWindow-17, MelWeightMatrix-17; Operators.md gives the shapes).
import { DT } from '../onnx-model.js';
import { attrInt, constInput, gap, input, normAxis } from '../infer-helpers.js';
import type { InferContext, Rule, Value } from '../infer-helpers.js';

const scalar = (c: InferContext, k: number, what: string): number | undefined => constInput(c, k, what)?.[0];

/**
 * DFT: the input is [..signal dims..][1 or 2]; the output has 2 in the last dimension (1 for
 * IRFFT, onesided=1 with inverse=1) and, on the transformed axis, dft_length (default: the axis'
 * length; for IRFFT 2 * (length - 1), the full signal of a one-sided spectrum), or
 * floor(dft_length / 2) + 1 for RFFT (onesided=1, inverse=0). DFT-17 takes the axis as an
 * attribute (default 1), DFT-20 as input 2 (default -2, counted over the input's rank).
 */
function dft(c: InferContext): Value[] {
  const x = input(c, 0);
  const rank = x.shape.length;
  if (rank < 2 || (x.shape[rank - 1] !== 1 && x.shape[rank - 1] !== 2)) gap(`the input [${x.shape.join(',')}] does not end in 1 (real) or 2 (complex)`);
  const given = c.opset >= 20 ? scalar(c, 2, 'axis') : attrInt(c, 'axis', 1);
  const axis = normAxis(given ?? -2, rank);
  if (axis === rank - 1) gap('the last dimension (real, imaginary) cannot be the DFT axis');
  const onesided = attrInt(c, 'onesided', 0) === 1, inverse = attrInt(c, 'inverse', 0) === 1;
  const irfft = onesided && inverse;
  const length = scalar(c, 1, 'dft_length') ?? (irfft ? 2 * (x.shape[axis] - 1) : x.shape[axis]);
  const shape = [...x.shape];
  shape[axis] = onesided && !inverse ? Math.floor(length / 2) + 1 : length;
  shape[rank - 1] = irfft ? 1 : 2;
  return [{ shape, elemType: x.elemType }];
}

/**
 * STFT: signal [batch][signal_length][1 or 2]; output [batch][frames][bins][2] with
 * frames = floor((signal_length - frame_length) / frame_step) + 1, bins = frame_length // 2 + 1
 * when onesided (default 1), else frame_length. frame_length is input 3, else the window's
 * length, else signal_length.
 */
function stft(c: InferContext): Value[] {
  const x = input(c, 0);
  if (x.shape.length !== 3) gap(`the signal has rank ${x.shape.length}; STFT takes [batch][signal_length][1 or 2]`);
  const step = scalar(c, 1, 'frame_step') ?? gap('frame_step is missing');
  const frame = scalar(c, 3, 'frame_length') ?? c.inputs[2]?.shape[0] ?? x.shape[1];
  if (step <= 0 || frame <= 0 || frame > x.shape[1]) gap(`frame_length ${frame} and frame_step ${step} do not fit a signal of ${x.shape[1]}`);
  const frames = Math.floor((x.shape[1] - frame) / step) + 1;
  const bins = attrInt(c, 'onesided', 1) === 1 ? Math.floor(frame / 2) + 1 : frame;
  return [{ shape: [x.shape[0], frames, bins, 2], elemType: x.elemType }];
}

/** The windows: a 1-D tensor of `size` (a scalar input) elements, of output_datatype (default FLOAT). */
const windowRule: Rule = (c) => {
  const size = scalar(c, 0, 'size') ?? gap('size is missing');
  return [{ shape: [size], elemType: attrInt(c, 'output_datatype', DT.FLOAT) }];
};

/** MelWeightMatrix: [floor(dft_length / 2) + 1][num_mel_bins], of output_datatype (default FLOAT). */
const melWeightMatrix: Rule = (c) => {
  const bins = scalar(c, 0, 'num_mel_bins') ?? gap('num_mel_bins is missing');
  const length = scalar(c, 1, 'dft_length') ?? gap('dft_length is missing');
  return [{ shape: [Math.floor(length / 2) + 1, bins], elemType: attrInt(c, 'output_datatype', DT.FLOAT) }];
};

export const SIGNAL_RULES: Record<string, Rule> = {
  DFT: dft,
  STFT: stft,
  HannWindow: windowRule,
  HammingWindow: windowRule,
  BlackmanWindow: windowRule,
  MelWeightMatrix: melWeightMatrix,
};
