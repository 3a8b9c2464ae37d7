import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Table from 'cli-table3';
import { tableStyle } from './colour.js';
import { info, init } from '../index.js';
import type { BackendChoice, DeviceExecutionResult, GraphDocument, LifecycleIssue } from '../index.js';
import { CliError, EXIT_NEGATIVE } from './exit-codes.js';
import { type InputSource, describeTensor, gatherInputs } from './execute-inputs.js';
import { type OutputDifference, executionExitCode, firstDifference, shortChecksum } from './execute-verdict.js';
import { formatBytes } from './format.js';
import { NPY_DESCR, encodeNpy } from './npy.js';
import { readPlanAndGraph } from './plan-graph.js';
import { parseSeed } from './random-inputs.js';

/** Options of `tensorplan execute`. */
export interface ExecuteCommandOptions {
  graph?: string;
  /** `NAME=FILE`, repeatable. */
  input?: string[];
  randomInputs?: string;
  executor?: 'auto' | 'reference' | 'cuda';
  memory?: 'arena' | 'separate';
  check?: boolean;
  /** Run a plan that `validate` rejects, as stated: only for testing that --check catches it. */
  skipPlanCheck?: boolean;
  outputs?: string;
  json?: boolean;
  backend?: BackendChoice;
}

/** One graph output as the summary shows it. */
interface OutputRow {
  name: string;
  dtype?: string;
  shape?: number[];
  bytes: number;
  sha256: string;
  /** Files written with --outputs. */
  files?: string[];
}

/**
 * File stems for output names: characters other than letters, digits, '.',
 * '_' and '-' become '_', and a stem already taken gets a numeric suffix, so
 * every output has its own file inside the directory.
 */
export function outputFileStems(names: readonly string[]): string[] {
  const taken = new Set<string>();
  return names.map((name) => {
    const base = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, (dots) => '_'.repeat(dots.length)) || '_';
    let stem = base;
    for (let k = 2; taken.has(stem.toLowerCase()); k++) stem = `${base}~${k}`;
    taken.add(stem.toLowerCase());
    return stem;
  });
}

async function writeOutputs(dir: string, graph: GraphDocument, outputs: Record<string, Uint8Array>, rows: OutputRow[]): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw new CliError(`--outputs ${dir}: cannot create the directory: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const stems = outputFileStems(rows.map((r) => r.name));
  for (const [k, row] of rows.entries()) {
    const bytes = outputs[row.name];
    const tensor = graph.tensors.find((t) => t.name === row.name);
    const descr = tensor?.dtype ? NPY_DESCR[tensor.dtype] : undefined;
    // An .npy array needs an element type whose size divides the bytes; bytes-only tensors are uint8 arrays.
    const npyShape = descr && tensor?.shape && tensor.dtype !== 'fp4_e2m1' ? tensor.shape : [bytes.length];
    const npyDescr = descr && tensor?.dtype !== 'fp4_e2m1' ? descr : '|u1';
    const count = npyShape.reduce((a, b) => a * b, 1);
    const files = [join(dir, `${stems[k]}.bin`)];
    if (count * Number(npyDescr.slice(2)) === bytes.length) files.push(join(dir, `${stems[k]}.npy`));
    try {
      await writeFile(files[0], bytes);
      if (files[1]) await writeFile(files[1], encodeNpy(npyDescr, npyShape, bytes));
    } catch (error) {
      throw new CliError(`--outputs ${dir}: cannot write ${row.name}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    row.files = files;
  }
}

function sourceText(s: InputSource, seed: number | undefined): string {
  if (s.source === 'file') return `${s.file} (${s.format === 'npy' ? '.npy' : 'raw bytes'})`;
  if (s.source === 'random') return `random, seed ${seed}`;
  return 'zeros (persistent, written by the graph)';
}

function differenceText(d: OutputDifference, memory: string): string {
  const hex = (v: number | null) => (v === null ? 'none' : `0x${v.toString(16).padStart(2, '0')}`);
  return `output "${d.output}" differs first at byte ${d.byte}: ${hex(d.got)} here, ${hex(d.expected)} with memory '${memory}'`;
}

/**
 * `tensorplan execute PLAN.json`: validates the plan (as `tensorplan validate`
 * does), runs it on its graph's inputs (files or seeded random values),
 * verifies the lifecycle trace, optionally checks the outputs against the
 * other memory layout, and prints or writes the outputs. Exit 1 when the plan
 * is invalid (nothing runs), the trace is rejected or the outputs differ.
 */
export async function executeCommand(file: string, options: ExecuteCommandOptions): Promise<number> {
  const seed = options.randomInputs !== undefined ? parseSeed(options.randomInputs) : undefined;
  const { plan, graph: givenGraph } = await readPlanAndGraph(file, options.graph);
  const graph: GraphDocument = givenGraph ?? (plan.graph as GraphDocument);
  const tp = await init({ backend: options.backend ?? 'auto' });
  // An invalid plan is refused before anything runs (the core would refuse
  // its placement too; this names every diagnostic, stated sizes,
  // lifetimes, workspaces and statistics included).
  const diagnostics = tp.validate(plan, graph);
  if (diagnostics.length > 0 && !options.skipPlanCheck) {
    if (options.json) {
      console.log(JSON.stringify({ plan: file, backend: tp.backend, valid: false, diagnostics, exitCode: EXIT_NEGATIVE }, null, 2));
    } else {
      console.log(`execute ${file}: INVALID plan, not run: ${diagnostics.length} problem${diagnostics.length === 1 ? '' : 's'} (tensorplan validate lists them all)`);
      for (const d of diagnostics.slice(0, 20)) console.log(`  ${d.code}: ${d.message}`);
      if (diagnostics.length > 20) console.log(`  ... and ${diagnostics.length - 20} more`);
    }
    return EXIT_NEGATIVE;
  }
  const { inputs, sources } = await gatherInputs(tp, graph, options.input ?? [], seed);

  if (options.executor === 'cuda' && tp.backend !== 'cuda') {
    // Say why CUDA is not the session's backend: another was named, or CUDA
    // is unusable here (no driver, no device, built without nvcc).
    const cuda = (await info()).backends.find((b) => b.name === 'cuda');
    throw new CliError(cuda?.available
      ? `--executor cuda: this session runs on ${tp.backend} (--backend ${tp.backend}); use --backend cuda or auto`
      : `--executor cuda: this session runs on ${tp.backend}; the cuda backend is unavailable: ${cuda?.reason || 'not registered'}`);
  }
  const memory = options.memory ?? 'arena';
  const executor = options.executor === 'auto' ? undefined : options.executor;
  const run = async (layout: 'arena' | 'separate'): Promise<{ result: DeviceExecutionResult; ms: number }> => {
    const start = performance.now();
    const result = await tp.execute(plan, inputs, { executor, memory: layout, graph, skipPlanCheck: options.skipPlanCheck === true });
    return { result, ms: performance.now() - start };
  };
  const main = await run(memory);
  const issues: LifecycleIssue[] = tp.verifyTrace(graph, plan.schedule, main.result.trace);

  const oracleMemory = memory === 'arena' ? 'separate' : 'arena';
  const oracle = options.check ? await run(oracleMemory) : undefined;
  const difference = oracle ? firstDifference(graph.outputs ?? [], main.result.outputs, oracle.result.outputs) : null;

  const tensors = new Map(graph.tensors.map((t) => [t.name, t]));
  const rows: OutputRow[] = (graph.outputs ?? []).map((name) => {
    const t = tensors.get(name);
    const bytes = main.result.outputs[name];
    return { name, ...(t?.dtype ? { dtype: t.dtype } : {}), ...(t?.shape ? { shape: [...t.shape] } : {}), bytes: bytes.length, sha256: shortChecksum(bytes) };
  });
  if (options.outputs) await writeOutputs(options.outputs, graph, main.result.outputs, rows);
  const exitCode = executionExitCode(issues.length, difference);

  if (options.json) {
    console.log(JSON.stringify({
      plan: file,
      backend: tp.backend,
      executor: main.result.executor,
      memory,
      valid: diagnostics.length === 0,
      ...(diagnostics.length > 0 ? { diagnostics } : {}),
      arenaBytes: plan.arenaBytes,
      peakBytes: main.result.peakBytes,
      allocations: main.result.allocations,
      steps: plan.schedule.length,
      ...(seed !== undefined ? { seed } : {}),
      inputs: sources,
      trace: { verified: issues.length === 0, events: main.result.trace.length, issues },
      oracle: oracle
        ? { checked: true, memory: oracleMemory, identical: difference === null, ...(difference ? { firstDifference: difference } : {}) }
        : { checked: false },
      outputs: rows,
      timeMs: { execute: main.ms, ...(oracle ? { oracle: oracle.ms } : {}) },
      exitCode,
    }, null, 2));
    return exitCode;
  }

  console.log(`execute ${file}: ${plan.schedule.length} steps on ${tp.backend}`);
  const summary = new Table({ style: tableStyle() });
  summary.push(
    { executor: `${main.result.executor}, memory '${memory}' (${main.result.allocations} allocation${main.result.allocations === 1 ? '' : 's'})` },
    { arena: formatBytes(plan.arenaBytes) },
    { plan: diagnostics.length === 0 ? 'valid' : `INVALID (${diagnostics.length} problems), run as stated: --skip-plan-check` },
    { steps: String(plan.schedule.length) },
    { trace: issues.length === 0
      ? `verified (${main.result.trace.length} events match the plan)`
      : `REJECTED: ${issues.length} issue${issues.length === 1 ? '' : 's'}` },
    { oracle: !oracle ? 'not run (--check runs it)'
      : difference === null ? `outputs bit-identical with memory '${oracleMemory}'`
        : `MISMATCH: ${differenceText(difference, oracleMemory)}` },
    { time: `${main.ms.toFixed(1)} ms${oracle ? ` (oracle ${oracle.ms.toFixed(1)} ms)` : ''}` },
  );
  console.log(summary.toString());
  for (const issue of issues.slice(0, 20)) console.log(`  trace: ${issue.message}`);
  if (issues.length > 20) console.log(`  ... and ${issues.length - 20} more (use --json for all)`);

  if (sources.length > 0) {
    const inputTable = new Table({ head: ['input', 'tensor', 'bytes', 'from', 'sha256'], style: tableStyle() });
    for (const s of sources) inputTable.push([s.name, describeTensor(s), String(s.bytes), sourceText(s, seed), s.sha256 ?? '']);
    console.log(inputTable.toString());
  }
  const outputTable = new Table({ head: ['output', 'dtype', 'shape', 'bytes', 'sha256'], style: tableStyle() });
  for (const r of rows) outputTable.push([r.name, r.dtype ?? '(bytes)', r.shape ? `[${r.shape.join(', ')}]` : '', String(r.bytes), r.sha256]);
  console.log(outputTable.toString());
  if (options.outputs) console.log(`outputs written to ${options.outputs} (NAME.bin, and NAME.npy)`);
  return exitCode;
}
