import type { CoreBinding } from './backend/core-binding.js';
import type { BackendName, LoadedBackend } from './backend/registry.js';
import { type BulkLayout, type BulkTensor, bulkLayout } from './bulk-layout.js';

/**
 * A tensorplan session bound to one backend. Get one from `init()`; every
 * method runs synchronously in the chosen core and returns the same bytes on
 * every backend.
 */
export class Tensorplan {
  /** The backend this session runs on. */
  readonly backend: BackendName;
  /** Where the core was loaded from. */
  readonly source: string;
  private readonly core: CoreBinding;

  /** @internal Use `init()`. */
  constructor(loaded: LoadedBackend) {
    this.backend = loaded.name;
    this.source = loaded.source;
    this.core = loaded.core;
  }

  /** Version of the loaded core. */
  get coreVersion(): string {
    return this.core.coreVersion;
  }

  /**
   * Lays tensors out in one allocation exactly as TransformerEngine's
   * `bulk_allocate` does.
   *
   * @example
   * ```ts
   * const tp = await init();
   * tp.bulkLayout([{ shape: [3], dtype: 'uint8' }, { shape: [2], dtype: 'fp32' }]);
   * // entries at offsets 0 and 4, usedBytes 12, allocationBytes 16
   * ```
   */
  bulkLayout(tensors: readonly BulkTensor[]): BulkLayout {
    return bulkLayout(this.core, tensors);
  }
}
