// Composite ops of the training IR (torch.export.export without run_decompositions) run as several
// kernels, and some allocate outputs the graph does not show, live only while the op runs. They
// become the op's workspace (one aligned block each). Read from torch 2.13's implementations:
// - batch_norm in training -> native_batch_norm (aten/src/ATen/native/Normalization.cpp,
//   _batch_norm_impl_index) also returns save_mean and save_invstd, [C] in the accumulation type;
// - layer_norm -> native_layer_norm (aten/src/ATen/native/layer_norm.cpp, layer_norm_symint) also
//   returns mean and rstd, one per normalized row, in the accumulation type;
// - scaled_dot_product_attention on CPU -> _scaled_dot_product_flash_attention_for_cpu
//   (aten/src/ATen/native/transformers/attention.cpp), which also returns logsumexp, [B, H, L]
//   float. On CUDA the kernel is chosen at run time (flash, efficient, cuDNN, math) and computes
//   logsumexp only when the inputs require grad, so nothing is added there;
// - dropout in training (aten/src/ATen/native/Dropout.cpp): on CUDA native_dropout also returns a
//   bool mask of the input's shape; on CPU _dropout_impl makes a noise tensor of the input's shape
//   and type (is_fused_kernel_acceptable is false there).
import type { ExportNode } from './export-schema.js';
import { argTensors, targetKey } from './op-effects.js';

/** A tensor's sizes and element size, as the importer resolved them. */
export interface ResolvedMeta { sizes: number[]; itemBytes: number; device: string }

const roundUp = (n: number, a: number) => Math.ceil(n / a) * a;
/** Accumulation type size (at::opmath_type): float for 16-bit and 8-bit floats, else the type itself. */
const accBytes = (item: number) => Math.max(item, 4);
const product = (xs: number[]) => xs.reduce((a, b) => a * b, 1);

/** The workspace bytes of a node's hidden outputs, each rounded up to `alignment`; 0 for other ops. */
export function hiddenTemporaryBytes(node: ExportNode, metaOf: (tensor: string) => ResolvedMeta | undefined, alignment: number): number {
  const { namespace, key } = targetKey(node.target);
  if (namespace !== 'aten') return 0;
  const arg = (name: string) => node.inputs.find((i) => i.name === name)?.arg;
  const input = (name: string) => { const t = argTensors(arg(name))[0]; return t === undefined ? undefined : metaOf(t); };
  const flag = (name: string) => arg(name)?.as_bool === true;
  const blocks: number[] = [];
  switch (key) {
    case 'batch_norm': {
      const x = input('input');
      if (x && flag('training') && x.sizes.length >= 2) blocks.push(x.sizes[1] * accBytes(x.itemBytes), x.sizes[1] * accBytes(x.itemBytes));
      break;
    }
    case 'layer_norm': {
      const x = input('input');
      const normalized = (arg('normalized_shape')?.as_ints as number[] | undefined)?.length ?? 1;
      if (x) { const rows = product(x.sizes.slice(0, x.sizes.length - normalized)); blocks.push(rows * accBytes(x.itemBytes), rows * accBytes(x.itemBytes)); }
      break;
    }
    case 'scaled_dot_product_attention': {
      const q = input('query');
      if (q && q.device === 'cpu' && q.sizes.length >= 2) blocks.push(product(q.sizes.slice(0, -1)) * 4);
      break;
    }
    case 'dropout': {
      const x = input('input');
      const p = arg('p')?.as_float as number | undefined;
      if (x && flag('train') && p !== undefined && p > 0 && p < 1) blocks.push(product(x.sizes) * (x.device === 'cpu' ? x.itemBytes : 1));
      break;
    }
  }
  return blocks.reduce((sum, b) => sum + roundUp(b, alignment), 0);
}
