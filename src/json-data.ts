import { TensorplanError, shown } from './errors.js';

/** Documents (graphs, plans, layer specs) nest a few levels; deeper than this is refused before any recursive walk. */
export const MAX_DOCUMENT_DEPTH = 256;

interface Frame {
  value: unknown;
  key: string | number | undefined;
  parent: Frame | undefined;
  depth: number;
}

function pathOf(frame: Frame): string {
  const keys: (string | number)[] = [];
  for (let f: Frame | undefined = frame; f?.key !== undefined; f = f.parent) keys.push(f.key);
  return keys.reverse().reduce<string>((path, key) => (typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key), '');
}

/**
 * Checks that a document is JSON data before a schema or anything recursive
 * reads it: a BigInt, a typed array, a function or a symbol is
 * refused with its path, as is nesting deeper than {@link MAX_DOCUMENT_DEPTH}
 * (which would overflow the stack of a recursive walk). The walk itself keeps
 * its own stack. JSON Schema alone would take an empty typed array for an
 * object, and its error messages would have to print a BigInt.
 *
 * @param source - names the document in errors
 */
export function checkJsonData(document: unknown, source: string): void {
  const stack: Frame[] = [{ value: document, key: undefined, parent: undefined, depth: 0 }];
  const fail = (frame: Frame, rule: string): never => {
    const full = pathOf(frame) || '(the document)';
    const path = full.length > 80 ? `${full.slice(0, 60)}...(${frame.depth} levels)` : full;
    throw new TensorplanError('INVALID_ARGUMENT', `${source}: ${path} = ${shown(frame.value)}: ${rule}`);
  };
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const { value } = frame;
    const type = typeof value;
    if (type === 'bigint' || type === 'function' || type === 'symbol') fail(frame, `must be JSON data (a ${type} is not)`);
    if (value === null || type !== 'object') continue;
    if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) fail(frame, 'must be JSON data (a binary buffer is not)');
    if (frame.depth >= MAX_DOCUMENT_DEPTH) fail(frame, `nested deeper than ${MAX_DOCUMENT_DEPTH} levels of arrays or objects`);
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], key: i, parent: frame, depth: frame.depth + 1 });
    } else {
      const keys = Object.keys(value as object);
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push({ value: (value as Record<string, unknown>)[keys[i]], key: keys[i], parent: frame, depth: frame.depth + 1 });
      }
    }
  }
}

/** A `source` argument (the name errors give a document): a string, or INVALID_ARGUMENT. */
export function checkSource(source: unknown): string {
  if (typeof source !== 'string') throw new TensorplanError('INVALID_ARGUMENT', `source = ${shown(source)}: must be a string naming the document`);
  return source;
}
