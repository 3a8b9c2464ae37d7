// One layer of a spec, by kind, as the TE module it stands for
// (TransformerEngine d0067d0da6, transformer_engine/pytorch/): `linear`
// (module/linear.py Linear), `layernormLinear` (module/layernorm_linear.py),
// `layernormMLP` (module/layernorm_mlp.py), `attention`
// (attention/multi_head_attention.py), `transformer` (transformer.py
// TransformerLayer: attention and MLP or MoE, each behind a residual add),
// `moe` (a MoE block behind a residual add) and `groupedLinear`
// (module/grouped_linear.py). Each returns its output and its backward.
import type { LayerEntry } from '../layer-spec.js';
import { attentionBlock } from './attention.js';
import { type GraphState, invalid } from './graph-state.js';
import { groupedLinear, splitEven } from './grouped-linear.js';
import { layerNormLinear } from './layernorm-linear.js';
import { layerNormMlp } from './layernorm-mlp.js';
import { linear } from './linear.js';
import { moeBlock } from './moe.js';
import type { Act, Bwd } from './values.js';

/** A residual add; its backward adds the branch's input gradient to the output gradient, in place. */
function residual(g: GraphState, module: string, x: Act, branch: Act): { y: Act; bwd: (dy: Act, dBranchInput: Act) => Act } {
  const y = g.hp(`${module}.out`, x.rows, x.cols, module, 'activation');
  g.op(`${module}.fwd`, 'add', [x.name, branch.name], [y]);
  return {
    y: { name: y, rows: x.rows, cols: x.cols },
    bwd: (dy, dBranchInput) => {
      const dx = g.hp(`${module}.grad_in`, x.rows, x.cols, module, 'gradient');
      g.op(`${module}.bwd`, 'add', [dy.name, dBranchInput.name], [dx]);
      g.writer.inPlace(dx, dBranchInput.name!);
      return { name: dx, rows: x.rows, cols: x.cols };
    },
  };
}

/** The forward of one layer entry on `x`, and its backward. */
export function layerForward(g: GraphState, entry: LayerEntry, x: Act): { y: Act; bwd: Bwd } {
  const m = g.spec.model;
  const normKind = ('normalization' in entry ? entry.normalization : undefined) ?? 'layernorm';
  switch (entry.kind) {
    case 'linear': {
      const out = entry.parallel === 'column' ? entry.outFeatures / g.tp : entry.outFeatures;
      return linear(g, { module: 'linear', x, out, parallel: entry.parallel ?? 'none', bias: entry.bias, unit: 'dense' });
    }
    case 'layernormLinear': {
      const out = entry.parallel === 'column' ? entry.outFeatures / g.tp : entry.outFeatures;
      return layerNormLinear(g, {
        normModule: 'ln', module: 'linear', x, normalization: normKind, out, parallel: entry.parallel ?? 'none', bias: entry.bias,
      });
    }
    case 'layernormMLP':
      return layerNormMlp(g, x, normKind, entry.activation ?? 'gelu', entry.ffn ?? m.ffn);
    case 'attention':
      return attentionBlock(g, x, normKind, entry);
    case 'transformer': {
      const attn = attentionBlock(g, x, normKind, entry.attention ?? {});
      const r1 = residual(g, 'res1', x, attn.y);
      const mlp = entry.moe
        ? moeBlock(g, r1.y, normKind, entry.activation ?? 'swiglu', m.ffn, entry.moe)
        : layerNormMlp(g, r1.y, normKind, entry.activation ?? 'gelu', m.ffn);
      const r2 = residual(g, 'res2', r1.y, mlp.y);
      return {
        y: r2.y,
        bwd: (dy) => {
          const dh1 = r2.bwd(dy, mlp.bwd(dy));
          return r1.bwd(dh1, attn.bwd(dh1));
        },
      };
    }
    case 'moe': {
      const blk = moeBlock(g, x, normKind, entry.activation ?? 'swiglu', entry.ffn ?? m.ffn, entry);
      const r = residual(g, 'res', x, blk.y);
      return { y: r.y, bwd: (dy) => r.bwd(dy, blk.bwd(dy)) };
    }
    case 'groupedLinear': {
      const splits = entry.tokensPerGroup ?? splitEven(x.rows, entry.groups, 32);
      if (splits.reduce((a, b) => a + b, 0) !== x.rows) invalid(`${g.layer}: tokensPerGroup adds up to ${splits.reduce((a, b) => a + b, 0)}, expected ${x.rows} rows`);
      return groupedLinear(g, 'grouped', x, splits, entry.outFeatures, 'experts');
    }
  }
}
