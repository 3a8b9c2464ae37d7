// Generates the addon's N-API wrappers from core-cpp's c_api.h, so the native
// addon wraps exactly the functions the header declares (ARCHITECTURE.md
// decision 1) and a new ABI function needs no hand-written binding.
//
// Every operation has the shape `tp_status name(<array or scalar>..., tp_result** out)`;
// c_api.h's rules restrict parameters to the kinds in PARAM_KINDS.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseOperations, renderLength } from './abi/parse-c-api.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const HEADER = `${root}core-cpp/include/tensorplan/c_api.h`;
// The CUDA side's operations in the same shape (the CUDA executor through the execution ABI).
const CUDA_HEADER = `${root}cuda/addon/cuda_execute_abi.h`;

// C parameter type -> how the wrapper reads it from a JS value.
const PARAM_KINDS = {
  'const double*': 'tp_napi::array_arg<double>',
  'const float*': 'tp_napi::array_arg<float>',
  'const int32_t*': 'tp_napi::array_arg<int32_t>',
  'const uint8_t*': 'tp_napi::array_arg<uint8_t>',
  'const uint16_t*': 'tp_napi::array_arg<uint16_t>',
  'int32_t': 'tp_napi::int32_arg',
  'double': 'tp_napi::double_arg',
  'tpc::DeviceArena*': 'tp_napi::arena_arg',
};

// The header's operations, parsed once for every generator (scripts/abi/).
export { parseOperations };

// Operations the addon exports as promises under `name`: the call runs on a
// worker thread (tp_napi::AsyncCall) on copies of its array arguments, so a
// long execution never blocks the event loop. `sync: false`: no synchronous
// wrapper (a CUDA execution must not block the JS thread).
const ASYNC_OPERATIONS = {
  tp_execute_reference: { name: 'reference_execute', sync: true },
  tp_cuda_execute: { name: 'cuda_execute', sync: false },
};

// C parameter type -> the member an async call keeps the argument in, and how it is read.
const ASYNC_KINDS = {
  'const double*': ['tp_napi::OwnedArray<double>', 'tp_napi::owned_array_arg<double>', '.data()'],
  'const float*': ['tp_napi::OwnedArray<float>', 'tp_napi::owned_array_arg<float>', '.data()'],
  'const int32_t*': ['tp_napi::OwnedArray<int32_t>', 'tp_napi::owned_array_arg<int32_t>', '.data()'],
  'const uint8_t*': ['tp_napi::OwnedArray<uint8_t>', 'tp_napi::owned_array_arg<uint8_t>', '.data()'],
  'const uint16_t*': ['tp_napi::OwnedArray<uint16_t>', 'tp_napi::owned_array_arg<uint16_t>', '.data()'],
  'int32_t': ['int32_t', 'tp_napi::int32_arg', ''],
  'double': ['double', 'tp_napi::double_arg', ''],
  'tpc::DeviceArena*': ['tp_napi::ArenaArg', 'tp_napi::arena_arg', '.get()'],
};

// C array parameter type -> the JS typed array class (as messages name it).
const ARRAY_CLASS = {
  'const double*': ['Float64Array', 'double'],
  'const float*': ['Float32Array', 'float'],
  'const int32_t*': ['Int32Array', 'int32_t'],
  'const uint8_t*': ['Uint8Array', 'uint8_t'],
  'const uint16_t*': ['Uint16Array', 'uint16_t'],
};

const quoted = (text) => JSON.stringify(text);

// What c_api.h states for the arguments (finite doubles, array lengths, CSR
// last entries), checked in the order and with the messages of the generated
// encode<Op>Args (scripts/abi/gen-ts.mjs): `value(i)` is argument i as read.
function argumentChecks(op, value) {
  const lines = [];
  const index = (name) => op.params.findIndex((p) => p.name === name);
  const required = (p) => renderLength(p.length.tokens, (name) => `static_cast<double>(${value(index(name))})`);
  op.params.forEach((p, i) => {
    if (p.finite) lines.push(`  tp_napi::check_finite(args, ${quoted(op.name)}, ${quoted(p.name)}, ${value(i)});`);
  });
  op.params.forEach((p, i) => {
    if (!p.length) return;
    lines.push(`  tp_napi::check_length(args, ${quoted(op.name)}, ${i}, ${quoted(p.name)}, ${quoted(ARRAY_CLASS[p.type][0])}, ` +
      `${quoted(p.length.expr)}, ${required(p)}, ${p.length.nullable});`);
  });
  op.params.forEach((p, i) => {
    if (!p.length?.last) return;
    const { op: relation, bound, index: at } = p.length.last;
    lines.push(`  tp_napi::check_last<${ARRAY_CLASS[p.type][1]}>(args, ${quoted(op.name)}, ${i}, ${quoted(p.name)}, ${quoted(at)}, ` +
      `${required(p)}, ${relation === '=='}, ${quoted(bound)}, ${value(index(bound))});`);
  });
  return lines;
}

function syncWrapper(op) {
  const lines = [];
  lines.push(`static Napi::Value wrap_${op.name}(const Napi::CallbackInfo& info) {`);
  lines.push(`  ArgReader args(info, "${op.name}", ${op.params.length});`);
  op.params.forEach((p, i) => lines.push(`  auto a${i} = ${PARAM_KINDS[p.type]}(args, ${i}, "${p.name}");`));
  lines.push('  if (args.failed()) return tp_napi::refused(info.Env(), args);');
  const checks = argumentChecks(op, (i) => `a${i}`);
  if (checks.length > 0) {
    lines.push(...checks);
    lines.push('  if (args.failed()) return tp_napi::refused(info.Env(), args);');
  }
  lines.push('  tp_result* out = nullptr;');
  const call = op.params.map((_, i) => `a${i}`).concat('&out').join(', ');
  lines.push(`  tp_status status = ${op.name}(${call});`);
  lines.push('  return finish(info.Env(), status, out);');
  lines.push('}');
  lines.push('');
  return lines;
}

function asyncWrapper(op, name) {
  const lines = [];
  lines.push(`struct Async_${op.name} final : AsyncCall {`);
  lines.push('  using AsyncCall::AsyncCall;');
  op.params.forEach((p, i) => lines.push(`  ${ASYNC_KINDS[p.type][0]} a${i}{};`));
  const call = op.params.map((p, i) => `a${i}${ASYNC_KINDS[p.type][2]}`).concat('out').join(', ');
  lines.push(`  tp_status call(tp_result** out) override { return ${op.name}(${call}); }`);
  lines.push('};');
  lines.push('');
  lines.push(`// ${name}(...arguments of ${op.name}) -> Promise<result arrays>`);
  lines.push(`static Napi::Value async_${op.name}(const Napi::CallbackInfo& info) {`);
  lines.push(`  ArgReader args(info, "${name}", ${op.params.length}, "${op.name}");`);
  lines.push(`  auto* call = new Async_${op.name}(info.Env());`);
  op.params.forEach((p, i) => lines.push(`  call->a${i} = ${ASYNC_KINDS[p.type][1]}(args, ${i}, "${p.name}");`));
  lines.push(...argumentChecks(op, (i) => `call->a${i}`));
  lines.push('  return call->start(args);');
  lines.push('}');
  lines.push('');
  return lines;
}

function wrapperSource(operations) {
  const lines = [
    '// Generated by scripts/gen-native-abi.mjs from core-cpp/include/tensorplan/c_api.h and',
    '// cuda/addon/cuda_execute_abi.h. Do not edit.',
    '#include "addon/abi_marshal.h"',
    '#include "addon/cuda_execute_abi.h"',
    '#include "addon/device_arena_handle.h"',
    '',
    'namespace tp_napi {',
    '',
  ];
  const exported = [];
  for (const op of operations) {
    const async = ASYNC_OPERATIONS[op.name];
    if (!async || async.sync) {
      if (op.params.some((p) => p.type === 'tpc::DeviceArena*')) throw new Error(`${op.name}: a device arena needs an async wrapper`);
      lines.push(...syncWrapper(op));
      exported.push([op.name, `wrap_${op.name}`]);
    }
    if (async) {
      lines.push(...asyncWrapper(op, async.name));
      exported.push([async.name, `async_${op.name}`]);
    }
  }
  lines.push('void register_abi_operations(Napi::Env env, Napi::Object exports) {');
  for (const [name, fn] of exported) {
    lines.push(`  exports.Set("${name}", Napi::Function::New(env, ${fn}, "${name}"));`);
  }
  lines.push('}');
  lines.push('');
  lines.push('}  // namespace tp_napi');
  return lines.join('\n') + '\n';
}

// The CUDA executor's header (cuda/addon/cuda_execute_abi.h) declares its
// operations with TP_EXECUTE_ABI_PARAMS, the macro tp_execute_reference is
// defined with (core-cpp/src/abi/execute_abi.cpp), and names
// tp_execute_reference's result list: so it takes exactly those arguments and
// returns exactly those arrays by construction, and the generator reads them
// from c_api.h instead of a second copy.
export function cudaOperations(cApiText, cudaText, reference) {
  return parseOperations(cudaText, {
    paramTypes: Object.keys(PARAM_KINDS),
    paramMacros: { TP_EXECUTE_ABI_PARAMS: reference.params },
    context: cApiText,
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outFile = process.argv[2] ?? `${root}cuda/build/gen/abi_wrappers.gen.cpp`;
  const cApiText = readFileSync(HEADER, 'utf8');
  const api = parseOperations(cApiText);
  const reference = api.find((op) => op.name === 'tp_execute_reference');
  const operations = [...api, ...cudaOperations(cApiText, readFileSync(CUDA_HEADER, 'utf8'), reference)];
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, wrapperSource(operations));
  console.log(`gen-native-abi: ${operations.length} operations -> ${outFile}`);
}
