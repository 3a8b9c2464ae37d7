// Resource limits of a layer spec, checked before any tensor is built: a
// 200-byte spec could otherwise ask for 2^30 groups (V8 dies building the
// split) or 2^20 experts (minutes of building). The counts below are upper
// bounds of what layer-graph.ts and layer-graph/ generate per layer copy,
// measured over every recipe with recomputation on (the largest case: NVFP4,
// unfused attention), rounded up; the limits are what a plan of this project
// is sized for.
import { TensorplanError } from '../../errors.js';

// The fields read here, stated locally so layer-spec.ts (which calls this) is not imported back.
interface SizedEntry {
  kind: 'linear' | 'layernormLinear' | 'layernormMLP' | 'attention' | 'transformer' | 'moe' | 'groupedLinear';
  repeat?: number;
  groups?: number;
  experts?: number;
  moe?: { experts: number };
}
interface SizedSpec {
  model: { hidden: number; ffn: number; heads: number; headDim?: number; sequence: number; microBatch: number };
  layers: readonly SizedEntry[];
}

/** Most tensors a layer spec may generate (2^17; a 32-layer Llama-3 step is about 7,000). */
export const MAX_LAYER_GRAPH_TENSORS = 131072;
/** Most ops a layer spec may generate (2^17). */
export const MAX_LAYER_GRAPH_OPS = 131072;
/** Most elements one tensor may have: its bytes must stay exact integers (<= 2^53) at fp32. */
export const MAX_TENSOR_ELEMENTS = 2 ** 51;

/** Upper bounds per layer copy: [tensors, ops] before experts/groups, and per expert or group. */
const PER_KIND: Record<SizedEntry['kind'], { base: [number, number]; perUnit: [number, number] }> = {
  linear: { base: [50, 12], perUnit: [0, 0] },
  layernormLinear: { base: [70, 14], perUnit: [0, 0] },
  layernormMLP: { base: [120, 25], perUnit: [0, 0] },
  attention: { base: [140, 40], perUnit: [0, 0] },
  transformer: { base: [260, 80], perUnit: [80, 6] },
  moe: { base: [160, 50], perUnit: [80, 6] },
  groupedLinear: { base: [50, 12], perUnit: [40, 4] },
};

function fail(source: string, message: string): never {
  throw new TensorplanError('INVALID_ARGUMENT', `${source}: ${message}`);
}

/** Experts or groups of one entry (the per-unit multiplier), 0 where none. */
function unitsOf(entry: SizedEntry): { units: number; field: string } {
  if (entry.kind === 'groupedLinear') return { units: entry.groups ?? 0, field: 'groups' };
  if (entry.kind === 'moe') return { units: entry.experts ?? 0, field: 'experts' };
  if (entry.kind === 'transformer' && entry.moe) return { units: entry.moe.experts, field: 'moe.experts' };
  return { units: 0, field: '' };
}

/**
 * Refuses a (schema-valid) layer spec whose graph would exceed the limits,
 * from its fields alone: INVALID_ARGUMENT naming the field, its value and the
 * limit. Runs in time linear in the number of entries.
 */
export function checkLayerSpecLimits(spec: SizedSpec, source: string): void {
  const m = spec.model;
  const tokens = m.sequence * m.microBatch;
  // The widest activations: FC1 of a gated MLP, QKV, the unfused attention scores.
  const widths: [string, number, number][] = [
    ['model.hidden', m.hidden, m.hidden], ['model.ffn', m.ffn, 2 * m.ffn],
    ['model.heads', m.heads, 3 * m.heads * (m.headDim ?? m.hidden / m.heads)], ['model.sequence', m.sequence, m.heads * m.sequence],
  ];
  for (const [field, value, width] of widths) {
    if (tokens * width > MAX_TENSOR_ELEMENTS) {
      fail(source, `${field} = ${value}: a tensor of ${tokens} rows (model.sequence * model.microBatch) by ${width} would have ${tokens * width} elements, more than the limit ${MAX_TENSOR_ELEMENTS}`);
    }
  }
  let tensors = 4;
  let ops = 2;
  spec.layers.forEach((entry, i) => {
    const at = `layers[${i}]`;
    const cost = PER_KIND[entry.kind];
    if (!cost) return;
    const { units, field } = unitsOf(entry);
    const repeat = entry.repeat ?? 1;
    const perCopy: [number, number] = [cost.base[0] + cost.perUnit[0] * units, cost.base[1] + cost.perUnit[1] * units];
    const names = ['tensors', 'ops'] as const;
    const limits = [MAX_LAYER_GRAPH_TENSORS, MAX_LAYER_GRAPH_OPS];
    for (let k = 0; k < 2; k++) {
      // The field that multiplies: the experts or groups when one copy alone is over, else the repeat.
      if (perCopy[k] > limits[k]) {
        fail(source, `${at}.${field} = ${units}: one copy of this layer would generate about ${perCopy[k]} ${names[k]}, more than the limit ${limits[k]}`);
      }
    }
    tensors += perCopy[0] * repeat;
    ops += perCopy[1] * repeat;
    for (const [k, total] of [tensors, ops].entries()) {
      if (total > limits[k]) {
        fail(source, `${at}.repeat = ${repeat}: the spec would generate about ${total} ${names[k]} up to this entry, more than the limit ${limits[k]}`);
      }
    }
  });
}
