#!/usr/bin/env python3
"""Runs PyTorch's own torch/_inductor/memory.py on tensorplan graphs and
compares its orders and peaks with tensorplan's Inductor baselines.

    python3 scripts/inductor-crosscheck.py [--random N] [--memory-py PATH] [--json OUT] [--require-agreement]

The graphs (examples, layer specs, ONNX zoo models, seeded random graphs) and
tensorplan's orders come from scripts/inductor-crosscheck-export.mjs (needs
dist/ built). For each graph this builds minimal stand-ins for the objects
memory.py reads (scheduler nodes, buffers, deps, V.graph) -- nothing of
Inductor's code is copied -- runs topological_sort_lpmf, topological_sort_bfs,
topological_sort_dfs and the chooser reorder_for_peak_memory, and compares.

The mapping (docs/scheduling.md, "Inductor's baselines"):
  op                      -> scheduler node (index = position in the graph's order)
  storage made by op o    -> a SchedulerBuffer "buf<s>" of o (numel = aligned bytes, uint8)
  write into a storage another op made (in-place output, group member)
                          -> a mutation rename "mut<o>_<s>" of o, real name buf<s>
  graph-input storage     -> a graph input "in<s>" (freeable: read by some op)
  persistent storage      -> a graph input "primals_<s>" (is_nonfreeable_buffers)
  workspace               -> a buffer "ws<o>" of o that nobody reads
  dependency p -> o       -> a fake WeakDep of o on p's NoneLayout-like buffer "op<p>"
  graph-output storage    -> its real buffer name in graph_outputs
--memory-py loads another copy of memory.py (e.g. torch 2.14.1's) into the
installed torch's torch._inductor package instead of the installed one.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OURS = {"lpmf": "inductor-lpmf", "bfs": "inductor-bfs", "dfs": "inductor-dfs"}


def load_memory(path: str | None):
    import torch  # noqa: F401
    import torch._inductor.memory as installed

    if not path:
        return installed
    spec = importlib.util.spec_from_file_location("torch._inductor.memory", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["torch._inductor.memory"] = module
    spec.loader.exec_module(module)
    return module


class Dep:
    """A read or write dependency: memory.py reads .name (and isinstance WeakDep)."""

    def __init__(self, name: str):
        self.name = name


class IrNode:
    """What compute_size_for_scheduler_buffer reads of a buffer's IR node."""

    def __init__(self, numel: int):
        self.layout = object()  # neither NoneLayout nor MultiOutputLayout
        self.numel = numel

    def get_numel(self):
        return self.numel

    def get_dtype(self):
        import torch

        return torch.uint8


class Buffer:
    def __init__(self, name: str, numel: int, defining_op):
        self.name = name
        self.node = IrNode(numel)
        self.users = []
        self.defining_op = defining_op

    def get_name(self):
        return self.name

    def debug_str(self):
        return self.name


class ReadWrites:
    def __init__(self):
        self.reads = []


class Node:
    def __init__(self, index: int):
        self.op_index = index
        self.outputs: list[Buffer] = []
        self.read_writes = ReadWrites()
        self.unmet_dependencies = []

    def get_outputs(self):
        return self.outputs

    def get_buffer_names(self):
        return [b.name for b in self.outputs]

    def get_name(self):
        return f"op{self.op_index}"


class SizeVars:
    def optimization_hint(self, expr, fallback=0):
        return int(expr)


class Scheduler:
    def __init__(self, mutation_real_name):
        self.mutation_real_name = mutation_real_name


class FakeGraph:
    """The V.graph that memory.py consults."""

    def __init__(self, sizes, mutation_real_name):
        self.name = None
        self.sizes = sizes
        self.sizevars = SizeVars()
        self.scheduler = Scheduler(mutation_real_name)

    def get_dep_size_hint(self, dep):
        return self.sizes[dep.name]


def planning_graph(g):
    """tensorplan's dependency DAG and storage touches (graph_validate.cpp's rules)."""
    n = len(g["ops"])
    producer, parent = g["producer"], g["aliasParent"]

    def effective_producer(t):
        while t >= 0:
            if producer[t] >= 0:
                return producer[t]
            t = parent[t]
        return -1

    preds = [set() for _ in range(n)]
    for o, op in enumerate(g["ops"]):
        for t in op["inputs"]:
            preds[o].add(effective_producer(t))
        for t in op["outputs"]:
            p = effective_producer(parent[t]) if parent[t] >= 0 else -1
            if p != o:
                preds[o].add(p)
        preds[o].update(op["after"])
    readers = [[] for _ in g["producer"]]
    inside = [[] for _ in g["producer"]]
    for o, op in enumerate(g["ops"]):
        for t in op["inputs"]:
            readers[t].append(o)
    for t, p in enumerate(parent):
        if p >= 0:
            inside[p].append(t)
    for out, inp in g["inPlace"]:
        writer = producer[out]
        stack = [inp]
        while stack:
            t = stack.pop()
            preds[writer].update(o for o in readers[t] if o != writer)
            stack.extend(i for i in inside[t] if i != out)
    for o in range(n):
        preds[o].discard(-1)
    touches = []
    for op in g["ops"]:
        seen = []
        for t in op["inputs"] + op["outputs"]:
            s = g["tensorStorage"][t]
            if s not in seen:
                seen.append(s)
        touches.append(seen)
    return preds, touches


def tensorplan_peak(g, touches, order):
    """liveness.cpp's schedule_peak, for orders that memory.py made."""
    st = g["storages"]
    size = [0 if s["persistent"] else s["bytes"] for s in st]
    users = [0] * len(st)
    for ts in touches:
        for s in ts:
            users[s] += 1
    born = [s["input"] for s in st]
    live = sum(size[i] for i, s in enumerate(st) if s["input"])
    unused = sum(size[i] for i, s in enumerate(st) if s["input"] and users[i] == 0 and not s["output"])
    peak = 0
    for step, o in enumerate(order):
        for s in touches[o]:
            if not born[s]:
                born[s] = True
                live += size[s]
        peak = max(peak, live + g["ops"][o]["workspace"])
        for s in touches[o]:
            users[s] -= 1
            if users[s] == 0 and not st[s]["output"]:
                live -= size[s]
        if step == 0:
            live -= unused
    return peak


def inductor_graph(g, preds, touches, WeakDep):
    """Stand-ins for memory.py: nodes, name_to_buf, graph inputs and outputs, sizes."""
    n = len(g["ops"])
    st = g["storages"]
    index = {o: i for i, o in enumerate(g["orders"]["given"])}
    used = set(s for ts in touches for s in ts)
    maker = {}
    for o in g["orders"]["given"]:
        for s in touches[o]:
            if not st[s]["input"] and not st[s]["persistent"] and s not in maker:
                maker[s] = o
    nodes = [Node(o) for o in range(n)]
    name_to_buf, sizes, mutation_real_name = {}, {}, {}
    graph_inputs, graph_outputs = [], []

    def storage_name(s):
        if st[s]["persistent"]:
            return f"primals_{s}"
        if st[s]["input"]:
            return f"in{s}"
        return f"buf{s}"

    for s in sorted(used):
        if st[s]["persistent"] or st[s]["input"]:
            graph_inputs.append(storage_name(s))
            sizes[storage_name(s)] = 0 if st[s]["persistent"] else st[s]["bytes"]
        if st[s]["output"] and not st[s]["persistent"]:
            graph_outputs.append(storage_name(s))
    # The tensor an op reads is the latest version of its storage that the op
    # depends on: the maker's buffer, or a mutation rename of a writer.
    version = {}
    for o in range(n):
        node = nodes[o]
        node.outputs.append(Buffer(f"op{o}", 0, node))  # the name dependencies point at
        if g["ops"][o]["workspace"] > 0:
            node.outputs.append(Buffer(f"ws{o}", g["ops"][o]["workspace"], node))
        for s in touches[o]:
            if s in maker and maker[s] == o:
                node.outputs.append(Buffer(f"buf{s}", 0 if st[s]["persistent"] else st[s]["bytes"], node))
        for t in g["ops"][o]["outputs"]:
            s = g["tensorStorage"][t]
            if s in maker and maker[s] != o and f"mut{o}_{s}" not in [b.name for b in node.outputs]:
                node.outputs.append(Buffer(f"mut{o}_{s}", 0, node))
                mutation_real_name[f"mut{o}_{s}"] = f"buf{s}"
            version[t] = f"buf{s}" if s in maker and maker[s] == o else f"mut{o}_{s}"
        for b in node.outputs:
            name_to_buf[b.name] = b
    producer, parent = g["producer"], g["aliasParent"]

    def read_name(t):
        s = g["tensorStorage"][t]
        if st[s]["persistent"] or st[s]["input"]:
            return storage_name(s)
        while t >= 0 and producer[t] < 0:
            t = parent[t]
        return version.get(t, f"buf{s}")

    for o in range(n):
        node = nodes[o]
        names = []
        for s in touches[o]:
            if st[s]["persistent"] or st[s]["input"]:
                if storage_name(s) not in names:
                    names.append(storage_name(s))
        for t in g["ops"][o]["inputs"]:
            s = g["tensorStorage"][t]
            if not (st[s]["persistent"] or st[s]["input"]):
                names.append(read_name(t))
        # A write into a storage another op made reads (mutates) that storage.
        for t in g["ops"][o]["outputs"]:
            s = g["tensorStorage"][t]
            if s in maker and maker[s] != o:
                names.append(f"buf{s}")
        for name in dict.fromkeys(names):
            dep = Dep(name)
            if name in sizes:
                node.read_writes.reads.append(dep)
            elif name_to_buf[name].defining_op is not node:
                node.unmet_dependencies.append(dep)
        for p in sorted(preds[o]):
            node.unmet_dependencies.append(WeakDep(f"op{p}", mutating_buf=f"op{o}", is_fake=True))
    ordered = [nodes[o] for o in g["orders"]["given"]]
    return ordered, name_to_buf, sizes, mutation_real_name, graph_inputs, graph_outputs


def crosscheck(memory, graphs):
    from torch._inductor.dependencies import WeakDep
    from torch._inductor.virtualized import V
    from torch.utils._ordered_set import OrderedSet

    rows = []
    for g in graphs:
        preds, touches = planning_graph(g)
        nodes, name_to_buf, sizes, renames, inputs, outputs = inductor_graph(g, preds, touches, WeakDep)
        name_to_fused = {n.get_name(): n for n in nodes}
        with V.set_graph_handler(FakeGraph(sizes, renames)):
            graph_inputs, graph_outputs = OrderedSet(inputs), OrderedSet(outputs)
            given_peak, freeable = memory.prepare_planning_info(nodes, name_to_buf, name_to_fused, graph_inputs, graph_outputs)
            theirs = {
                "lpmf": memory.topological_sort_lpmf(nodes, freeable, name_to_buf, graph_outputs),
                "bfs": memory.topological_sort_bfs(nodes),
                "dfs": memory.topological_sort_dfs(nodes),
            }
            chosen = memory.reorder_for_peak_memory(nodes, name_to_buf, name_to_fused, graph_inputs, graph_outputs)
            node_of = {n.op_index: n for n in nodes}

            def estimate(order):
                return memory.estimate_peak_memory([node_of[o] for o in order], freeable, graph_outputs)[0]

            row = {"name": g["name"], "ops": len(nodes)}
            for key, method in OURS.items():
                their_order = [n.op_index for n in theirs[key]]
                row[key] = {
                    "sameOrder": their_order == g["orders"][method],
                    "theirPeak": tensorplan_peak(g, touches, their_order),
                    "ourPeak": g["peaks"][method],
                    "theirEstimate": estimate(their_order),
                    "ourEstimate": estimate(g["orders"][method]),
                }
            best = [n.op_index for n in chosen]
            row["best"] = {
                "sameOrder": best == g["orders"]["inductor-best"],
                "theirPeak": tensorplan_peak(g, touches, best),
                "ourPeak": g["peaks"]["inductor-best"],
            }
            # The two peak models agree on every order (checks the mapping itself).
            row["estimateMatches"] = all(
                estimate(g["orders"][m]) == tensorplan_peak(g, touches, g["orders"][m]) for m in ("given", *OURS.values())
            )
        rows.append(row)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--random", type=int, default=72, help="seeded random graphs (seeds 1..N)")
    parser.add_argument("--memory-py", help="a memory.py to run instead of the installed torch's")
    parser.add_argument("--graphs", help="graphs exported earlier (default: run the exporter)")
    parser.add_argument("--json", help="write the per-graph rows here")
    parser.add_argument("--require-agreement", action="store_true", help="exit 1 unless every order and peak agrees")
    args = parser.parse_args()
    memory = load_memory(args.memory_py)
    if args.graphs:
        with open(args.graphs) as f:
            graphs = json.load(f)
    else:
        exporter = os.path.join(ROOT, "scripts", "inductor-crosscheck-export.mjs")
        text = subprocess.run(["node", exporter, "--random", str(args.random)], check=True, capture_output=True, text=True).stdout
        graphs = json.loads(text)
    rows = crosscheck(memory, graphs)
    import torch

    total = len(rows)
    print(f"inductor-crosscheck: torch {torch.__version__}, memory.py {memory.__file__}, {total} graphs")
    disagree = 0
    for key in ("lpmf", "bfs", "dfs", "best"):
        same_order = sum(r[key]["sameOrder"] for r in rows)
        same_peak = sum(r[key]["theirPeak"] == r[key]["ourPeak"] for r in rows)
        higher = sum(r[key]["ourPeak"] > r[key]["theirPeak"] for r in rows)
        lower = sum(r[key]["ourPeak"] < r[key]["theirPeak"] for r in rows)
        print(f"  {key:5s} same order {same_order}/{total}, same peak {same_peak}/{total} (ours higher {higher}, lower {lower})")
        disagree += total - same_peak
    mapped = sum(r["estimateMatches"] for r in rows)
    print(f"  estimate_peak_memory == tensorplan's peak on the same orders: {mapped}/{total}")
    disagree += total - mapped
    for r in rows:
        bad = [k for k in ("lpmf", "bfs", "dfs", "best") if r[k]["theirPeak"] != r[k]["ourPeak"] or not r[k]["sameOrder"]]
        if bad or not r["estimateMatches"]:
            print(f"    {r['name']}: differs in {', '.join(bad) or 'estimate'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    if args.require_agreement and disagree > 0:
        sys.exit(1)


if __name__ == "__main__":
    main()
