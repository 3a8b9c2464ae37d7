// The nodes of a graph in an order where every node comes after the nodes it reads. ONNX requires
// files to be sorted, but ONNX Runtime sorts them itself (Graph::Resolve), and some tools write
// unsorted files (fp16 converters append the Cast producers they insert at the end). The sort is
// stable: Kahn's algorithm taking the ready node of lowest file index first, so a sorted file
// keeps its order exactly.
import type { OnnxGraph, OnnxNode } from './onnx-model.js';

/** The names a node reads: its inputs and, for If/Loop/Scan, what its subgraphs read from outside. */
function readsOf(node: OnnxNode): string[] {
  const names = node.inputs.filter((n) => n !== '');
  for (const a of node.attributes.values()) if (a.g) names.push(...outerReads(a.g));
  return names;
}

/** Names a subgraph reads that it does not define itself (captured from the enclosing graphs). */
export function outerReads(g: OnnxGraph): string[] {
  const defined = new Set([...g.inputs.map((i) => i.name), ...g.initializers.map((t) => t.name)]);
  for (const n of g.nodes) for (const o of n.outputs) defined.add(o);
  return g.nodes.flatMap(readsOf).filter((n) => !defined.has(n));
}

/** Min-heap of node indices (the ready set, lowest file index first). */
class IndexHeap {
  private readonly items: number[] = [];
  get size(): number { return this.items.length; }
  push(v: number): void {
    const a = this.items;
    a.push(v);
    for (let i = a.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (a[p] <= a[i]) break;
      [a[p], a[i]] = [a[i], a[p]];
      i = p;
    }
  }
  pop(): number {
    const a = this.items;
    const top = a[0], last = a.pop()!;
    if (a.length) {
      a[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < a.length && a[l] < a[m]) m = l;
        if (r < a.length && a[r] < a[m]) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i], a[m]];
        i = m;
      }
    }
    return top;
  }
}

/** What topologicalOrder returns: the nodes in order, or the nodes of one cycle. */
export type NodeOrder = { nodes: OnnxNode[]; cycle?: undefined } | { nodes?: undefined; cycle: OnnxNode[] };

/**
 * The graph's nodes sorted so that each comes after the producers of what it reads (names no node
 * of this graph produces are graph inputs, initializers or outer values: no constraint). When
 * some nodes depend on each other in a circle, returns one such cycle instead, in reading order.
 */
export function topologicalOrder(nodes: readonly OnnxNode[]): NodeOrder {
  const producer = new Map<string, number>();
  nodes.forEach((n, i) => n.outputs.forEach((o) => { if (o !== '' && !producer.has(o)) producer.set(o, i); }));
  const preds = nodes.map((n, i) => [...new Set(readsOf(n).map((r) => producer.get(r)).filter((p): p is number => p !== undefined && p !== i))]);
  const selfLoop = nodes.findIndex((n, i) => readsOf(n).some((r) => producer.get(r) === i));
  if (selfLoop >= 0) return { cycle: [nodes[selfLoop]] };
  const waiting = preds.map((p) => p.length);
  const succs: number[][] = nodes.map(() => []);
  preds.forEach((ps, i) => ps.forEach((p) => succs[p].push(i)));
  const ready = new IndexHeap();
  waiting.forEach((w, i) => { if (w === 0) ready.push(i); });
  const order: OnnxNode[] = [];
  while (ready.size) {
    const i = ready.pop();
    order.push(nodes[i]);
    for (const s of succs[i]) if (--waiting[s] === 0) ready.push(s);
  }
  if (order.length === nodes.length) return { nodes: order };
  // Every node left waits on another node left: walking back along waiting predecessors from any
  // of them must revisit a node, and the walk from there on is a cycle.
  const seen = new Map<number, number>();
  const path: number[] = [];
  let i = waiting.findIndex((w) => w > 0);
  while (!seen.has(i)) {
    seen.set(i, path.length);
    path.push(i);
    i = preds[i].find((p) => waiting[p] > 0)!;
  }
  const cycle = path.slice(seen.get(i)).reverse();
  // Start at the node that comes first in the file, so the message does not depend on the walk.
  const first = cycle.indexOf(Math.min(...cycle));
  return { cycle: [...cycle.slice(first), ...cycle.slice(0, first)].map((k) => nodes[k]) };
}
