import type { CoreBinding } from './backend/core-binding.js';
import type { BackendName, LoadedBackend } from './backend/registry.js';
import { type BulkLayout, type BulkTensor, bulkLayout } from './bulk-layout.js';
import type { GraphDocument } from './graph/graph-document.js';
import {
  type FusionOptions, type FusionVerdict, type LifecycleIssue, type LivenessResult, type ScheduleOptions,
  type ScheduleResult, type TraceEvent, checkFusion, liveness, schedule, verifyTrace,
} from './schedule.js';

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

  /**
   * Chooses the op order with the smallest peak (PLANNING.md §3). The
   * default method, `'ours'`, is never worse than any baseline and proves the
   * optimum on small graphs; every baseline's peak comes back alongside.
   *
   * @example
   * ```ts
   * const s = tp.schedule(graph, { timeLimitSeconds: 0.5 });
   * console.log(s.order, s.peakBytes, s.baselines['inductor-lpmf']?.peakBytes);
   * ```
   */
  schedule(graph: GraphDocument, options?: ScheduleOptions): ScheduleResult {
    return schedule(this.core, graph, options);
  }

  /** Live bytes per step, the peak, and the storages that make it, under `order` (default: the graph's op order). */
  liveness(graph: GraphDocument, order?: readonly string[]): LivenessResult {
    return liveness(this.core, graph, order);
  }

  /** Accepts or rejects running `ops` as one fused op (peak may not rise; reads limited by `maxReadBytes`). */
  checkFusion(graph: GraphDocument, ops: readonly string[], options?: FusionOptions): FusionVerdict {
    return checkFusion(this.core, graph, ops, options);
  }

  /** Compares an executor's allocation/free trace with the plan under `order`; `[]` means it matched. */
  verifyTrace(graph: GraphDocument, order: readonly string[] | undefined, trace: readonly TraceEvent[]): LifecycleIssue[] {
    return verifyTrace(this.core, graph, order, trace);
  }
}
