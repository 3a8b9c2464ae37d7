// Symbolic sizes: torch.export writes each symbolic size as sympy's srepr text (serialize.py,
// _print_sympy -> sympy.printing.repr.srepr), e.g.
// `Add(Symbol('s17', positive=True, integer=True), Mul(Integer(2), Symbol('s77', ...)))`, with the
// functions of torch/utils/_sympy/functions.py (FloorDiv, PythonMod/Mod, Max, Min, CleanDiv, ...).
// This file parses that text and evaluates it over integer symbol values.
import { TensorplanError } from '../../errors.js';

export type SymNode =
  | { kind: 'int'; value: number }
  | { kind: 'rational'; p: number; q: number }
  | { kind: 'symbol'; name: string }
  | { kind: 'call'; fn: string; args: SymNode[] };

/** Parses srepr text; `where` names the field for errors. */
export function parseSymExpr(text: string, where: string): SymNode {
  let i = 0;
  const fail = (why: string): never => {
    throw new TensorplanError('INVALID_ARGUMENT', `${where} = ${JSON.stringify(text)}: not a sympy expression this importer reads: ${why} at character ${i}`);
  };
  const space = () => { while (i < text.length && /\s/.test(text[i])) i++; };
  const word = (): string => {
    space();
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
    if (!m) fail('expected a name');
    i += m![0].length;
    return m![0];
  };
  const expect = (ch: string) => {
    space();
    if (text[i] !== ch) fail(`expected "${ch}"`);
    i++;
  };
  const literal = (): string | number => {
    space();
    if (text[i] === "'" || text[i] === '"') {
      const quote = text[i++];
      const end = text.indexOf(quote, i);
      if (end < 0) fail('unterminated string');
      const s = text.slice(i, end);
      i = end + 1;
      return s;
    }
    const m = /^[-+]?\d+/.exec(text.slice(i));
    if (m) { i += m[0].length; return Number(m[0]); }
    return word(); // True / False and other keyword values
  };
  const node = (): SymNode => {
    const fn = word();
    expect('(');
    const positional: (SymNode | string | number)[] = [];
    space();
    while (text[i] !== ')') {
      space();
      const save = i;
      // keyword argument (positive=True): skipped
      const kw = /^[A-Za-z_][A-Za-z0-9_]*\s*=/.exec(text.slice(i));
      if (kw) { i += kw[0].length; literal(); }
      else if (/^[A-Z][A-Za-z0-9_]*\s*\(/.test(text.slice(i))) positional.push(node());
      else { i = save; positional.push(literal()); }
      space();
      if (text[i] === ',') i++;
      else if (text[i] !== ')') fail('expected "," or ")"');
      space();
    }
    i++;
    if (fn === 'Integer') {
      if (typeof positional[0] !== 'number') fail('Integer takes a number');
      return { kind: 'int', value: positional[0] as number };
    }
    if (fn === 'Rational') return { kind: 'rational', p: positional[0] as number, q: positional[1] as number };
    if (fn === 'Symbol') {
      if (typeof positional[0] !== 'string') fail('Symbol takes a name');
      return { kind: 'symbol', name: positional[0] as string };
    }
    if (fn === 'NegativeOne') return { kind: 'int', value: -1 };
    if (fn === 'One') return { kind: 'int', value: 1 };
    if (fn === 'Zero') return { kind: 'int', value: 0 };
    if (fn === 'Half') return { kind: 'rational', p: 1, q: 2 };
    return { kind: 'call', fn, args: positional.map((a) => (typeof a === 'object' ? a : fail(`${fn} takes expressions`))) as SymNode[] };
  };
  space();
  // A bare integer (srepr of a plain int) is allowed too.
  if (/^[-+]?\d+\s*$/.test(text)) return { kind: 'int', value: Number(text.trim()) };
  const result = node();
  space();
  if (i !== text.length) fail('unexpected text after the expression');
  return result;
}

/** The symbols an expression names, in first-seen order. */
export function symbolsOf(n: SymNode, into: string[] = []): string[] {
  if (n.kind === 'symbol' && !into.includes(n.name)) into.push(n.name);
  if (n.kind === 'call') for (const a of n.args) symbolsOf(a, into);
  return into;
}

/**
 * Evaluates an expression with integer symbol values. Functions follow sympy and
 * torch/utils/_sympy/functions.py (torch 2.13): FloorDiv and PythonMod floor, Mod on nonnegative
 * operands, CleanDiv and IntTrueDiv divide, CeilDiv rounds up, TruncToInt / FloorToInt / CeilToInt
 * round. A function not listed is an error naming it.
 */
export function evalSymExpr(n: SymNode, values: Readonly<Record<string, number>>, where: string): number {
  const bad = (why: string): never => { throw new TensorplanError('INVALID_ARGUMENT', `${where}: ${why}`); };
  const ev = (m: SymNode): number => {
    switch (m.kind) {
      case 'int': return m.value;
      case 'rational': return m.p / m.q;
      case 'symbol': {
        const v = values[m.name];
        return v === undefined ? bad(`symbol ${m.name} has no value`) : v;
      }
      case 'call': {
        const a = m.args.map(ev);
        switch (m.fn) {
          case 'Add': return a.reduce((x, y) => x + y, 0);
          case 'Mul': return a.reduce((x, y) => x * y, 1);
          case 'Pow': return a[0] ** a[1];
          case 'FloorDiv': return Math.floor(a[0] / a[1]);
          case 'CeilDiv': return Math.ceil(a[0] / a[1]);
          case 'CleanDiv': case 'IntTrueDiv': case 'FloatTrueDiv': return a[0] / a[1];
          case 'Mod': case 'PythonMod': return a[0] - a[1] * Math.floor(a[0] / a[1]);
          case 'Max': return Math.max(...a);
          case 'Min': return Math.min(...a);
          case 'Abs': return Math.abs(a[0]);
          case 'TruncToInt': return Math.trunc(a[0]);
          case 'FloorToInt': case 'floor': return Math.floor(a[0]);
          case 'CeilToInt': case 'ceiling': return Math.ceil(a[0]);
          default: return bad(`the sympy function ${m.fn} is not evaluated by this importer (it reads Add, Mul, Pow, FloorDiv, CeilDiv, CleanDiv, IntTrueDiv, Mod, PythonMod, Max, Min, Abs, TruncToInt, FloorToInt, CeilToInt)`);
        }
      }
    }
  };
  return ev(n);
}
