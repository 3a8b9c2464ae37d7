import { TensorplanError, guarded, optionsObject, shown } from '../../errors.js';
import type { PlanOptions } from '../../plan/make-plan.js';
import { type LayerPlanner, applyAlternative } from './layer-compare.js';
import type { LayerPeakEntry, LayerPlanSummary } from './layer-summary.js';
import { type LayerSpec, parseLayerSpec } from './layer-spec.js';

/**
 * What {@link Tensorplan.fit} searches: the largest integer value of one layer-spec field for
 * which the plan fits a device budget.
 *
 * @group Planning
 */
export interface FitOptions {
  /**
   * The field to vary: a dotted path of the spec with an integer value (`model.microBatch`,
   * `model.sequence`, `parallel.tp`, `layers.0.repeat`), or the short names `microBatch`,
   * `sequence`, `tp`.
   */
  vary: string;
  /** Device memory in bytes for arena + persistent tensors + `reserveBytes`. */
  budgetBytes: number;
  /**
   * Bytes the device needs that the plan does not model (CUDA context, NCCL buffers, embeddings
   * and LM head when not in the spec, allocator fragmentation): taken off the budget. Default 0.
   */
  reserveBytes?: number;
  /** The smallest value tried (default 1). */
  min?: number;
  /** The largest value tried (default: no bound but the spec's own limits). */
  max?: number;
  /** How each value is planned (`budgetBytes` and `onProgress` are ignored: the search owns them). */
  plan?: PlanOptions;
  /** Called after each value is tried (a CLI draws its progress bar from it). */
  onProbe?: (probe: FitProbe) => void;
}

/**
 * One value the search tried.
 *
 * @group Planning
 */
export interface FitProbe {
  value: number;
  /** `fits`: arena + persistent + reserve within the budget; `over`: not; `invalid`: the spec refuses the value. */
  verdict: 'fits' | 'over' | 'invalid';
  /** Peak and arena + persistent bytes of the plan (null for an invalid value). */
  peakBytes: number | null;
  totalBytes: number | null;
  /** Why the spec refuses the value (`invalid` only). */
  reason?: string;
}

/**
 * The first value above the answer that does not fit, and what is alive at its peak.
 *
 * @group Planning
 */
export interface FitNext {
  value: number;
  peakBytes: number;
  /** arena + persistent of its plan. */
  totalBytes: number;
  /** totalBytes + reserveBytes - budgetBytes. */
  overByBytes: number;
  /** The largest entries live at its peak, by layer and role (at most 6). */
  aliveAtPeak: LayerPeakEntry[];
  /** Live at its peak by role summed over layers, largest first (at most 6). */
  aliveByRole: { role: string; bytes: number }[];
}

/**
 * The answer of {@link Tensorplan.fit}.
 *
 * @group Planning
 */
export interface FitResult {
  /** The field as given. */
  vary: string;
  /** The dotted path it names in the spec. */
  path: string;
  /** The largest value that fits; null when even `min` does not. */
  value: number | null;
  /** Peak, arena + persistent, and persistent bytes of the plan at `value` (null with it). */
  peakBytes: number | null;
  totalBytes: number | null;
  persistentBytes: number | null;
  budgetBytes: number;
  reserveBytes: number;
  /** The plan's summary at `value` (null with it). */
  summary: LayerPlanSummary | null;
  /** The first valid value above `value` that does not fit; null when `max` (or the spec's last valid value) fits. */
  next: FitNext | null;
  /**
   * False when the search saw a value fit above one that did not (a field such as `parallel.tp`
   * whose memory falls as it grows): the answer is then the largest fitting value it found, not a proof.
   */
  monotone: boolean;
  /** Every value planned or refused, in the order tried. */
  probes: FitProbe[];
  /** What the plan does not model; `reserveBytes` stands for it. */
  unmodelled: string[];
}

/** What device memory holds that a layer-spec plan does not model. */
export const UNMODELLED = [
  'CUDA context and kernel images (about 0.5-1 GiB per process)',
  'NCCL communicator buffers (tensor/data-parallel collectives)',
  'embeddings and the LM head, when the spec does not list them',
  'caching-allocator fragmentation and rounding (PyTorch block sizes)',
  'cuBLAS/cuDNN workspaces beyond those the spec gives',
];

const SHORT_NAMES: Record<string, string> = { microBatch: 'model.microBatch', sequence: 'model.sequence', tp: 'parallel.tp' };

/** After this many plans the search stops (a field that never stops fitting, with no --max). */
const MAX_PROBES = 64;
/** Values scanned for a valid one when the spec refuses one (parsing only, no planning). */
const MAX_SCAN = 4096;

function bad(message: string): never {
  throw new TensorplanError('INVALID_ARGUMENT', message);
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/**
 * The field's dotted path, and the spec with the objects on the way there (`parallel` when the
 * spec has none) made, so applyAlternative can set it. Refuses a path through a non-object and a
 * field whose value is not an integer, naming them.
 */
function resolve(spec: LayerSpec, vary: string): { path: string; base: LayerSpec } {
  const path = SHORT_NAMES[vary] ?? vary;
  const parts = path.split('.');
  if (parts.some((p) => p === '')) bad(`options.vary = ${shown(vary)}: expected a dotted path such as model.microBatch`);
  const base = structuredClone(spec) as LayerSpec;
  let target = base as unknown as Record<string, unknown>;
  for (const [i, part] of parts.slice(0, -1).entries()) {
    const child = Object.hasOwn(target, part) ? target[part] : undefined;
    if (child === undefined && !Array.isArray(target)) {
      target[part] = {};
    } else if (child === null || typeof child !== 'object') {
      bad(`options.vary = ${shown(vary)}: ${parts.slice(0, i + 1).join('.')} is ${shown(child)} in the spec, not an object`);
    }
    target = target[part] as Record<string, unknown>;
  }
  const last = parts[parts.length - 1];
  const current = Object.hasOwn(target, last) ? target[last] : undefined;
  if (current !== undefined && !isCount(current)) {
    bad(`options.vary = ${shown(vary)}: ${path} is ${shown(current)} in the spec, not an integer`);
  }
  return { path, base };
}

/**
 * The largest value of `options.vary` for which the spec's plan fits `options.budgetBytes`
 * (arena + persistent + `options.reserveBytes`). Exponential probes from `min`, then bisection
 * between the last value that fits and the first that does not; a value the spec refuses (tp
 * not dividing the heads) is skipped for the next valid one. Memory may not grow with the field
 * (tensor parallelism shrinks it): when `min` does not fit, three more probes look for a larger
 * value that does, and any fit seen above a value that did not sets `monotone: false`.
 */
export function fitLayerSpec(tp: LayerPlanner, spec: LayerSpec, options: FitOptions): FitResult {
  return guarded('fit', [spec, options], () => {
    if (options === undefined) bad('options = undefined: must be an object with vary and budgetBytes');
    optionsObject(options, 'options');
    parseLayerSpec(spec, 'spec');
    if (typeof options.vary !== 'string') bad(`options.vary = ${shown(options.vary)}: must be a dotted path of the spec, e.g. model.microBatch`);
    if (typeof options.budgetBytes !== 'number' || !Number.isFinite(options.budgetBytes) || options.budgetBytes <= 0) {
      bad(`options.budgetBytes = ${shown(options.budgetBytes)}: must be a positive number of bytes`);
    }
    const reserveBytes = options.reserveBytes ?? 0;
    if (typeof reserveBytes !== 'number' || !Number.isFinite(reserveBytes) || reserveBytes < 0) {
      bad(`options.reserveBytes = ${shown(reserveBytes)}: must be a number of bytes >= 0`);
    }
    const min = options.min ?? 1;
    if (!isCount(min) || min < 0) bad(`options.min = ${shown(min)}: must be an integer >= 0`);
    if (options.max !== undefined && (!isCount(options.max) || options.max < min)) bad(`options.max = ${shown(options.max)}: must be an integer >= options.min = ${min}`);
    if (options.onProbe !== undefined && typeof options.onProbe !== 'function') bad(`options.onProbe = ${shown(options.onProbe)}: must be a function`);
    const planOptions = optionsObject(options.plan, 'options.plan');
    return search(tp, spec, options, { min, max: options.max ?? Number.MAX_SAFE_INTEGER, reserveBytes, planOptions });
  });
}

interface Probed extends FitProbe {
  summary?: LayerPlanSummary;
}

function search(tp: LayerPlanner, spec: LayerSpec, options: FitOptions,
  s: { min: number; max: number; reserveBytes: number; planOptions: PlanOptions }): FitResult {
  const { path, base } = resolve(spec, options.vary);
  const budgetBytes = options.budgetBytes;
  const probes: Probed[] = [];
  const known = new Map<number, Probed>();
  const planOptions: PlanOptions = { ...s.planOptions, budgetBytes: undefined, onProgress: undefined };

  /** The spec at `value`, or why it refuses it (cheap: no planning). */
  const specAt = (value: number): LayerSpec | string => {
    try {
      return parseLayerSpec(applyAlternative(base, `${path}=${value}`), 'spec');
    } catch (error) {
      if (error instanceof TensorplanError) return error.message;
      throw error;
    }
  };
  const record = (p: Probed): Probed => {
    probes.push(p);
    known.set(p.value, p);
    options.onProbe?.({ value: p.value, verdict: p.verdict, peakBytes: p.peakBytes, totalBytes: p.totalBytes, ...(p.reason ? { reason: p.reason } : {}) });
    return p;
  };
  const probe = (value: number): Probed => {
    const seen = known.get(value);
    if (seen) return seen;
    const at = specAt(value);
    if (typeof at === 'string') return record({ value, verdict: 'invalid', peakBytes: null, totalBytes: null, reason: at });
    let summary: LayerPlanSummary;
    try {
      const lg = tp.layerGraph(at);
      summary = tp.layerPlanSummary(lg, tp.plan(lg.graph, planOptions));
    } catch (error) {
      // A value the spec schema accepts but the builder's limits refuse (layer-limits.ts) is invalid too.
      if (error instanceof TensorplanError) return record({ value, verdict: 'invalid', peakBytes: null, totalBytes: null, reason: error.message });
      throw error;
    }
    const fits = summary.totalBytes + s.reserveBytes <= budgetBytes;
    return record({ value, verdict: fits ? 'fits' : 'over', peakBytes: summary.peakBytes, totalBytes: summary.totalBytes, summary });
  };
  /**
   * The first value in [from, below) the spec accepts, or undefined (parsing only). The first
   * refusal of each scan is recorded as an `invalid` probe, so the result says why values were skipped.
   */
  const validFrom = (from: number, below: number): number | undefined => {
    let reported = false;
    for (let v = from, n = 0; v < below && v <= s.max && n < MAX_SCAN; v++, n++) {
      if (known.has(v)) {
        if (known.get(v)!.verdict !== 'invalid') return v;
        reported = true;
        continue;
      }
      const at = specAt(v);
      if (typeof at !== 'string') return v;
      if (!reported) record({ value: v, verdict: 'invalid', peakBytes: null, totalBytes: null, reason: at });
      reported = true;
    }
    return undefined;
  };
  const planned = () => probes.filter((p) => p.verdict !== 'invalid').length;

  // Phase 1: exponential probes from min (offsets 0, 1, 3, 7, ...) until one does not fit.
  let lo: number | undefined; // largest value known to fit
  let hi: number | undefined; // a value above lo known not to fit, or the end of the valid values found
  let misses = 0;
  let v = s.min;
  for (;;) {
    const valid = validFrom(v, s.max + 1);
    if (valid === undefined) {
      // Nothing valid from v on (up to max, or MAX_SCAN values): the search ends there.
      hi = lo === undefined ? undefined : v;
      break;
    }
    const p = probe(valid);
    if (p.verdict === 'fits') {
      lo = valid;
      if (valid >= s.max || planned() >= MAX_PROBES) break;
    } else if (lo !== undefined) {
      hi = valid;
      break;
    } else if (++misses > 3) {
      break;
    }
    const offset = valid - s.min;
    v = Math.min(s.max, s.min + 2 * offset + 1);
    if (v <= valid) break;
  }

  // Phase 2: bisection in (lo, hi); a refused midpoint moves to the next valid value.
  if (lo !== undefined && hi !== undefined) {
    let [below, above] = [lo, hi];
    while (above - below > 1 && planned() < MAX_PROBES) {
      const mid: number = below + Math.floor((above - below) / 2);
      const valid = validFrom(mid, above);
      if (valid === undefined) {
        above = mid;
        continue;
      }
      const p = probe(valid);
      if (p.verdict === 'fits') below = valid;
      else if (p.verdict === 'over') above = valid;
    }
    lo = below;
  }

  // The check: the first valid value above the answer must not fit (planned if the search has not).
  let next: Probed | undefined;
  if (lo !== undefined && lo < s.max) {
    const after = validFrom(lo + 1, s.max + 1);
    if (after !== undefined) next = probe(after);
    if (next?.verdict === 'fits') {
      // Not monotone right above the answer: take the larger value (it fits) and say so below.
      lo = next.value;
      next = undefined;
    }
  } else if (lo === undefined) {
    // min does not fit (or is refused): next is the first planned value that did not fit.
    next = probes.find((p) => p.verdict === 'over');
  }

  // Monotone as far as seen: no value fits above one that did not.
  const over = probes.filter((p) => p.verdict === 'over').map((p) => p.value);
  const fits = probes.filter((p) => p.verdict === 'fits').map((p) => p.value);
  const monotone = !(over.length > 0 && fits.length > 0 && Math.min(...over) < Math.max(...fits));

  const at = lo === undefined ? undefined : known.get(lo);
  const summary = at?.summary ?? null;
  return {
    vary: options.vary,
    path,
    value: lo ?? null,
    peakBytes: summary?.peakBytes ?? null,
    totalBytes: summary?.totalBytes ?? null,
    persistentBytes: summary?.persistentBytes ?? null,
    budgetBytes,
    reserveBytes: s.reserveBytes,
    summary,
    next: next?.summary ? {
      value: next.value,
      peakBytes: next.summary.peakBytes,
      totalBytes: next.summary.totalBytes,
      overByBytes: next.summary.totalBytes + s.reserveBytes - budgetBytes,
      aliveAtPeak: next.summary.peakByLayerAndRole.slice(0, 6),
      aliveByRole: Object.entries(next.summary.peakByRole).map(([role, bytes]) => ({ role, bytes }))
        .sort((a, b) => b.bytes - a.bytes || a.role.localeCompare(b.role)).slice(0, 6),
    } : null,
    monotone,
    probes: probes.map(({ summary: _summary, ...p }) => p),
    unmodelled: [...UNMODELLED],
  };
}
