// Shape rules for the text operators, onnx 1.23.1 onnx/defs/nn/defs.cc (TfIdfVectorizer-9,
// StringNormalizer-10) and onnx/defs/text/defs.cc (StringConcat-20, RegexFullMatch-20,
// StringSplit-20). STRING tensors have no fixed size, so a plan cannot hold them; the rules
// still give their shapes, so that the importer names the string tensor it cannot plan.
import { DT } from '../onnx-model.js';
import { attrInts, broadcastShapes, gap, input } from '../infer-helpers.js';
import type { Rule } from '../infer-helpers.js';
import type { BoundedValue } from './data-dependent.js';

const STRING = 8;

/** TfIdfVectorizer: X (C) gives (max(ngram_indexes) + 1); X (N, C) gives (N, max + 1); FLOAT. */
const tfIdfVectorizer: Rule = (c) => {
  const x = input(c, 0);
  const indexes = attrInts(c, 'ngram_indexes') ?? gap('the ngram_indexes attribute is missing');
  const width = Math.max(...indexes) + 1;
  if (x.shape.length === 1) return [{ shape: [width], elemType: DT.FLOAT }];
  if (x.shape.length === 2) return [{ shape: [x.shape[0], width], elemType: DT.FLOAT }];
  return gap(`X has rank ${x.shape.length}; TfIdfVectorizer takes (C) or (N, C)`);
};

/**
 * StringNormalizer: X is (C) or (1, C); the output keeps at most C strings (stopwords removed), and
 * one empty string when every string is removed.
 */
const stringNormalizer: Rule = (c) => {
  const x = input(c, 0);
  const out: BoundedValue = { shape: [...x.shape], elemType: STRING, bound: 'StringNormalizer: at most every string is kept' };
  return [out];
};

/**
 * StringSplit: Y is X's shape plus the most substrings of any element (maxsplit + 1 at most when
 * maxsplit is given), Z (X's shape, INT64) their counts.
 */
const stringSplit: Rule = (c) => {
  const x = input(c, 0);
  const maxsplit = c.node.attributes.get('maxsplit')?.i;
  if (maxsplit === undefined) gap('the number of substrings depends on the strings, which the importer does not read');
  const y: BoundedValue = { shape: [...x.shape, maxsplit! + 1], elemType: STRING, bound: 'StringSplit: at most maxsplit + 1 substrings' };
  return [y, { shape: [...x.shape], elemType: DT.INT64 }];
};

export const TEXT_RULES: Record<string, Rule> = {
  TfIdfVectorizer: tfIdfVectorizer,
  StringNormalizer: stringNormalizer,
  StringSplit: stringSplit,
  StringConcat: (c) => [{ shape: broadcastShapes([input(c, 0).shape, input(c, 1).shape]), elemType: STRING }],
  RegexFullMatch: (c) => [{ shape: [...input(c, 0).shape], elemType: DT.BOOL }],
};

