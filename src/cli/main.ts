import { Command, CommanderError, Option } from 'commander';
import { TensorplanError, VERSION } from '../index.js';
import { RECIPE_WORDS } from '../formats/recipe-names.js';
import { bulkCommand } from './bulk-command.js';
import { describeCommand } from './describe-command.js';
import { executeCommand } from './execute-command.js';
import { fitCommand } from './fit-command.js';
import { CliError, EXIT_BAD_INPUT, EXIT_NEGATIVE } from './exit-codes.js';
import { infoCommand } from './info-command.js';
import { collectInput, importCommand } from './import-command.js';
import { placeCommand } from './place-command.js';
import { planCommand } from './plan-command.js';
import { validateCommand } from './validate-command.js';
import { scheduleCommand } from './schedule-command.js';
import { expandListOptions } from './list-options.js';

/** `--optimizer` (.pt2): the optimizer whose states per parameter are persistent memory. */
const optimizerOption = () =>
  new Option('--optimizer <name>', '.pt2: add the states this optimizer keeps per parameter as persistent memory (momentum: 1, adam/adamw: 2; fp32 with master weights)')
    .choices(['sgd', 'momentum', 'adam', 'adamw']);
const backendOption = () =>
  new Option('--backend <name>', 'backend to use').choices(['auto', 'cuda', 'native', 'wasm']).default('auto');

/** Builds the `tensorplan` command line; each command returns its exit code. */
export function buildProgram(setExitCode: (code: number) => void): Command {
  const program = new Command('tensorplan')
    .description('Plan, validate and execute packed tensor memory for deep-learning workloads.')
    .version(VERSION, '-V, --version')
    .exitOverride()
    // Usage errors read like every other bad input: one line "tensorplan: <message>" (exit 2), then a hint.
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'tensorplan: ')) })
    .showHelpAfterError('(add --help for usage)');

  program
    .command('plan')
    .description('plan a graph: op order, offsets in one arena, validation, and what makes the peak')
    .argument('<graph>', 'graph file (format tensorplan.graph, version 1), layer spec (format tensorplan.layers, version 1), ONNX model (.onnx) or torch.export program (.pt2)')
    .option('-o, --output <plan.json>', 'write the plan file')
    .option('--input <name=DxD>', 'ONNX and .pt2: a graph input\'s shape (x=1x3x640x640) or a symbolic dimension (batch=4, s77=512); takes several (--input x=1x3x640x640 batch=4)', collectInput)
    .option('--alignment <n>', '.pt2: every storage\'s size rounds up to N bytes and its offset aligns to N (default 512, PyTorch\'s CUDA caching allocator; 1 counts exact bytes)')
    .option('--custom-op <target=view|inPlace>', '.pt2: a custom op\'s output 0 is a view of, or written into, an input (TARGET=view[:INPUT], TARGET=inPlace[:INPUT]); repeat it for several', collectInput)
    .addOption(optimizerOption())
    .option('--no-master-weights', '.pt2 with --optimizer: no fp32 master copy of 16-bit and 8-bit float parameters')
    .option('--value <name=v,...>', 'ONNX: a graph input\'s value (sr=16000, mask=1,0,1), dtype from the file; If nodes that depend on it are inlined; takes several (--value sr=16000 mode=1)', collectInput)
    .option('--branch <node=then|else>', 'ONNX: the branch of If NODE that runs, planned inline (without it, an If whose condition is unknown has both branches planned as subgraphs); takes several (--branch a=then b=else)', collectInput)
    .option('--in-place', 'ONNX: element-wise ops may overwrite an input that dies there')
    .option('--external-io', 'ONNX: graph inputs and outputs are user buffers outside the arena (as ONNX Runtime keeps them)')
    .option('--runtime <name>', 'ONNX: plan like this runtime allocates: ort-cpu (ONNX Runtime CPU kernels\' in-place rules and Conv scratch)')
    .option('--ort-threads <n>', 'ONNX, with --runtime ort-cpu: ONNX Runtime\'s intra-op thread count, which sizes MLAS\'s Conv working buffer (default 1; ORT\'s own default is one per physical core)')
    .option('--report <report.html>', 'write a self-contained HTML memory report')
    .option('--trace <trace.json>', 'write the plan as a Chrome trace-event file (Perfetto, Chromium DevTools Performance panel): one slice per op, live bytes by category')
    .option('--budget <size>', 'device memory for arena + persistent tensors, e.g. 80GiB; exit 1 when it does not fit')
    .option('--time-limit <duration>', 'spend up to this long on exact search, e.g. 10s or 500ms; default: stay fast')
    .option('--baselines', 'also measure the Inductor/XLA scheduling and greedy placement baselines')
    .option('--joint', 'choose the op order by its placed arena: place our order, two compacted copies of it (same peak, shorter lifetimes) and each baseline order; keep the smallest arena')
    .option('--reference-graph', 'store the graph as a path relative to the plan file instead of embedding it')
    .option('--check-fusion <ops>', 'judge running these ops (comma-separated) as one fused op: the peak may not rise')
    .option('--max-fused-read <size>', 'with --check-fusion: the most a fused op may read at once, e.g. 64MiB')
    .option('--compare <key=value>', 'layer specs: also plan these alternatives (recipe=mxfp8, weightGradients=bulk, recompute=on, tp=8, sp=on, attention=unfused, any.dotted.path=JSON) and print byte deltas; takes several (--compare recipe=bf16 recompute=on)', collectInput)
    .option('--json', 'print the statistics as JSON')
    .addOption(backendOption())
    .action(async (file, options) => setExitCode(await planCommand(file, options)));

  program
    .command('fit')
    .description('layer specs: the largest value of an integer field (model.microBatch, model.sequence, parallel.tp, layers.0.repeat) whose plan fits the budget')
    .argument('<spec>', 'layer spec (format tensorplan.layers, version 1)')
    .requiredOption('--budget <size>', 'device memory for arena + persistent tensors + --reserve, e.g. 80GiB')
    .requiredOption('--vary <key>', 'the field to vary: a dotted path with an integer value (model.microBatch, model.sequence, parallel.tp, layers.0.repeat) or microBatch, sequence, tp')
    .option('--min <n>', 'the smallest value tried (default 1)')
    .option('--max <n>', 'the largest value tried (default: the spec\'s own limits)')
    .option('--reserve <size>', 'bytes the plan does not model, taken off the budget: CUDA context, NCCL buffers, embeddings and LM head when not in the spec, allocator fragmentation (default 0)')
    .option('--time-limit <duration>', 'spend up to this long on exact search per plan, e.g. 1s; default: stay fast')
    .option('--json', 'print { vary, value, peakBytes, next: { value, peakBytes, ... }, ... } as JSON')
    .addOption(backendOption())
    .action(async (spec, options) => setExitCode(await fitCommand(spec, options)));

  program
    .command('import')
    .description('import an ONNX model or a torch.export program as a graph file: shapes inferred (ONNX), constants folded, views for reshapes')
    .argument('<model>', 'ONNX model (.onnx) or torch.export program (.pt2)')
    .option('-o, --output <graph.json>', 'write the graph file (default: print it)')
    .option('--input <name=DxD>', 'a graph input\'s shape (x=1x3x640x640) or a symbolic dimension (batch=4, s77=512); takes several (--input x=1x3x640x640 batch=4)', collectInput)
    .option('--alignment <n>', '.pt2: every storage\'s size rounds up to N bytes and its offset aligns to N (default 512, PyTorch\'s CUDA caching allocator; 1 counts exact bytes)')
    .option('--custom-op <target=view|inPlace>', '.pt2: a custom op\'s output 0 is a view of, or written into, an input (TARGET=view[:INPUT], TARGET=inPlace[:INPUT]); repeat it for several', collectInput)
    .addOption(optimizerOption())
    .option('--no-master-weights', '.pt2 with --optimizer: no fp32 master copy of 16-bit and 8-bit float parameters')
    .option('--value <name=v,...>', 'a graph input\'s value (sr=16000, mask=1,0,1), dtype from the file; If nodes that depend on it are inlined; takes several (--value sr=16000 mode=1)', collectInput)
    .option('--branch <node=then|else>', 'the branch of If NODE that runs, inlined (without it, an If whose condition is unknown has both branches planned as subgraphs); takes several (--branch a=then b=else)', collectInput)
    .option('--in-place', 'element-wise ops may overwrite an input that dies there')
    .option('--external-io', 'graph inputs and outputs are user buffers outside the arena (as ONNX Runtime keeps them)')
    .option('--runtime <name>', 'plan like this runtime allocates: ort-cpu (ONNX Runtime CPU kernels\' in-place rules and Conv scratch)')
    .option('--ort-threads <n>', 'with --runtime ort-cpu: ONNX Runtime\'s intra-op thread count, which sizes MLAS\'s Conv working buffer (default 1; ORT\'s own default is one per physical core)')
    .option('--json', 'print what the import found (and the graph, without -o) as JSON')
    .addOption(backendOption())
    .action(async (file, options) => setExitCode(await importCommand(file, options)));

  program
    .command('place')
    .description('offsets for buffers with lifetimes (MiniMalloc CSV: id,lower,upper,size[,alignment]; "end" = inclusive)')
    .argument('<file>', 'CSV file')
    .option('--capacity <bytes>', 'decision mode: find a placement within this height or prove there is none (exit 1)')
    .option('--minimize', 'find the smallest height and prove it when the time allows')
    .option('--time-limit <duration>', 'solver budget, e.g. 10s or 500ms (default 10s)')
    .option('--threads <n>', 'with --minimize or --capacity: searches run at once, each drawing differently, the lowest kept (default 1; 0: one per usable processor; WASM runs one)')
    .addOption(new Option('--algorithm <name>', 'solver').choices(['ours', 'greedy-size', 'xla-best', 'first-fit']).default('ours'))
    .option('-o, --output <out.csv>', 'write the CSV with an offset column')
    .option('--json', 'print { height, lowerBound, proved, feasible, timeMs, algorithm }')
    .addOption(backendOption())
    .action(async (file, options) => setExitCode(await placeCommand(file, options)));

  program
    .command('validate')
    .description('check any plan file against its graph; every violation is reported (exit 1 when invalid)')
    .argument('<plan>', 'plan file (format tensorplan.plan, version 1)')
    .option('--graph <graph.json>', 'the graph, when the plan does not embed it')
    .option('--json', 'print the diagnostics as JSON')
    .addOption(backendOption())
    .action(async (file, options) => setExitCode(await validateCommand(file, options)));

  program
    .command('execute')
    .description('run a plan (op set v1) in its arena, verify the lifecycle trace, and print or write the outputs (exit 1 when the plan is invalid, or the trace or --check fails)')
    .argument('<plan>', 'plan file (format tensorplan.plan, version 1)')
    .option('--graph <graph.json>', 'the graph, when the plan does not embed it')
    .option('--input <name=FILE>', 'bytes of a graph input or persistent tensor: a .npy file (dtype and shape checked) or raw little-endian bytes; repeatable', collectInput)
    .option('--random-inputs <seed>', 'fill every input not given with seeded values (floats in [-1, 1], other dtypes random bytes)')
    .addOption(new Option('--executor <name>', 'auto: cuda on a cuda session, else reference').choices(['auto', 'reference', 'cuda']).default('auto'))
    .addOption(new Option('--memory <layout>', 'arena: one buffer at the planned offsets; separate: one allocation per storage').choices(['arena', 'separate']).default('arena'))
    .option('--check', 'oracle: run again with the other memory layout and require bit-identical outputs')
    .option('--skip-plan-check', 'run a plan that validate rejects, as stated (only to test that --check catches it); without it an invalid plan exits 1, naming its diagnostics')
    .option('--outputs <dir>', 'write each output as NAME.bin (raw bytes) and NAME.npy')
    .option('--json', 'print the result as JSON')
    .addOption(backendOption())
    .action(async (file, options) => setExitCode(await executeCommand(file, options)));

  program
    .command('info')
    .description('show which backend runs, every backend\'s availability and reason, versions and CUDA devices')
    .option('--json', 'print JSON for machines')
    .addOption(backendOption())
    .action(async (options) => setExitCode(await infoCommand(options)));

  program
    .command('bulk')
    .description('lay out tensors in one allocation as TransformerEngine bulk_allocate does')
    .argument('<file>', 'JSON file: { "tensors": [ { "name", "shape", "dtype", "alignment"? } ] }')
    .option('--json', 'print JSON for machines')
    .addOption(backendOption())
    .action(async (file, options) => setExitCode(await bulkCommand(file, options)));

  program
    .command('schedule')
    .description('order a graph\'s ops for the smallest peak memory; compares Inductor and XLA baselines')
    .argument('<file>', 'graph file (format tensorplan.graph, version 1)')
    .option('--method <name>', 'given, inductor-lpmf, inductor-bfs, inductor-dfs, xla-list, xla-dfs, xla-post-order, inductor-best, xla-best or ours', 'ours')
    .option('--time-limit <duration>', 'search time for ours, e.g. 1s or 500ms', '1s')
    .option('--json', 'print JSON for machines')
    .addOption(backendOption())
    .action(async (file, options) => setExitCode(await scheduleCommand(file, options)));

  program
    .command('describe')
    .description('list the TransformerEngine inner buffers of a quantized tensor format')
    .option('--shape <dims>', 'logical shape, e.g. 1024x4096')
    .option('--grouped <members>', 'a grouped tensor instead: member shapes, e.g. 128x512,256x512,384x512')
    .option('--dtype <dtype>', 'logical dtype (fp32, bf16, fp16)', 'bf16')
    .addOption(new Option('--recipe <recipe>', 'quantization recipe')
      .choices([...RECIPE_WORDS]).default('mxfp8'))
    .option('--usage <usages>', 'rowwise, columnwise or rowwise,columnwise', 'rowwise,columnwise')
    .addOption(new Option('--arch <arch>', 'GPU class (default: the lowest TE runs the recipe on)').choices(['hopper', 'blackwell']))
    .option('--swizzled', 'GEMM-swizzled scales (MXFP8/NVFP4)')
    .option('--row-scaled', 'NVFP4 row-scaled amax')
    .option('--hadamard', 'NVFP4 Hadamard transform for columnwise')
    .option('--pow2', 'power-of-two scales (current / block FP8)')
    .addOption(new Option('--fp8 <format>', 'FP8 element format').choices(['e4m3', 'e5m2']).default('e4m3'))
    .option('--json', 'print JSON for machines')
    .addOption(backendOption())
    .action(async (options) => setExitCode(await describeCommand(options)));

  return program;
}

/** Runs the CLI and resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  let exitCode = 0;
  const program = buildProgram((code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(expandListOptions(argv));
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, successfully.
      return error.exitCode === 0 ? 0 : EXIT_BAD_INPUT;
    }
    if (error instanceof CliError) {
      console.error(`tensorplan: ${error.message}`);
      return error.exitCode;
    }
    if (error instanceof TensorplanError) {
      console.error(`tensorplan: ${error.message}`);
      return error.code === 'INFEASIBLE' ? EXIT_NEGATIVE : EXIT_BAD_INPUT;
    }
    // Bad input is a CliError or a TensorplanError (exit 2, above);
    // anything else is a bug in tensorplan: say so in one line and exit 1.
    // TENSORPLAN_DEBUG=1 prints the stack for a bug report.
    console.error(`tensorplan: internal error: ${error instanceof Error ? error.message : String(error)}`);
    if (process.env.TENSORPLAN_DEBUG === '1' && error instanceof Error) console.error(error.stack);
    return EXIT_NEGATIVE;
  }
}
