import { TensorplanError } from '../errors.js';
import { type CoreArg, type CoreArray, type CoreBinding, checkAbiVersion } from '../abi/core-binding.js';

/** The native addon's exports (see cuda/addon/addon.cpp and the generated wrappers). */
export interface NativeAddon {
  tp_abi_version(): number;
  tp_core_version(): string;
  tp_last_error(): string;
  cuda_probe(): CudaProbe;
  cuda_smoke_saxpy(a: number, x: Float32Array, y: Float32Array): Float32Array | string;
  [operation: `tp_${string}`]: unknown;
}

/** What the addon's CUDA side reports about this machine. */
export interface CudaProbe {
  compiled: boolean;
  runtimeVersion: number;
  driverVersion: number;
  errorCode: number;
  reason: string;
  devices: CudaDevice[];
}

/**
 * One CUDA device as the runtime describes it.
 *
 * @group Session
 */
export interface CudaDevice {
  index: number;
  name: string;
  totalMemoryBytes: number;
  computeCapability: string;
  multiprocessors: number;
}

/** C ABI calls through the native addon; inputs are read in place, results copied once. */
export function nativeCoreBinding(addon: NativeAddon): CoreBinding {
  const abiVersion = addon.tp_abi_version();
  checkAbiVersion('native', abiVersion);
  return {
    abiVersion,
    coreVersion: addon.tp_core_version(),
    call(operation: string, args: readonly CoreArg[]): CoreArray[] {
      const target = addon[operation as `tp_${string}`];
      if (typeof target !== 'function') {
        throw new TensorplanError('UNSUPPORTED', `the native addon does not export ${operation}: rebuild it`);
      }
      const outcome = (target as (...a: readonly CoreArg[]) => CoreArray[] | number)(...args);
      if (typeof outcome === 'number') {
        throw TensorplanError.fromStatus(outcome, addon.tp_last_error(), operation);
      }
      return outcome;
    },
  };
}
