// Live bytes per step under an op order, the peak and what makes it up.
import {
  STORAGE_FLAG_CODE, callGraphLiveness,
} from '../abi/c-api.generated.js';
import type { CoreBinding } from '../abi/core-binding.js';
import type { GraphDocument } from '../graph/graph-document.js';
import { type EncodedGraph, encodeGraph } from '../graph/encode-graph.js';
import { encodeOrder } from './schedule.js';

/**
 * One storage: a tensor with everything that aliases it (views, in-place outputs), or a group.
 *
 * @group Planning
 */
export interface StorageLifetime {
  /** The tensor that owns the bytes (a group: its first member). */
  owner: string;
  /** Every tensor in this storage. */
  tensors: string[];
  /** Rounded up to the alignment: what every figure counts. */
  bytes: number;
  /** Step of birth; -1 when never alive. */
  birth: number;
  /** Last step alive; equals the step count for graph outputs (they never die). */
  death: number;
  graphInput: boolean;
  graphOutput: boolean;
  persistent: boolean;
  group: boolean;
}

/**
 * A storage alive at the peak step, for attribution.
 *
 * @group Planning
 */
export interface PeakContributor {
  owner: string;
  bytes: number;
  /** The op that made it; null for a graph input. */
  producer: string | null;
  /** The last op that reads or writes it; null if none. */
  lastUse: string | null;
}

/**
 * Liveness under an order (PLANNING.md §2).
 *
 * @group Planning
 */
export interface LivenessResult {
  order: string[];
  /** Live bytes at each step: storages alive during the step plus the op's workspace. */
  liveBytes: number[];
  peakBytes: number;
  /** First step at the peak; -1 for an empty graph. */
  peakStep: number;
  peakOp: string | null;
  /** Workspace of the op at the peak step (part of `peakBytes`). */
  peakWorkspaceBytes: number;
  /** Storages alive at the peak, largest first. */
  peakContributors: PeakContributor[];
  /** Persistent storages: outside the arena, reported apart. */
  persistentBytes: number;
  storages: StorageLifetime[];
  /** Storage index and byte offset of each tensor, in `graph.tensors` order. */
  tensorStorage: number[];
  tensorOffset: number[];
}

const opName = (graph: EncodedGraph, index: number): string | null => (index >= 0 ? graph.doc.ops[index].name : null);

/** Live bytes per step, the peak and what makes it, under `order` (default: the graph's op order). */
export function liveness(core: CoreBinding, graph: GraphDocument, order?: readonly string[]): LivenessResult {
  const encoded = encodeGraph(core, graph);
  const steps = encodeOrder(encoded, order);
  const {
    tensorStorage, tensorOffset, storageBytes: bytes, storageBirth: birth, storageDeath: death, storageFlags: flags, liveBytes: live,
    stats, peakStorages, peakBytes, peakProducers: producers, peakLastOps: lastOps, storageRoot: roots,
  } = callGraphLiveness(core, { ...encoded.graph, order: steps, orderCount: steps.length });
  const tensors = encoded.doc.tensors;
  const storages: StorageLifetime[] = Array.from(bytes, (b, s) => ({
    owner: tensors[roots[s]].name,
    tensors: [],
    bytes: b,
    birth: birth[s],
    death: death[s],
    graphInput: (flags[s] & STORAGE_FLAG_CODE.graphInput) !== 0,
    graphOutput: (flags[s] & STORAGE_FLAG_CODE.graphOutput) !== 0,
    persistent: (flags[s] & STORAGE_FLAG_CODE.persistent) !== 0,
    group: (flags[s] & STORAGE_FLAG_CODE.group) !== 0,
  }));
  tensorStorage.forEach((s, i) => storages[s].tensors.push(tensors[i].name));
  const orderNames = Array.from(steps, (i) => encoded.doc.ops[i].name);
  const peakStep = stats[1];
  return {
    order: orderNames,
    liveBytes: Array.from(live),
    peakBytes: stats[0],
    peakStep,
    peakOp: peakStep >= 0 ? orderNames[peakStep] : null,
    peakWorkspaceBytes: stats[2],
    peakContributors: Array.from(peakStorages, (s, k) => ({
      owner: storages[s].owner,
      bytes: peakBytes[k],
      producer: opName(encoded, producers[k]),
      lastUse: opName(encoded, lastOps[k]),
    })),
    persistentBytes: stats[3],
    storages,
    tensorStorage: Array.from(tensorStorage),
    tensorOffset: Array.from(tensorOffset),
  };
}
