// Why a value is not known at import time, for errors that point at the fix: the graph inputs
// it depends on (which `--value` sets), or the nodes the evaluator does not compute.
import type { ImportState } from './import-state.js';

/**
 * Why a value is not known: the graph inputs it depends on (which `--value` sets), or the
 * nodes the evaluator does not compute although their inputs are known. In a subgraph, values
 * read from the enclosing graphs are followed there.
 */
export function whyUnknown(s: ImportState, name: string, purpose = 'to choose the branch at import time'): string {
  const inputs: string[] = [], stuck: string[] = [];
  dependsOn(s, name, inputs, stuck, new Set());
  const names = [...new Set(inputs)].sort();
  if (names.length) {
    const example = names.map((i) => `--value ${i}=V`).join(' ');
    return `: it depends on graph input${names.length > 1 ? 's' : ''} ${names.map((i) => `"${i}"`).join(', ')}; give ${names.length > 1 ? 'their values' : 'its value'} with ${example} (API: values) ${purpose}`;
  }
  if (stuck.length) return `: it is computed by ${[...new Set(stuck)].join('; ')}`;
  return '';
}

export function dependsOn(s: ImportState, name: string, inputs: string[], stuck: string[], seen: Set<string>): void {
  const stack = [name];
  while (stack.length) {
    const n = stack.pop()!;
    if (seen.has(n)) continue;
    seen.add(n);
    // A known value needs no explaining: what it was computed from (the shape of an input
    // whose elements are not known) is not why a value downstream is unknown.
    if (s.values.get(n)?.data) continue;
    const p = s.producedBy.get(n);
    if (!p) {
      if (s.outer.has(n) && s.parent) dependsOn(s.parent, n, inputs, stuck, seen);
      else if (s.tensors.has(n) && !s.formals.has(n) && !s.values.get(n)?.data) inputs.push(n);
      continue;
    }
    if (p.reads.every((r) => s.values.get(r)?.data) && !s.values.get(n)?.data) {
      const why = s.values.get(n)?.unknown;
      stuck.push(why ? `${p.label}, whose value the importer does not claim (${why})` : `${p.label}, which the importer does not evaluate`);
    }
    stack.push(...p.reads);
  }
}
