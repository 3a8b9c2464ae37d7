// Reads core-cpp's c_api.h, the one description of the C ABI: its operations
// (with their parameters and TP_RESULT_FIELDS_<name> result lists) and its
// code tables (the TP_*_LIST X-macros named by TP_CODE_TABLE_LIST). The
// addon's wrappers (scripts/gen-native-abi.mjs) and the TypeScript module
// (scripts/abi/gen-ts.mjs) are both generated from what this returns.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const HEADER = `${root}core-cpp/include/tensorplan/c_api.h`;

/** C parameter types c_api.h's rules allow (besides the trailing tp_result** out). */
export const PARAM_TYPES = ['const double*', 'const float*', 'const int32_t*', 'const uint8_t*', 'const uint16_t*', 'int32_t', 'double'];

/** Result array types (tp_array_type suffixes). */
export const ARRAY_TYPES = ['F64', 'I32', 'U8', 'F32', 'U16'];

function stripComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
}

/**
 * Every `#define NAME(X) ...` of the header with its body lines (continuations
 * joined, comments kept per line so list entries keep their explanations).
 */
function macroBodies(headerText) {
  const lines = headerText.split('\n');
  const macros = new Map();
  for (let i = 0; i < lines.length; i++) {
    const m = /^#define\s+(\w+)\(X\)(.*)$/.exec(lines[i]);
    if (!m) continue;
    const body = [m[2]];
    let line = lines[i];
    while (line.trimEnd().endsWith('\\') && i + 1 < lines.length) {
      line = lines[++i];
      body.push(line);
    }
    macros.set(m[1], body.map((l) => l.replace(/\\\s*$/, '')));
  }
  return macros;
}

/** The X(...) entries of a list body: their arguments and the comment on their line. */
function entries(bodyLines, where, allowEmpty = false) {
  const out = [];
  for (const line of bodyLines) {
    const comment = (/\/\*(.*?)\*\//.exec(line)?.[1] ?? '').trim();
    for (const m of stripComments(line).matchAll(/\bX\(([^)]*)\)/g)) {
      out.push({ args: m[1].split(',').map((a) => a.trim()), comment });
    }
  }
  if (out.length === 0 && !allowEmpty) throw new Error(`${where}: no X(...) entries`);
  return out;
}

/** Pointer types that are caller-owned input arrays: each needs a stated length. */
export const ARRAY_PARAM_TYPES = ['const double*', 'const float*', 'const int32_t*', 'const uint8_t*', 'const uint16_t*'];

/** `#define TP_NAME 123` constants a length may name (TP_FORMAT_FIELDS). */
function integerConstants(text) {
  return Object.fromEntries([...text.matchAll(/^#define\s+(TP_\w+)\s+(\d+)\s*$/gm)].map((m) => [m[1], Number(m[2])]));
}

/**
 * A length expression (`count + 1`, `2 * count`, `TP_FORMAT_FIELDS`) as tokens:
 * integers, + - *, the operation's int32 and double parameters, and integer
 * constants of the header. Parentheses are not allowed (the declaration's
 * parameter list is read up to its closing parenthesis).
 */
function lengthTokens(where, expr, scalars, constants) {
  const tokens = expr.match(/\w+|\S/g) ?? [];
  if (tokens.length === 0 || tokens.length % 2 === 0) throw new Error(`${where}: length [${expr}] must be terms joined by + - *`);
  return tokens.map((t, i) => {
    if (i % 2 === 1) {
      if (!['+', '-', '*'].includes(t)) throw new Error(`${where}: length [${expr}]: operator ${t} is not one of + - *`);
      return { op: t };
    }
    if (/^\d+$/.test(t)) return { number: Number(t) };
    if (constants[t] !== undefined) return { constant: t, number: constants[t] };
    const param = scalars.find((p) => p.name === t);
    if (!param) throw new Error(`${where}: length [${expr}] names ${t}, which is neither a scalar parameter before "out" nor a TP_ constant`);
    return { param: t, type: param.type };
  });
}

/**
 * A length expression as code: `param(name)` renders a parameter (as a number
 * the target language computes with in double precision), constants become
 * their values.
 */
export function renderLength(tokens, param) {
  return tokens.map((t) => (t.op ?? (t.param ? param(t.param, t.type) : String(t.number)))).join(' ');
}

/**
 * Reads a parameter's annotation (c_api.h rules): every array `/*[length]*\/`
 * (optionally `or NULL`, and for a CSR offsets array `last == n` or
 * `last <= n`: its entry at length - 1 equals, or is at most, the int32
 * parameter n), every double `/*finite*\/` or `/*any*\/`.
 */
function annotate(name, params, constants) {
  const scalars = params.filter((p) => p.type === 'int32_t' || p.type === 'double');
  for (const p of params) {
    const where = `${name}: parameter ${p.name}`;
    const note = p.annotation;
    if (ARRAY_PARAM_TYPES.includes(p.type)) {
      if (p.length) continue;  // from a parameter macro, already read
      if (note === undefined) {
        throw new Error(`${where} is an array without a length: declare it as \`${p.type} ${p.name} /*[<length>]*/\` (c_api.h rules)`);
      }
      const m = /^\[([^\]]+)\](\s+or NULL)?(?:\s+last\s*(==|<=)\s*(\w+))?$/.exec(note);
      if (!m) throw new Error(`${where}: annotation /*${note}*/ must read [<length>] [or NULL] [last == n | last <= n]`);
      p.length = { expr: m[1].trim(), tokens: lengthTokens(where, m[1].trim(), scalars, constants), nullable: Boolean(m[2]) };
      if (m[3]) {
        const bound = params.find((q) => q.name === m[4]);
        if (!bound || bound.type !== 'int32_t') throw new Error(`${where}: last ${m[3]} ${m[4]}: ${m[4]} must be an int32_t parameter`);
        const index = / \+ 1$/.test(p.length.expr) ? p.length.expr.replace(/ \+ 1$/, '') : `${p.length.expr} - 1`;
        p.length.last = { op: m[3], bound: m[4], index };
      }
    } else if (p.type === 'double') {
      if (p.finite !== undefined) continue;
      if (note !== 'finite' && note !== 'any') throw new Error(`${where} is a double without /*finite*/ or /*any*/ (c_api.h rules)`);
      p.finite = note === 'finite';
    } else if (note !== undefined) {
      throw new Error(`${where}: only arrays and doubles take an annotation, got /*${note}*/`);
    }
    delete p.annotation;
  }
  return params;
}

function parseParams(name, text, paramTypes, paramMacros, constants) {
  const params = text.split(',').flatMap((raw) => {
    const t = raw.trim().replace(/\s+/g, ' ');
    // A macro that stands for another operation's parameter list (see parseOperations).
    if (paramMacros[t]) return paramMacros[t].map((p) => structuredClone(p));
    const m = /^(.*?)\s*(\w+)(?:\s*@\{([^}]*)\})?$/.exec(t);
    if (!m) throw new Error(`${name}: cannot read parameter "${t}"`);
    const param = { type: m[1].replace(/\s*\*/g, '*').trim(), name: m[2] };
    if (m[3] !== undefined) param.annotation = m[3].trim();
    return [param];
  });
  const last = params.pop();
  if (!last || last.type !== 'tp_result**') throw new Error(`${name}: the last parameter must be tp_result** out (c_api.h rules)`);
  for (const p of params) {
    if (!paramTypes.includes(p.type)) throw new Error(`${name}: parameter ${p.name} has unsupported type ${p.type}`);
  }
  return annotate(name, params, constants);
}

/**
 * The header's text without comments, except a parameter's annotation
 * comment (`/*[count + 1]*\/`, `/*finite*\/`), kept as `@{...}` so the
 * declaration parser sees it.
 */
function keepAnnotations(text) {
  return text
    .replace(/\/\*([\s\S]*?)\*\//g, (_, body) => (/^\s*(\[|finite\s*$|any\s*$)/.test(body) ? `@{${body.trim()}}` : ' '))
    .replace(/\/\/.*$/gm, '');
}

/**
 * Returns [{ name, params: [{ type, name, length?, finite? }], fields: [{ type, name, comment }] }]
 * for every tp_status operation. An array parameter's `length` is
 * { expr, tokens, nullable, last?: { op, bound, index } }; a double's `finite`
 * says whether it must be finite. Fails naming an operation without its
 * TP_RESULT_FIELDS_<name> list, with a field of an unknown type, or with an
 * array without a length or a double without a decision.
 */
export function parseOperations(headerText, { paramTypes = PARAM_TYPES, paramMacros = {}, context = '' } = {}) {
  // `context`: another header whose TP_RESULT_FIELDS_ lists this one may name
  // (`#define TP_RESULT_FIELDS_a(X) TP_RESULT_FIELDS_b(X)`: a's results are b's).
  const macros = new Map([...macroBodies(context), ...macroBodies(headerText)]);
  const resolve = (macro) => {
    const body = macros.get(macro);
    const alias = body && /^\s*(TP_RESULT_FIELDS_\w+)\(X\)\s*$/.exec(stripComments(body.join(' ')));
    return alias ? resolve(alias[1]) : body;
  };
  const operations = [];
  const pattern = /TP_API\s+tp_status\s+(tp_\w+)\s*\(([^)]*)\)\s*;/g;
  const constants = { ...integerConstants(context), ...integerConstants(headerText) };
  for (const match of keepAnnotations(headerText).matchAll(pattern)) {
    const name = match[1];
    const body = resolve(`TP_RESULT_FIELDS_${name}`);
    if (!body) throw new Error(`${name}: c_api.h declares no TP_RESULT_FIELDS_${name}(X) list above it`);
    // An operation may declare no arrays (an empty result on success).
    const fields = entries(body, `TP_RESULT_FIELDS_${name}`, true).map(({ args, comment }) => {
      if (args.length !== 2 || !ARRAY_TYPES.includes(args[0]) || !/^[a-z][a-z0-9_]*$/.test(args[1])) {
        throw new Error(`TP_RESULT_FIELDS_${name}: X(${args.join(', ')}) must be X(<${ARRAY_TYPES.join('|')}>, snake_case_name)`);
      }
      return { type: args[0], name: args[1], comment };
    });
    operations.push({ name, params: parseParams(name, match[2], paramTypes, paramMacros, constants), fields });
  }
  return operations;
}

/**
 * Returns [{ id, c, list, name, entries: [{ code, c, cpp, name, attribute?, comment }] }]
 * for every table of TP_CODE_TABLE_LIST, in table-id order.
 */
export function parseTables(headerText) {
  const macros = macroBodies(headerText);
  const index = macros.get('TP_CODE_TABLE_LIST');
  if (!index) throw new Error('c_api.h has no TP_CODE_TABLE_LIST(X)');
  return entries(index, 'TP_CODE_TABLE_LIST').map(({ args }) => {
    const [id, c, list, quoted] = args;
    const body = macros.get(list);
    if (!body) throw new Error(`TP_CODE_TABLE_LIST names ${list}, which c_api.h does not define`);
    const rows = entries(body, list).map(({ args: a, comment }) => {
      if (a.length < 4 || a.length > 5 || !/^"[^"]*"$/.test(a[3]) || !/^-?\d+$/.test(a[0])) {
        throw new Error(`${list}: X(${a.join(', ')}) must be X(code, C, CPP, "name"[, attribute])`);
      }
      const row = { code: Number(a[0]), c: a[1], cpp: a[2], name: a[3].slice(1, -1), comment };
      if (a.length === 5) row.attribute = Number(a[4]);
      return row;
    });
    const seen = new Set();
    for (const r of rows) {
      if (seen.has(r.code)) throw new Error(`${list}: code ${r.code} appears twice`);
      seen.add(r.code);
    }
    // The comment above the list, for the generated documentation.
    const lines = headerText.split('\n');
    const at = lines.findIndex((l) => l.startsWith(`#define ${list}(X)`));
    let doc = '';
    if (at > 0 && lines[at - 1].trim().endsWith('*/')) {
      let k = at - 1;
      while (k > 0 && !lines[k].includes('/*')) k--;
      doc = lines.slice(k, at).join(' ').replace(/\/\*|\*\/|^\s*\*|\s\*\s/g, ' ').replace(/\s+/g, ' ').trim();
    }
    return { id: Number(id), c, list, name: quoted.slice(1, -1), doc, entries: rows };
  });
}

/** Parses the header file (default: core-cpp's c_api.h). */
export function parseHeader(path = HEADER) {
  const text = readFileSync(path, 'utf8');
  return { operations: parseOperations(text), tables: parseTables(text) };
}
