// Writes the TypeScript side of core-cpp's c_api.h:
//   src/abi/c-api-tables.generated.ts  every code table as typed const objects
//                                      (no imports: errors.ts may use it)
//   src/abi/c-api.generated.ts         the tables again (re-exported) and every
//                                      operation as a typed call whose result has
//                                      named fields (r.offsets) instead of positions
// `npm run gen:abi` runs it; `--check` fails when a file is stale (CI and
// `npm run build:ts`).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseHeader, renderLength } from './parse-c-api.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const OUTPUTS = {
  tables: `${root}src/abi/c-api-tables.generated.ts`,
  operations: `${root}src/abi/c-api.generated.ts`,
};

const camel = (snake) => snake.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
const pascal = (snake) => camel(snake).replace(/^./, (c) => c.toUpperCase());
const constant = (snake) => snake.toUpperCase();

const ARRAY_CLASS = { F64: 'Float64Array', I32: 'Int32Array', U8: 'Uint8Array', F32: 'Float32Array', U16: 'Uint16Array' };
const PARAM_TS = {
  'const double*': 'Float64Array | null',
  'const float*': 'Float32Array | null',
  'const int32_t*': 'Int32Array | null',
  'const uint8_t*': 'Uint8Array | null',
  'const uint16_t*': 'Uint16Array | null',
  int32_t: 'number',
  double: 'number',
};

/** The check-args.ts kind of each C parameter type. */
const PARAM_KIND = {
  'const double*': 'F64', 'const float*': 'F32', 'const int32_t*': 'I32', 'const uint8_t*': 'U8', 'const uint16_t*': 'U16',
  int32_t: 'int32', double: 'double',
};
/** The check-args.ts kind a parameter is checked as: a double marked finite in c_api.h as 'finite'. */
const kindOf = (p) => (p.type === 'double' && p.finite ? 'finite' : PARAM_KIND[p.type]);

/** A parameter's stated length (c_api.h `/*[expression]*\/`) as TypeScript over `args`. */
const requiredTs = (p) => renderLength(p.length.tokens, (name) => `args.${camel(name)}`);

const doc = (text, indent = '') => (text ? `${indent}/** ${text.replace(/\*\//g, '*\\/')} */\n` : '');

function tableSource(table) {
  const T = constant(table.name);
  const entries = table.entries;
  let out = '';
  const title = `${table.doc || table.name} (c_api.h ${table.list}).`;
  out += doc(`Public names in list order: ${title}`);
  out += `export const ${T}_NAMES = [${entries.map((e) => `'${e.name}'`).join(', ')}] as const;\n`;
  out += doc(`A public name of ${table.list}.`);
  out += `export type ${pascal(table.name)}Name = (typeof ${T}_NAMES)[number];\n`;
  out += doc(`Code of each name (${table.list}).`);
  out += `export const ${T}_CODE = {\n${entries.map((e) => `${doc(e.comment, '  ')}  '${e.name}': ${e.code},\n`).join('')}} as const;\n`;
  out += doc(`Name of each code (${table.list}).`);
  out += `export const ${T}_NAME: { readonly [code: number]: ${pascal(table.name)}Name | undefined } = {\n${entries
    .map((e) => `  ${e.code}: '${e.name}',\n`)
    .join('')}};\n`;
  if (entries.some((e) => e.attribute !== undefined)) {
    out += doc(`The attribute of each name (${table.list}; see its comment in c_api.h).`);
    out += `export const ${T}_ATTRIBUTE = {\n${entries.map((e) => `  '${e.name}': ${e.attribute},\n`).join('')}} as const;\n`;
  }
  return out + '\n';
}

function operationSource(op) {
  const base = op.name.replace(/^tp_/, '');
  const P = pascal(base);
  let out = '';
  out += doc(`Arguments of \`${op.name}\` (c_api.h), in its parameter order, without \`tp_result** out\`.`);
  out += `export interface ${P}Args {\n${op.params.map((p) => `  ${camel(p.name)}: ${PARAM_TS[p.type]};\n`).join('')}}\n`;
  out += doc(`Result of \`${op.name}\`: TP_RESULT_FIELDS_${op.name}, by name.`);
  out += `export interface ${P}Result {\n${op.fields.map((f) => `${doc(f.comment, '  ')}  ${camel(f.name)}: ${ARRAY_CLASS[f.type]};\n`).join('')}}\n`;
  out += doc(`Decodes the arrays of \`${op.name}\` into named fields (count and types checked).`);
  out += `export function decode${P}(arrays: readonly CoreArray[]): ${P}Result {\n`;
  out += `  checkFields('${op.name}', OPERATIONS.${op.name}.fields, arrays);\n`;
  out += `  return {${op.fields.map((f, i) => ` ${camel(f.name)}: arrays[${i}] as ${ARRAY_CLASS[f.type]}`).join(',')} };\n}\n`;
  // The one place the parameter order lives on the TypeScript side: call<Op> and the
  // addon's async wrappers (which take the same parameters) both go through it.
  out += doc(`The arguments of \`${op.name}\` in its parameter order, as the backends take them.`);
  // Every argument is type-checked here, the one place both backends go through
  // (check-args.ts), every array against the length c_api.h states for it (and
  // cut to it), and a CSR offsets array's last entry where c_api.h states it.
  out += `export function encode${P}Args(args: ${P}Args): CoreArg[] {\n`;
  if (op.params.length > 0) {
    out += `  const a = (args ?? {}) as unknown as Record<string, unknown>;\n`;
    for (const p of op.params) out += `  checkArg('${op.name}', '${p.name}', '${kindOf(p)}', a.${camel(p.name)});\n`;
    for (const p of op.params.filter((q) => q.length)) {
      const r = `${camel(p.name)}Length`;
      out += `  const ${r} = ${requiredTs(p)};\n`;
      out += `  const ${camel(p.name)} = checkLength('${op.name}', '${p.name}', '${PARAM_KIND[p.type]}', args.${camel(p.name)}, '${p.length.expr}', ${r}, ${p.length.nullable});\n`;
    }
    for (const p of op.params.filter((q) => q.length?.last)) {
      const { op: relation, bound, index } = p.length.last;
      out += `  checkLast('${op.name}', '${p.name}', ${camel(p.name)}, '${index}', ${camel(p.name)}Length, '${relation}', '${bound}', args.${camel(bound)});\n`;
    }
  }
  out += `  return [${op.params.map((p) => (p.length ? camel(p.name) : `args.${camel(p.name)}`)).join(', ')}];\n}\n`;
  out += doc(`Calls \`${op.name}\` through \`core\` and names its result fields.`);
  out += `export function call${P}(core: CoreBinding, args: ${P}Args): ${P}Result {\n`;
  out += `  return decode${P}(core.call('${op.name}', encode${P}Args(args)));\n}\n\n`;
  return out;
}

const HEADER_COMMENT = `// Generated by scripts/abi/gen-ts.mjs from core-cpp/include/tensorplan/c_api.h.
// Do not edit: change c_api.h and run \`npm run gen:abi\` (CI fails when this file is stale).
`;

/** The two modules' texts for a parsed header: { tables, operations }. */
export function generate({ operations, tables }) {
  let t = HEADER_COMMENT + '\n';
  for (const table of tables) t += tableSource(table);
  t += doc('The tables above, by name, as the core lists them through `tp_code_table` (table id, names in list order, codes).');
  t += `export const CODE_TABLES = {\n${tables
    .map((x) => `  ${x.name}: { id: ${x.id}, names: ${constant(x.name)}_NAMES, codes: [${x.entries.map((e) => e.code).join(', ')}] },\n`)
    .join('')}} as const;\n`;

  let out = HEADER_COMMENT + `import type { CoreArg, CoreArray, CoreBinding } from './core-binding.js';
import { checkFields } from './check-fields.js';
import { checkArg, checkLast, checkLength } from './check-args.js';

export * from './c-api-tables.generated.js';

`;
  out += doc('Every operation of c_api.h: its parameters and its declared result fields (TP_RESULT_FIELDS_<name>).');
  // `arrays`: per array parameter [name, C name, kind, stated length, that
  // length over the arguments, NULL allowed]; `finite`: [name, C name] of the
  // doubles that must be finite;
  // `encode`: encode<Op>Args (tests drive every operation through them).
  out += `export const OPERATIONS = {\n${operations
    .map((op) => {
      const P = pascal(op.name.replace(/^tp_/, ''));
      const arrays = op.params.filter((p) => p.length)
        .map((p) => `\n      ['${camel(p.name)}', '${p.name}', '${PARAM_KIND[p.type]}', '${p.length.expr}', (${p.length.tokens.some((t) => t.param) ? 'args' : '_args'}: ${P}Args) => ${requiredTs(p)}, ${p.length.nullable}],`).join('');
      return `  ${op.name}: {\n    params: [${op.params.map((p) => `'${camel(p.name)}'`).join(', ')}],\n    fields: [${op.fields
        .map((f) => `['${camel(f.name)}', '${f.type}']`)
        .join(', ')}],\n    arrays: [${arrays}${arrays ? '\n    ' : ''}],\n    finite: [${op.params.filter((p) => p.finite).map((p) => `['${camel(p.name)}', '${p.name}']`).join(', ')}],\n    encode: encode${P}Args,\n  },\n`;
    })
    .join('')}} as const;\n\n`;
  for (const op of operations) out += operationSource(op);
  return { tables: t.trimEnd() + '\n', operations: out.trimEnd() + '\n' };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const texts = generate(parseHeader());
  const check = process.argv.includes('--check');
  let stale = false;
  for (const [key, path] of Object.entries(OUTPUTS)) {
    const rel = path.slice(root.length);
    if (check) {
      let current = '';
      try {
        current = readFileSync(path, 'utf8');
      } catch {
        // missing counts as stale
      }
      if (current !== texts[key]) {
        console.error(`gen-ts: ${rel} is stale (c_api.h changed): run \`npm run gen:abi\` and commit it`);
        stale = true;
      }
    } else {
      writeFileSync(path, texts[key]);
      console.log(`gen-ts: wrote ${rel}`);
    }
  }
  if (stale) process.exit(1);
  if (check) console.log('gen-ts: src/abi/*.generated.ts are up to date');
}
