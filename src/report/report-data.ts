/**
 * One storage in the placement chart: a rectangle from birth to death, offset to offset + bytes.
 *
 * @group Files
 */
export interface ReportStorage {
  name: string;
  offset: number;
  bytes: number;
  /** First step it is alive. */
  birth: number;
  /** Last step it is alive (inclusive). */
  death: number;
  producer: string;
  lastReader: string;
  /** The category its bytes count under in the timeline (`saved for backward`, `op workspaces`, ...). */
  category?: string;
  /** The table group it is listed under: `L3 · saved activation` for a layer spec, the producer's op type otherwise. */
  group?: string;
  /**
   * Why it is alive: for a layer spec the TE behaviour that keeps it (and, when TE holds it past
   * its last reader, until when and why); otherwise `read by OP at step N`.
   */
  why?: string;
  /** How many tensors share it (aliases, views, in-place outputs, group members). */
  tensors?: number;
}

/**
 * A storage alive at the peak, for the top-contributors table.
 *
 * @group Files
 */
export interface ReportContributor {
  name: string;
  bytes: number;
  producer: string;
  lastReader: string;
}

/**
 * Live bytes per step of one schedule (ours or a baseline).
 *
 * @group Files
 */
export interface ReportSeries {
  name: string;
  liveBytes: number[];
  /** For a baseline: its own op order (step k ran `steps[k]`), shown on hover. */
  steps?: string[];
  /** For a baseline: the peak the plan's statistics report for it (the curve's maximum). */
  peakBytes?: number;
}

/**
 * Bytes of one kind that stay for the whole step (weights, optimizer state): a constant band under the timeline.
 *
 * @group Files
 */
export interface ReportAmount {
  name: string;
  bytes: number;
}

/**
 * The arena's live bytes split another way (by layer, by role, by the producer's op type);
 * the series add up to `liveBytes` at every step.
 *
 * @group Files
 */
export interface ReportGrouping {
  /** What the split is by: `category`, `layer`, `role`, `op type`. */
  by: string;
  series: ReportSeries[];
}

/**
 * The device budget the plan was checked against (`--budget`).
 *
 * @group Files
 */
export interface ReportBudget {
  budgetBytes: number;
  /** arena + persistent (+ external I/O) within the budget. */
  fits: boolean;
  /** Budget minus what the plan needs: negative when it does not fit. */
  headroomBytes: number;
}

/**
 * One alternative of `tensorplan plan SPEC --compare`: its figures and the roles whose bytes at the peak change.
 *
 * @group Files
 */
export interface ReportAlternative {
  /** `base`, or the alternative as written (`recipe=mxfp8`). */
  label: string;
  peakBytes: number;
  persistentBytes: number;
  /** arena + persistent. */
  totalBytes: number;
  deltaPeakBytes: number;
  deltaTotalBytes: number;
  /** Bytes live at the peak by role, alternative minus base, largest change first. */
  roles: ReportAmount[];
  /** One line naming what makes the peak differ. */
  explanation: string;
}

/**
 * Everything the memory report shows; `plan()` produces it, and so can any tool.
 *
 * @group Files
 */
export interface ReportData {
  title: string;
  /** Tool and version that made the plan. */
  generatedBy: string;
  /** Op name of each step of the schedule. */
  steps: string[];
  /** Live bytes per step under the plan's schedule. */
  liveBytes: number[];
  /** Baseline schedules to overlay, measured in the same run. */
  baselines: ReportSeries[];
  peakBytes: number;
  peakStep: number;
  lowerBoundBytes: number;
  arenaBytes: number;
  storages: ReportStorage[];
  /** Alive at the peak, largest first. */
  topAtPeak: ReportContributor[];
  /** Persistent bytes (weights, optimizer state), outside the arena; the sum of `persistent`. */
  persistentBytes?: number;
  /** Persistent bytes by kind (weights, master weights, optimizer state, external I/O, ...). */
  persistent?: ReportAmount[];
  /**
   * Live bytes per step by category (saved for backward, gradients, transients, graph inputs,
   * activations, op workspaces); they add up to `liveBytes` at every step.
   */
  categories?: ReportSeries[];
  /** Other splits of the same live bytes: by layer and role (layer specs), by op type (graph files). */
  groupings?: ReportGrouping[];
  /** Present when a budget was given. */
  budget?: ReportBudget;
  /** What device memory holds that the plan does not model (CUDA context, NCCL buffers, ...). */
  unmodelled?: string[];
  /** The alternatives of `--compare`, base first. */
  alternatives?: ReportAlternative[];
}
