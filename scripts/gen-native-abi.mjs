// Generates the addon's N-API wrappers from core-cpp's c_api.h, so the native
// addon wraps exactly the functions the header declares (ARCHITECTURE.md
// decision 1) and a new ABI function needs no hand-written binding.
//
// Every operation has the shape `tp_status name(<array or scalar>..., tp_result** out)`;
// c_api.h's rules restrict parameters to the kinds in PARAM_KINDS.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const HEADER = `${root}core-cpp/include/tensorplan/c_api.h`;
// The CUDA side's operations in the same shape (the CUDA executor through the execution ABI).
const CUDA_HEADER = `${root}cuda/cuda_execute_abi.h`;

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

/** Returns [{ name, params: [{ type, name }] }] for every tp_status operation. */
export function parseOperations(headerText) {
  const withoutComments = headerText.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  const operations = [];
  const pattern = /TP_API\s+tp_status\s+(tp_\w+)\s*\(([^)]*)\)\s*;/g;
  for (const match of withoutComments.matchAll(pattern)) {
    const params = match[2].split(',').map((raw) => {
      const text = raw.trim().replace(/\s+/g, ' ');
      const m = /^(.*?)\s*(\w+)$/.exec(text);
      const type = m[1].replace(/\s*\*/g, '*').trim();
      return { type, name: m[2] };
    });
    const last = params.pop();
    if (!last || last.type !== 'tp_result**') {
      throw new Error(`${match[1]}: the last parameter must be tp_result** out (c_api.h rules)`);
    }
    for (const p of params) {
      if (!PARAM_KINDS[p.type]) throw new Error(`${match[1]}: parameter ${p.name} has unsupported type ${p.type}`);
    }
    operations.push({ name: match[1], params });
  }
  return operations;
}

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

function syncWrapper(op) {
  const lines = [];
  lines.push(`static Napi::Value wrap_${op.name}(const Napi::CallbackInfo& info) {`);
  lines.push(`  ArgReader args(info, "${op.name}", ${op.params.length});`);
  op.params.forEach((p, i) => lines.push(`  auto a${i} = ${PARAM_KINDS[p.type]}(args, ${i}, "${p.name}");`));
  lines.push('  if (args.failed()) return info.Env().Undefined();');
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
  lines.push(`  ArgReader args(info, "${name}", ${op.params.length});`);
  lines.push(`  auto* call = new Async_${op.name}(info.Env());`);
  op.params.forEach((p, i) => lines.push(`  call->a${i} = ${ASYNC_KINDS[p.type][1]}(args, ${i}, "${p.name}");`));
  lines.push('  return call->start(args);');
  lines.push('}');
  lines.push('');
  return lines;
}

function wrapperSource(operations) {
  const lines = [
    '// Generated by scripts/gen-native-abi.mjs from core-cpp/include/tensorplan/c_api.h and',
    '// cuda/cuda_execute_abi.h. Do not edit.',
    '#include "abi_marshal.h"',
    '#include "cuda_execute_abi.h"',
    '#include "device_arena_handle.h"',
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

// The CUDA executor takes exactly tp_execute_reference's arguments (then its arena):
// one decoder, one encoding for both.
function checkCudaExecute(operations) {
  const reference = operations.find((op) => op.name === 'tp_execute_reference');
  for (const op of operations.filter((o) => o.name.startsWith('tp_cuda_'))) {
    const same = reference.params.every((p, i) => op.params[i] && op.params[i].type === p.type && op.params[i].name === p.name);
    if (!same) throw new Error(`${op.name}: its parameters must start with those of tp_execute_reference`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outFile = process.argv[2] ?? `${root}cuda/build/gen/abi_wrappers.gen.cpp`;
  const operations = [...parseOperations(readFileSync(HEADER, 'utf8')), ...parseOperations(readFileSync(CUDA_HEADER, 'utf8'))];
  checkCudaExecute(operations);
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, wrapperSource(operations));
  console.log(`gen-native-abi: ${operations.length} operations -> ${outFile}`);
}
