import { ARRAY_TYPE_ATTRIBUTE, ARRAY_TYPE_NAME, type ArrayTypeName } from '../abi/c-api-tables.generated.js';
import { TensorplanError } from '../errors.js';
import { type CoreArg, type CoreArray, type CoreBinding, checkAbiVersion } from '../abi/core-binding.js';

/** The parts of the Emscripten module object the binding uses. */
export interface EmscriptenCoreModule {
  HEAPU8: Uint8Array;
  _malloc(bytes: number): number;
  _free(pointer: number): void;
  [exported: `_tp_${string}`]: (...args: number[]) => number;
}

/** The typed array of each tp_array_type (c_api.h TP_ARRAY_TYPE_LIST). */
const ARRAY_CLASSES: Record<ArrayTypeName, (buffer: ArrayBuffer, length: number) => CoreArray> = {
  F64: (b, n) => new Float64Array(b, 0, n),
  I32: (b, n) => new Int32Array(b, 0, n),
  U8: (b, n) => new Uint8Array(b, 0, n),
  F32: (b, n) => new Float32Array(b, 0, n),
  U16: (b, n) => new Uint16Array(b, 0, n),
};

/**
 * Marshals C ABI calls into an Emscripten-built core: each input array is
 * copied once into the WASM heap, each result array copied once out of it.
 *
 * Pointers are 32-bit unsigned in wasm32, but an exported function returns an
 * i32 that JS reads as signed: once the heap grows past 2 GiB, a pointer
 * would come back negative (and `subarray`, `set` and typed-array offsets
 * would read or write the wrong bytes, or throw). Every pointer and length
 * the core returns is read as unsigned (`>>> 0`) here.
 */
export function wasmCoreBinding(module: EmscriptenCoreModule): CoreBinding {
  // The heap can grow (and be replaced) during any call that allocates, so
  // views are always taken from module.HEAPU8 after the call.
  const heap = (): Uint8Array => module.HEAPU8;

  const readCString = (signed: number): string => {
    const pointer = signed >>> 0;
    const bytes = heap();
    let end = pointer;
    while (bytes[end] !== 0) end++;
    return new TextDecoder().decode(bytes.slice(pointer, end));
  };

  const fn = (name: string): ((...args: number[]) => number) => {
    const exported = module[`_${name}` as `_tp_${string}`];
    if (typeof exported !== 'function') {
      throw new TensorplanError('UNSUPPORTED', `the wasm core does not export ${name}: rebuild wasm/dist`);
    }
    return exported;
  };

  const abiVersion = fn('tp_abi_version')();
  checkAbiVersion('wasm', abiVersion);

  return {
    abiVersion,
    coreVersion: readCString(fn('tp_core_version')()),
    call(operation: string, args: readonly CoreArg[]): CoreArray[] {
      const target = fn(operation);
      const allocations: number[] = [];
      const alloc = (bytes: number): number => {
        const pointer = module._malloc(Math.max(bytes, 1)) >>> 0;
        if (pointer === 0) throw new TensorplanError('OUT_OF_MEMORY', `wasm heap exhausted allocating ${bytes} bytes`);
        allocations.push(pointer);
        return pointer;
      };
      try {
        const raw = args.map((arg) => {
          if (arg === null) return 0;
          if (typeof arg === 'number') return arg;
          const pointer = alloc(arg.byteLength);
          heap().set(new Uint8Array(arg.buffer, arg.byteOffset, arg.byteLength), pointer);
          return pointer;
        });
        const outSlot = alloc(4);
        const status = target(...raw, outSlot);
        if (status !== 0) {
          throw TensorplanError.fromStatus(status, readCString(fn('tp_last_error')()), operation);
        }
        const result = new Uint32Array(heap().buffer, outSlot, 1)[0];  // unsigned already
        try {
          const count = fn('tp_result_count')(result);
          const arrays: CoreArray[] = [];
          for (let i = 0; i < count; i++) {
            const type = fn('tp_result_type')(result, i);
            const length = fn('tp_result_length')(result, i) >>> 0;
            const data = fn('tp_result_data')(result, i) >>> 0;
            const typeName = ARRAY_TYPE_NAME[type];
            const bytes = length * (typeName === undefined ? 1 : ARRAY_TYPE_ATTRIBUTE[typeName]);
            const copy = new ArrayBuffer(bytes);
            if (bytes > 0) new Uint8Array(copy).set(heap().subarray(data, data + bytes));
            const make = typeName === undefined ? undefined : ARRAY_CLASSES[typeName];
            if (!make) throw new TensorplanError('INTERNAL', `${operation}: result array ${i} has unknown type ${type}`);
            arrays.push(make(copy, length));
          }
          return arrays;
        } finally {
          fn('tp_result_free')(result);
        }
      } finally {
        for (const pointer of allocations) module._free(pointer);
      }
    },
  };
}
