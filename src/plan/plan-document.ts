import type { GraphDocument } from '../graph/graph-document.js';

/**
 * One storage of a plan: every tensor that lives in it, where, and when.
 *
 * @group Files
 */
export interface PlanStorage {
  /** The tensors sharing this storage; the owner (base tensor, or a group's first member) first. */
  tensors: string[];
  /** Byte offset in the arena. */
  offset: number;
  /** Aligned bytes it occupies. */
  bytes: number;
  /** First step it is alive. */
  birth: number;
  /** Last step it is alive; the step count for graph outputs (they survive the last step). */
  death: number;
  /** The op that made it; null for a graph input. */
  producer: string | null;
  /** The last op that reads or writes it. */
  lastUse: string | null;
}

/**
 * The scratch memory of one op, alive only during its step.
 *
 * @group Files
 */
export interface PlanWorkspace {
  op: string;
  step: number;
  offset: number;
  bytes: number;
}

/**
 * A storage alive at the peak, for attribution.
 *
 * @group Files
 */
export interface PlanContributor {
  /** The storage's owner tensor. */
  storage: string;
  bytes: number;
  producer: string | null;
  lastUse: string | null;
}

/**
 * A peak and the arena placed for it, for one op order.
 *
 * @group Files
 */
export interface PlanOrderFigures {
  peakBytes: number;
  arenaBytes: number;
}

/**
 * How a joint plan chose its order: several orders placed with the same
 * placement options, the smallest arena kept (ties: the lower peak, then the
 * schedule method's order).
 *
 * @group Files
 */
export interface PlanJoint {
  /** Distinct orders placed. */
  candidates: number;
  /** Whose order was kept: the schedule method's name, or a baseline's (`'inductor-bfs'`, ...). */
  order: string;
  /**
   * The schedule method's order (the smallest peak it found): its peak and the
   * arena a fast placement gives it.
   */
  peakOrder: PlanOrderFigures;
  /** The kept order: the plan's own peak and arena. */
  chosen: PlanOrderFigures;
}

/**
 * The figures that explain a plan.
 *
 * @group Files
 */
export interface PlanStatistics {
  /** Peak live bytes of the schedule (the arena can never be smaller: the lower bound). */
  peakBytes: number;
  peakStep: number;
  peakOp: string | null;
  lowerBoundBytes: number;
  arenaBytes: number;
  /** arenaBytes / lowerBoundBytes (1 when both are 0). */
  arenaOverLowerBound: number;
  /** Weights and other persistent tensors: outside the arena, counted in totals. */
  persistentBytes: number;
  /**
   * Graph inputs and outputs held outside the arena as user buffers (the ONNX importer's
   * `externalIO: true` makes them persistent); not counted in `persistentBytes`. Absent when 0.
   */
  externalIOBytes?: number;
  /** Live bytes at every step. */
  liveBytes: number[];
  /** Alive at the peak, largest first. */
  peakContributors: PlanContributor[];
  schedule: {
    method: string;
    /** The peak is proved to be the smallest any op order can reach. */
    provedOptimal: boolean;
    /** Peak of each scheduling baseline, measured in the same run (when asked for). */
    baselines: Record<string, number>;
  };
  placement: {
    method: string;
    /** The arena is proved to be the smallest for this schedule. */
    provedOptimal: boolean;
    /** Arena of each placement baseline on the same lifetimes (when asked for). */
    baselines: Record<string, number>;
  };
  /**
   * Present for a joint plan (`joint: true`): the order was chosen by its placed arena among
   * the schedule method's order and the baselines' orders.
   */
  joint?: PlanJoint;
  timeMs: { schedule: number; place: number; validate: number; total: number };
  /** Present when a budget was given. */
  budget?: {
    budgetBytes: number;
    /** arenaBytes + persistentBytes (+ externalIOBytes) <= budgetBytes. */
    fits: boolean;
    /** How much is missing (0 when it fits). */
    overByBytes: number;
  };
}

/**
 * A plan file (format `tensorplan.plan`, version 1): a graph, the op order, an
 * offset for every storage in one arena, and the statistics that explain it.
 * Plain JSON that round-trips exactly.
 *
 * @group Files
 */
export interface PlanDocument {
  format: 'tensorplan.plan';
  version: 1;
  tool: { name: string; version: string; backend: string };
  /** The graph, embedded, or a path to its file (relative to the plan file). */
  graph: GraphDocument | { path: string };
  /** Op names, step 0 first. */
  schedule: string[];
  arenaBytes: number;
  storages: PlanStorage[];
  workspaces: PlanWorkspace[];
  statistics: PlanStatistics;
}
