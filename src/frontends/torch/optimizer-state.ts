// What a training step's optimizer keeps for each parameter between steps, added to an imported
// program as persistent memory (the program itself holds none of it: torch.export captures the
// step's forward and backward, not the optimizer).
//
// The states, as torch 2.13 creates them on the first step:
// - SGD without momentum keeps nothing; with momentum one buffer per parameter
//   (torch/optim/sgd.py, `_init_group`: state["momentum_buffer"], a clone of the gradient);
// - Adam and AdamW keep two (torch/optim/adam.py, `_init_group`: state["exp_avg"] and
//   state["exp_avg_sq"], `torch.zeros_like(p, memory_format=torch.preserve_format)`); their
//   `step` counter is a CPU scalar unless the optimizer is fused or capturable, so no device memory.
// A parameter stored in a 16-bit or 8-bit float type trains against an fp32 master copy, and the
// optimizer's states are fp32 then, as layer specs model it (TransformerEngine d0067d0da6,
// transformer_engine/pytorch/optimizers/fused_adam.py `FusedAdam`: master_weights, exp_avg,
// exp_avg_sq in fp32). An fp32 parameter has no master copy and states of its own type.
import type { DType } from '../../formats/dtype.js';

/**
 * The optimizer of a training step: `sgd` (no momentum), `momentum` (SGD with momentum), `adam`
 * or `adamw` (the same states as Adam).
 *
 * @group Files
 */
export type TorchOptimizer = 'sgd' | 'momentum' | 'adam' | 'adamw';

export const TORCH_OPTIMIZERS: readonly TorchOptimizer[] = ['sgd', 'momentum', 'adam', 'adamw'];

/** The states per parameter, by name (suffixes of the parameter's name). */
const STATES: Readonly<Record<TorchOptimizer, readonly string[]>> = {
  sgd: [],
  momentum: ['momentum_buffer'],
  adam: ['exp_avg', 'exp_avg_sq'],
  adamw: ['exp_avg', 'exp_avg_sq'],
};

/** Float types narrower than fp32, which train against an fp32 master copy. */
const LOW_PRECISION: ReadonlySet<DType> = new Set<DType>(['fp16', 'bf16', 'fp8_e4m3', 'fp8_e5m2']);

/** A parameter of the program: its placeholder's name, sizes, element type and element size. */
export interface ParameterShape { name: string; sizes: number[]; dtype: DType; itemBytes: number }

/** One persistent tensor the optimizer keeps, with its exact bytes. */
export interface OptimizerTensor {
  name: string; shape: number[]; dtype: DType; bytes: number; category: 'master weights' | 'optimizer state';
}

/**
 * The tensors `optimizer` keeps for `parameters`. `masterWeights` (default: true) gives each
 * low-precision parameter an fp32 master copy; fp32 and fp64 parameters never get one.
 */
export function optimizerTensors(parameters: readonly ParameterShape[], optimizer: TorchOptimizer, masterWeights = true): OptimizerTensor[] {
  const out: OptimizerTensor[] = [];
  for (const p of parameters) {
    const elements = p.sizes.reduce((a, b) => a * b, 1);
    const master = masterWeights && LOW_PRECISION.has(p.dtype);
    if (master) out.push({ name: `${p.name}.master`, shape: [...p.sizes], dtype: 'fp32', bytes: elements * 4, category: 'master weights' });
    const [stateType, stateBytes]: [DType, number] = master ? ['fp32', 4] : [p.dtype, p.itemBytes];
    for (const state of STATES[optimizer]) {
      out.push({ name: `${p.name}.${state}`, shape: [...p.sizes], dtype: stateType, bytes: elements * stateBytes, category: 'optimizer state' });
    }
  }
  return out;
}
