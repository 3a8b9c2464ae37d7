// Values given for graph inputs (`values` / `--value NAME=V[,V...]`): checked against the input's
// element type and shape from the file, converted to the evaluator's elements.
import { BOOL, castScalar, elementsOf, isIntegerType, numel, wrapInt } from './fold/elements.js';
import type { Elements } from './fold/elements.js';
import type { OnnxValueInfo } from './onnx-model.js';
import { elemTypeName } from './onnx-model.js';

/**
 * A graph input's value: a scalar or the elements row-major.
 *
 * @group Files
 */
export type InputValue = number | bigint | boolean | readonly (number | bigint | boolean)[];

/**
 * The shape and elements of graph input `info` given `value`. `shape` is the input's shape when
 * known (from `inputShapes` or the file); otherwise a rank-0 or rank-1 input takes its shape from
 * the number of values (none: an empty tensor). Float inputs take NaN and +-Infinity; each value
 * is stored rounded to the input's type (FLOAT: Math.fround), as the runtime holds it. Every
 * problem is reported through `fail`, naming the input.
 */
export function inputValue(info: OnnxValueInfo, value: InputValue, shape: number[] | undefined, fail: (message: string) => never): { shape: number[]; data: Elements } {
  const name = info.name;
  const items = Array.isArray(value) ? [...value] : [value as number | bigint | boolean];
  const shown = items.map(String).join(',');
  const where = `--value ${name}=${shown}`;
  const t = info.elemType ?? fail(`${where}: graph input "${name}" has no element type in the file`);
  const typeName = elemTypeName(t);
  if (!(isIntegerType(t) || t === 1 || t === 10 || t === 11 || t === 16)) {
    fail(`${where}: graph input "${name}" is ${typeName}; values can be given for numeric and bool inputs only`);
  }
  items.forEach((v, i) => {
    const at = items.length > 1 ? ` (value ${i})` : '';
    if (t === BOOL) {
      if (!(typeof v === 'boolean' || v === 0 || v === 1 || v === 0n || v === 1n)) fail(`${where}: graph input "${name}" is BOOL: ${String(v)}${at} must be true, false, 0 or 1`);
    } else if (isIntegerType(t)) {
      if (typeof v === 'boolean') fail(`${where}: graph input "${name}" is ${typeName}: ${v}${at} is not an integer`);
      if (typeof v === 'number' && !Number.isSafeInteger(v)) {
        fail(`${where}: graph input "${name}" is ${typeName}: ${v}${at} is not ${Number.isInteger(v) ? 'exact (beyond 2^53: give it as a bigint)' : 'an integer'}`);
      }
      const b = BigInt(v as number | bigint);
      if (wrapInt(t, b) !== b) fail(`${where}: graph input "${name}" is ${typeName}: ${b}${at} is out of its range`);
    } else if (typeof v === 'boolean') {
      fail(`${where}: graph input "${name}" is ${typeName}: ${v}${at} is not a number`);
    } else {
      // NaN and +-Inf are values of every float type (masks hold -Inf); a finite value the type
      // cannot hold would become +-Inf, which is not what was given.
      const stored = castScalar(v, t) as number;
      if (Number.isFinite(Number(v)) && !Number.isFinite(stored)) fail(`${where}: graph input "${name}" is ${typeName}: ${String(v)}${at} is beyond its largest finite value`);
    }
  });
  const dims = info.dims;
  let resolved = shape;
  if (!resolved) {
    if (dims && dims.length === 0) resolved = [];
    else if (!dims || dims.length === 1) resolved = [items.length];
    else fail(`${where}: graph input "${name}" has shape [${dims.map((d) => d ?? '?').join(',')}]: bind its dimensions (--input) so that the values can be laid out`);
  }
  if (numel(resolved) !== items.length) {
    fail(`${where}: graph input "${name}" has shape [${resolved.join(',')}] (${numel(resolved)} element${numel(resolved) === 1 ? '' : 's'}), but ${items.length} value${items.length === 1 ? ' is' : 's are'} given`);
  }
  return { shape: resolved, data: elementsOf(items, t) };
}
