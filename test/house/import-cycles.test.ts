// No import cycles in src/ (type-only imports and re-exports count too): front
// ends (src/frontends/**) never import the session class, and no module
// reaches itself through its imports. Imports are read with the TypeScript
// compiler's own pre-processor, so every import/export form is seen.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Module -> the src/ modules it imports (relative specifiers only; `./x.js` is `./x.ts`). */
function importGraph(): Map<string, string[]> {
  const files = sourceFiles(src);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles
      .map((f) => f.fileName)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => resolve(dirname(file), spec.replace(/\.(m?js)$/, '.ts')))
      .map((path) => (known.has(path) ? path : known.has(`${path}.ts`) ? `${path}.ts` : join(path, 'index.ts')))
      .filter((path) => known.has(path));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Every cycle as a path a -> b -> ... -> a (one per strongly connected component, Tarjan). */
function findCycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>(), low = new Map<string, number>(), onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    const self = (graph.get(v) ?? []).includes(v);
    if (component.length === 1 && !self) return;
    // A path around the component: walk from v through members until v comes back.
    const members = new Set(component);
    const path = [v];
    const seen = new Set([v]);
    let at = v;
    for (;;) {
      const next = (graph.get(at) ?? []).filter((n) => members.has(n));
      const back = next.find((n) => n === v);
      if (back !== undefined) break;
      const step = next.find((n) => !seen.has(n)) ?? next[0];
      path.push(step);
      seen.add(step);
      at = step;
      if (path.length > members.size + 1) break;
    }
    cycles.push([...path, v]);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

const name = (path: string) => relative(src, path);

describe('imports in src/', () => {
  it('the cycle finder finds a cycle it is shown', () => {
    const g = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']], ['e', ['e']]]);
    const cycles = findCycles(g).map((c) => c.join(' -> '));
    expect(cycles).toHaveLength(2);
    expect(cycles).toContain('e -> e');
    expect(cycles.find((c) => c.startsWith('a') || c.startsWith('b') || c.startsWith('c'))?.split(' -> ')).toHaveLength(4);
  });

  it('have no cycles', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(50);
    expect(findCycles(graph).map((cycle) => cycle.map(name).join(' -> '))).toEqual([]);
  });

  it('front ends (src/frontends/**) never import the session class', () => {
    const session = join(src, 'tensorplan.ts');
    const offenders = [...importGraph()]
      .filter(([file, targets]) => name(file).startsWith('frontends/') && targets.includes(session))
      .map(([file]) => name(file));
    expect(offenders).toEqual([]);
    // The rule must not pass vacuously: the front ends are where this test looks.
    const frontEnds = [...importGraph().keys()].map(name).filter((file) => file.startsWith('frontends/'));
    expect(frontEnds).toEqual(expect.arrayContaining(['frontends/onnx/onnx-import.ts', 'frontends/layers/layer-graph.ts']));
  });
});
