// Values of the symbols in symbolic sizes: bound by the caller (`--input s77=512`, options.dims,
// or a user input's whole shape `--input x=8x64`), otherwise the hint torch.export recorded from
// the example inputs (SymExpr.hint, schema.py), which the import result reports as defaulted.
// Every value is checked against range_constraints (serialize_range_constraints in serialize.py:
// min_val/max_val, null for an infinite bound).
import { TensorplanError } from '../../errors.js';
import type { ExportedProgramJson, SymInt } from './export-schema.js';
import { evalSymExpr, parseSymExpr, symbolsOf } from './sym-expr.js';
import type { SymNode } from './sym-expr.js';

export class SymbolValues {
  /** Values given by the caller. */
  readonly bound = new Map<string, number>();
  /** Symbols that took the export's hint, with the value used. */
  readonly defaulted = new Map<string, number>();
  /** Hints of symbols that appear alone as a size (`Symbol('s77', ...)` with hint 512). */
  private readonly hints = new Map<string, number>();
  private readonly parsed = new Map<string, SymNode>();

  constructor(private readonly program: ExportedProgramJson, private readonly source: string) {
    for (const [name, meta] of Object.entries(program.graph_module.graph.tensor_values)) {
      for (const [i, s] of (meta.sizes ?? []).entries()) {
        if (!('as_expr' in s)) continue;
        const node = this.parse(s.as_expr.expr_str, `graph.tensor_values.${name}.sizes[${i}].as_expr.expr_str`);
        const hint = s.as_expr.hint?.as_int;
        if (node.kind === 'symbol' && typeof hint === 'number') this.hints.set(node.name, hint);
      }
    }
  }

  /** Every symbol that has a hint of its own (those a caller may bind). */
  symbols(): string[] {
    return [...this.hints.keys()];
  }

  parse(text: string, where: string): SymNode {
    let node = this.parsed.get(text);
    if (!node) this.parsed.set(text, (node = parseSymExpr(text, where)));
    return node;
  }

  /** A size, stride or offset as a number; `where` names the field (graph.tensor_values.x.sizes[0]). */
  value(s: SymInt | undefined, where: string): number {
    if (s === undefined || s === null || typeof s !== 'object') {
      throw new TensorplanError('INVALID_ARGUMENT', `${this.source}: ${where} = ${JSON.stringify(s)}: must be a SymInt ({"as_int": N} or {"as_expr": {...}})`);
    }
    if ('as_int' in s) {
      if (typeof s.as_int !== 'number' || !Number.isSafeInteger(s.as_int)) throw new TensorplanError('INVALID_ARGUMENT', `${this.source}: ${where}.as_int = ${JSON.stringify(s.as_int)}: must be an integer`);
      return s.as_int;
    }
    if (!('as_expr' in s) || typeof s.as_expr?.expr_str !== 'string') {
      throw new TensorplanError('INVALID_ARGUMENT', `${this.source}: ${where} = ${JSON.stringify(s)}: must be a SymInt ({"as_int": N} or {"as_expr": {"expr_str": ...}})`);
    }
    const text = s.as_expr.expr_str;
    const node = this.parse(text, `${this.source}: ${where}.as_expr.expr_str`);
    const names = symbolsOf(node);
    const values: Record<string, number> = {};
    const unknown: string[] = [];
    for (const name of names) {
      const v = this.bound.get(name) ?? this.hints.get(name);
      if (v === undefined) unknown.push(name);
      else values[name] = v;
    }
    let result: number;
    if (unknown.length === 0) {
      for (const name of names) if (!this.bound.has(name)) this.defaulted.set(name, values[name]);
      result = evalSymExpr(node, values, `${this.source}: ${where} = ${text}`);
    } else {
      // A symbol that never appears alone: its expression's own hint, unless the caller bound
      // another symbol of it (the hint would then describe other sizes).
      const hint = s.as_expr.hint?.as_int;
      if (typeof hint !== 'number' || names.some((n) => this.bound.has(n))) {
        throw new TensorplanError('INVALID_ARGUMENT', `${this.source}: ${where} = ${text}: symbol ${unknown.join(', ')} has no value and ${typeof hint === 'number' ? 'another symbol of the expression is bound, so its hint does not apply' : 'the expression has no hint'}: bind it with --input ${unknown[0]}=N (API: dims: { ${unknown[0]}: N })`);
      }
      for (const name of unknown) if (!this.defaulted.has(name)) this.defaulted.set(name, NaN);
      result = hint;
    }
    if (!Number.isSafeInteger(result) || result < 0) {
      throw new TensorplanError('INVALID_ARGUMENT', `${this.source}: ${where} = ${text} evaluates to ${result} with ${Object.entries(values).map(([k, v]) => `${k}=${v}`).join(', ')}: a size must be an integer >= 0`);
    }
    return result;
  }

  /** Checks every bound and defaulted value against range_constraints. */
  checkRanges(): void {
    const ranges = this.program.range_constraints ?? {};
    for (const [name, value] of [...this.bound, ...this.defaulted]) {
      if (Number.isNaN(value)) continue;
      const range = Object.hasOwn(ranges, name) ? ranges[name] : undefined;
      if (!range) continue;
      const low = range.min_val ?? -Infinity, high = range.max_val ?? Infinity;
      if (value < low || value > high) {
        const given = this.bound.has(name) ? `--input ${name}=${value}` : `the hint ${name}=${value}`;
        throw new TensorplanError('INVALID_ARGUMENT', `${this.source}: ${given}: range_constraints.${name} allows ${Number.isFinite(low) ? low : '-inf'}..${Number.isFinite(high) ? high : 'inf'} (the dynamic shapes the program was exported with)`);
      }
    }
  }
}
