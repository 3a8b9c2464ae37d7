// Whether a set of ops may run as one fused op without raising the peak.
import { callFusionCheck } from '../abi/c-api.generated.js';
import type { CoreBinding } from '../abi/core-binding.js';
import { TensorplanError, shown } from '../errors.js';
import type { GraphDocument } from '../graph/graph-document.js';
import { encodeGraph } from '../graph/encode-graph.js';
import { type ScheduleOptions, methodCode, timeLimit } from './schedule.js';

/**
 * Limits of `Tensorplan.checkFusion`.
 *
 * @group Planning
 */
export interface FusionOptions extends ScheduleOptions {
  /** Bytes the fused op may read at once; 0 or absent = no limit. */
  maxReadBytes?: number;
}

/**
 * Whether running a set of ops as one fused op is acceptable.
 *
 * @group Planning
 */
export interface FusionVerdict {
  accepted: boolean;
  /** A dependency path leaves the set and re-enters it: the ops cannot run as one. */
  createsCycle: boolean;
  raisesPeak: boolean;
  readsTooLarge: boolean;
  peakBeforeBytes: number;
  peakAfterBytes: number;
  /** Bytes the fused op reads at once. */
  readBytes: number;
  /** Aligned bytes of the fused op's inputs, outputs and workspace, all alive at once. */
  fusedStepBytes: number;
}

function fail(message: string): never {
  throw new TensorplanError('INVALID_ARGUMENT', message);
}

/**
 * Accepts or rejects running `ops` as one fused op: the peak may not rise
 * (a fused op keeps its inputs, outputs and workspace alive at once), and
 * the fused op may not read more than `maxReadBytes` at once.
 */
export function checkFusion(core: CoreBinding, graph: GraphDocument, ops: readonly string[], options: FusionOptions = {}): FusionVerdict {
  const encoded = encodeGraph(core, graph);
  if (!Array.isArray(ops)) fail('ops must be an array of op names');
  const fused = Int32Array.from(ops.map((name, i) => {
    const index = encoded.opIndex.get(name);
    if (index === undefined) fail(`ops[${i}] = ${shown(name)}: unknown op`);
    return index;
  }));
  const { verdict, figures } = callFusionCheck(core, {
    ...encoded.graph, fusedOps: fused, fusedCount: fused.length, maxReadBytes: options.maxReadBytes ?? 0,
    method: methodCode(options.method), timeLimitS: timeLimit(options),
  });
  return {
    accepted: verdict[0] === 1,
    createsCycle: verdict[1] === 1,
    raisesPeak: verdict[2] === 1,
    readsTooLarge: verdict[3] === 1,
    peakBeforeBytes: figures[0],
    peakAfterBytes: figures[1],
    readBytes: figures[2],
    fusedStepBytes: figures[3],
  };
}
