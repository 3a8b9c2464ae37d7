import Table from 'cli-table3';
import { tableStyle } from './colour.js';
import { init } from '../index.js';
import type { Arch, BackendChoice, DType, Recipe, TensorFormat } from '../index.js';
import { CliError } from './exit-codes.js';
import { formatBytes } from './format.js';
import { defaultArch } from '../formats/tensor-format.js';

/** Options of `tensorplan describe`. */
export interface DescribeOptions {
  shape?: string;
  grouped?: string;
  dtype: string;
  recipe: string;
  usage: string;
  arch: string;
  swizzled?: boolean;
  rowScaled?: boolean;
  hadamard?: boolean;
  pow2?: boolean;
  fp8: string;
  json?: boolean;
  backend?: BackendChoice;
}

function parseShape(text: string): number[] {
  const dims = text.split(/[,x]/).map((part) => part.trim()).filter((part) => part.length > 0);
  if (dims.length === 0 || dims.some((d) => !/^\d+$/.test(d))) {
    throw new CliError(`--shape ${JSON.stringify(text)}: expected dims like 1024,4096`);
  }
  return dims.map(Number);
}

/** `--grouped 128x512,256x512`: member shapes, each rank 2. */
function parseMembers(text: string): number[][] {
  const members = text.split(',').map((m) => m.trim()).filter((m) => m.length > 0);
  if (members.length === 0) throw new CliError(`--grouped ${JSON.stringify(text)}: expected member shapes like 128x512,256x512`);
  return members.map((member, i) => {
    const dims = member.split('x');
    if (dims.length !== 2 || dims.some((d) => !/^\d+$/.test(d))) {
      throw new CliError(`--grouped member ${i} = ${JSON.stringify(member)}: expected two dims like 128x512`);
    }
    return dims.map(Number);
  });
}

/** `tensorplan describe --grouped`: a GroupedTensor's buffers with both TE sizings (FORMATS.md §3). */
async function describeGrouped(options: DescribeOptions, format: Omit<TensorFormat, 'shape'>): Promise<number> {
  const members = parseMembers(options.grouped!);
  const tp = await init({ backend: options.backend ?? 'auto' });
  const layout = tp.groupedLayout(members, format);
  if (options.json) {
    console.log(JSON.stringify({ backend: tp.backend, members, format, ...layout }, null, 2));
    return 0;
  }
  console.log(`${format.recipe} grouped tensor of ${members.length} members (${layout.kind}), logical shape [${layout.logicalShape.join(', ')}], backend ${tp.backend}`);
  if (layout.hasTensorOffsets) console.log(`tensor_offsets (elements): [${layout.tensorOffsets.join(', ')}]`);
  const table = new Table({ head: ['buffer', 'dtype', 'bytes (per-member, Python)', 'bytes (total shape, C++)', 'member offsets (elements)'], style: tableStyle() });
  const cpp = (bytes: number) => (layout.cppAvailable ? bytes : 'unavailable');
  for (const b of layout.buffers) table.push([b.name, b.dtype, b.bytes, cpp(b.cppBytes), b.memberOffsets.length > 0 ? b.memberOffsets.join(', ') : '']);
  console.log(table.toString());
  const cppTotal = layout.cppAvailable ? formatBytes(layout.cppTotalBytes) : 'unavailable';
  console.log(`total: ${formatBytes(layout.totalBytes)} per-member sizing (make_grouped_tensor), ${cppTotal} total-shape sizing (create_grouped_tensor)`);
  if (!layout.cppAvailable) console.log(`note: TE's C++ path refuses this group: ${layout.cppUnavailableReason}`);
  return 0;
}

/** `tensorplan describe`: the TE inner buffers of a quantized tensor format (FORMATS.md §2). */
export async function describeCommand(options: DescribeOptions): Promise<number> {
  if ((options.shape === undefined) === (options.grouped === undefined)) {
    throw new CliError('give either --shape (one tensor) or --grouped (member shapes of a grouped tensor)');
  }
  const usages = options.usage.split(',').map((u) => u.trim());
  for (const usage of usages) {
    if (usage !== 'rowwise' && usage !== 'columnwise') throw new CliError(`--usage ${JSON.stringify(options.usage)}: expected rowwise, columnwise or both`);
  }
  const common: Omit<TensorFormat, 'shape'> = {
    dtype: options.dtype as DType,
    recipe: options.recipe as Recipe,
    rowwise: usages.includes('rowwise'),
    columnwise: usages.includes('columnwise'),
    arch: (options.arch as Arch | undefined) ?? defaultArch(options.recipe as Recipe),
    options: {
      gemmSwizzledScales: options.swizzled === true,
      nvfp4RowScaled: options.rowScaled === true,
      nvfp4Hadamard: options.hadamard === true,
      pow2Scales: options.pow2 === true,
      fp8Dtype: options.fp8 === 'e5m2' ? 'fp8_e5m2' : 'fp8_e4m3',
    },
  };
  if (options.grouped !== undefined) return describeGrouped(options, common);
  const format: TensorFormat = { shape: parseShape(options.shape!), ...common };
  const tp = await init({ backend: options.backend ?? 'auto' });
  const spec = tp.tensorSpecBuffers(format);
  if (options.json) {
    console.log(JSON.stringify({ backend: tp.backend, format, ...spec }, null, 2));
    return 0;
  }
  const table = new Table({ head: ['#', 'buffer', 'shape', 'dtype', 'element', 'bytes', 'align', 'usage'], style: tableStyle() });
  spec.buffers.forEach((b, i) => {
    table.push([i, b.name, `[${b.shape.join(', ')}]`, b.dtype, b.element, b.bytes, b.alignment, b.usages.join('+')]);
  });
  console.log(`${format.recipe} [${format.shape.join(', ')}] ${format.dtype}, ${usages.join('+')}, ${format.arch}: ${spec.tensorClass}, backend ${tp.backend}`);
  console.log(table.toString());
  console.log(`total: ${formatBytes(spec.totalBytes)}`);
  // TE consults is_quantizable for quantized all-gather (distributed.py), not in its modules.
  if (!spec.quantizable) console.log(`note: TE's is_quantizable is false (all-gather stays in high precision): ${spec.quantizableReason}`);
  if (spec.quantizeRefusal !== '') console.log(`note: TE's quantize refuses this output: ${spec.quantizeRefusal}`);
  return 0;
}
