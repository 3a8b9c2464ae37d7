// Composite ops of the training IR (torch.export.export without run_decompositions) run as several
// kernels, and some allocate tensors the graph does not show, live only while the op runs. They
// become the op's workspace: the most bytes of such tensors alive at once, beyond the op's own
// output (each block rounded up to the alignment). Read from torch 2.13's implementations and
// checked against the ops that scripts/torch/measure_eager.py's TorchDispatchMode sees on CPU:
// - batch_norm in training -> native_batch_norm (aten/src/ATen/native/Normalization.cpp,
//   _batch_norm_impl_index) also returns save_mean and save_invstd, [C];
// - layer_norm -> native_layer_norm (aten/src/ATen/native/layer_norm.cpp, layer_norm_symint) also
//   returns mean and rstd, one per normalized row;
// - group_norm -> native_group_norm (aten/src/ATen/native/group_norm.cpp, group_norm) also
//   returns mean and rstd, [N, num_groups];
// - instance_norm (Normalization.cpp, instance_norm) repeats weight, bias, running_mean and
//   running_var N times ([N*C] each, those given) and runs batch_norm on the input viewed as
//   [1, N*C, ...], whose save_mean and save_invstd ([N*C]) exist when use_input_stats is true;
// - rms_norm on CPU runs rms_norm_composite (layer_norm.cpp): x in the op-math type (a copy for
//   16-bit floats), pow(x, 2), its mean per row, rsqrt, x * rsqrt, times weight, and type_as(input)
//   (a copy for 16-bit floats);
// - cross_entropy_loss with class indices and no label smoothing (aten/src/ATen/native/LossNLL.cpp,
//   cross_entropy_loss_symint) is nll_loss_nd(log_softmax(self)): log_softmax is as large as self,
//   and nll_loss_forward also returns total_weight, a scalar of self's type;
// - scaled_dot_product_attention on CPU -> _scaled_dot_product_flash_attention_for_cpu
//   (aten/src/ATen/native/transformers/attention.cpp), which also returns logsumexp, [B, H, L]
//   float. On CUDA the kernel is chosen at run time (flash, efficient, cuDNN, math) and computes
//   logsumexp only when the inputs require grad, so nothing is added there;
// - dropout in training (aten/src/ATen/native/Dropout.cpp): on CUDA native_dropout also returns a
//   bool mask of the input's shape; on CPU _dropout_impl makes a noise tensor of the input's shape
//   and type (is_fused_kernel_acceptable is false there).
// The normalizations' statistics on CPU have param_scalar_type(input, mixed_type)
// (aten/src/ATen/native/mixed_type.h): float when a 16-bit float input has float weight, bias or
// running statistics, else the input's type (bfloat16 statistics for bfloat16 throughout). On
// CUDA they are in the accumulation type (at::acc_type: float for 16-bit floats).
import type { ExportNode } from './export-schema.js';
import { argTensors, targetKey } from './op-effects.js';

/** A tensor's sizes and element size, as the importer resolved them. */
export interface ResolvedMeta { sizes: number[]; itemBytes: number; device: string }

const roundUp = (n: number, a: number) => Math.ceil(n / a) * a;
/** Accumulation type size (at::opmath_type): float for 16-bit and 8-bit floats, else the type itself. */
const accBytes = (item: number) => Math.max(item, 4);
const product = (xs: number[]) => xs.reduce((a, b) => a * b, 1);

/** Element size of a normalization's statistics (see param_scalar_type above). */
function statBytes(x: ResolvedMeta, params: (ResolvedMeta | undefined)[]): number {
  if (x.device !== 'cpu') return accBytes(x.itemBytes);
  const mixed = x.itemBytes === 2 && params.some((p) => p !== undefined && p.itemBytes === 4);
  return mixed ? 4 : x.itemBytes;
}

/**
 * The workspace of an op that allocates `phases` of hidden tensors one after the other: the most
 * bytes alive in any phase (each block rounded), less the op's own output, which the graph already
 * holds while the op runs. A phase lists the blocks alive together, `output` among them where the
 * output exists by then.
 */
function phasedWorkspace(phases: number[][], output: number, alignment: number): number {
  const most = Math.max(0, ...phases.map((blocks) => blocks.reduce((sum, b) => sum + roundUp(b, alignment), 0)));
  return Math.max(0, most - roundUp(output, alignment));
}

/** The workspace bytes of a node's hidden tensors, each rounded up to `alignment`; 0 for other ops. */
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
      const stat = x && statBytes(x, ['weight', 'bias', 'running_mean', 'running_var'].map(input));
      if (x && stat && flag('training') && x.sizes.length >= 2) blocks.push(x.sizes[1] * stat, x.sizes[1] * stat);
      break;
    }
    case 'layer_norm': {
      const x = input('input');
      const normalized = (arg('normalized_shape')?.as_ints as number[] | undefined)?.length ?? 1;
      if (x) {
        const rows = product(x.sizes.slice(0, x.sizes.length - normalized));
        const stat = statBytes(x, [input('weight'), input('bias')]);
        blocks.push(rows * stat, rows * stat);
      }
      break;
    }
    case 'group_norm': {
      const x = input('input');
      const groups = arg('num_groups')?.as_int as number | undefined;
      if (x && groups !== undefined && x.sizes.length >= 1) {
        const stat = statBytes(x, [input('weight'), input('bias')]);
        blocks.push(x.sizes[0] * groups * stat, x.sizes[0] * groups * stat);
      }
      break;
    }
    case 'instance_norm': {
      const x = input('input');
      if (x && x.sizes.length >= 2) {
        const channels = x.sizes[0] * x.sizes[1];
        const params = ['weight', 'bias', 'running_mean', 'running_var'].map(input);
        for (const p of params) if (p) blocks.push(channels * p.itemBytes);
        if (flag('use_input_stats')) { const stat = statBytes(x, params); blocks.push(channels * stat, channels * stat); }
      }
      break;
    }
    case 'rms_norm': {
      const x = input('input');
      const normalized = (arg('normalized_shape')?.as_ints as number[] | undefined)?.length ?? 1;
      if (!x || x.device !== 'cpu') return 0;
      const op = accBytes(x.itemBytes);
      const count = product(x.sizes);
      const full = count * op;
      const rows = product(x.sizes.slice(0, x.sizes.length - normalized)) * op;
      const upcast = x.itemBytes === op ? [] : [full];
      const weighted = input('weight') !== undefined;
      const output = count * x.itemBytes;
      // With a float input the last op-math result is the output itself; else type_as copies it.
      const phases = [
        [...upcast, full, rows, rows], // pow(x, 2), its mean, rsqrt(mean + eps)
        [...upcast, rows, full], // x * rsqrt
        ...(weighted ? [[...upcast, rows, full, full]] : []), // (x * rsqrt) * weight
        ...(upcast.length ? [[rows, full, output]] : []), // type_as(input), after x's upcast is freed
      ];
      return phasedWorkspace(phases, output, alignment);
    }
    case 'cross_entropy_loss': {
      const x = input('self');
      const target = input('target');
      const smoothing = arg('label_smoothing')?.as_float as number | undefined;
      // Class indices: the target has one dimension fewer than self (same sizes: probabilities).
      if (x && target && target.sizes.length !== x.sizes.length && !(smoothing && smoothing > 0)) {
        blocks.push(product(x.sizes) * x.itemBytes, x.itemBytes);
      }
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

/**
 * Why a node's hidden tensors are not counted, where PyTorch runs it as a chain of ops that the
 * workspace above does not follow; undefined where they are counted (or there are none).
 * cross_entropy_loss with label smoothing or with class probabilities (LossNLL.cpp,
 * cross_entropy_loss_label_smoothing and cross_entropy_loss_prob_target) runs log_softmax, then
 * products, sums and negations whose sizes and lifetimes depend on the reduction and the weights.
 */
export function uncountedHiddenTemporaries(node: ExportNode, metaOf: (tensor: string) => ResolvedMeta | undefined): string | undefined {
  const { namespace, key } = targetKey(node.target);
  if (namespace !== 'aten' || key !== 'cross_entropy_loss') return undefined;
  const arg = (name: string) => node.inputs.find((i) => i.name === name)?.arg;
  const tensor = (name: string) => { const t = argTensors(arg(name))[0]; return t === undefined ? undefined : metaOf(t); };
  const x = tensor('self');
  const target = tensor('target');
  const smoothing = arg('label_smoothing')?.as_float as number | undefined;
  const probabilities = x !== undefined && target !== undefined && target.sizes.length === x.sizes.length;
  if (!probabilities && !(smoothing && smoothing > 0)) return undefined;
  return `${node.target}: ${probabilities ? 'class probabilities' : 'label smoothing'}: the temporaries PyTorch makes inside it `
    + '(log_softmax, products, sums) are not counted; export with run_decompositions (core ATen) to see them as graph values';
}
