import Table from 'cli-table3';
import { init } from '../index.js';
import type { Arch, BackendChoice, DType, Recipe, TensorFormat } from '../index.js';
import { CliError } from './exit-codes.js';
import { formatBytes } from './format.js';

/** Options of `tensorplan describe`. */
export interface DescribeOptions {
  shape: string;
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

/** `tensorplan describe`: the TE inner buffers of a quantized tensor format (FORMATS.md §2). */
export async function describeCommand(options: DescribeOptions): Promise<number> {
  const usages = options.usage.split(',').map((u) => u.trim());
  for (const usage of usages) {
    if (usage !== 'rowwise' && usage !== 'columnwise') throw new CliError(`--usage ${JSON.stringify(options.usage)}: expected rowwise, columnwise or both`);
  }
  const format: TensorFormat = {
    shape: parseShape(options.shape),
    dtype: options.dtype as DType,
    recipe: options.recipe as Recipe,
    rowwise: usages.includes('rowwise'),
    columnwise: usages.includes('columnwise'),
    arch: options.arch as Arch,
    options: {
      gemmSwizzledScales: options.swizzled === true,
      nvfp4RowScaled: options.rowScaled === true,
      nvfp4Hadamard: options.hadamard === true,
      pow2Scales: options.pow2 === true,
      fp8Dtype: options.fp8 === 'e5m2' ? 'fp8_e5m2' : 'fp8_e4m3',
    },
  };
  const tp = await init({ backend: options.backend ?? 'auto' });
  const spec = tp.tensorSpecBuffers(format);
  if (options.json) {
    console.log(JSON.stringify({ backend: tp.backend, format, ...spec }, null, 2));
    return 0;
  }
  const table = new Table({ head: ['#', 'buffer', 'shape', 'dtype', 'element', 'bytes', 'align', 'usage'] });
  spec.buffers.forEach((b, i) => {
    table.push([i, b.name, `[${b.shape.join(', ')}]`, b.dtype, b.element, b.bytes, b.alignment, b.usages.join('+')]);
  });
  console.log(`${format.recipe} [${format.shape.join(', ')}] ${format.dtype}, ${usages.join('+')}, ${format.arch}: ${spec.tensorClass}, backend ${tp.backend}`);
  console.log(table.toString());
  console.log(`total: ${formatBytes(spec.totalBytes)}`);
  if (!spec.quantizable) console.log(`note: TE keeps this tensor in high precision: ${spec.quantizableReason}`);
  return 0;
}
