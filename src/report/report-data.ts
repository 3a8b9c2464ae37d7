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
}
