#!/usr/bin/env python3
"""Inductor's own peak-memory estimate of every fixture in test/fixtures/torch-models/.

    /tmp/torchvenv/bin/python scripts/torch/inductor_estimate.py [--only PREFIX] [--limit 60]

Each program is rebuilt as scripts/torch/export_fixtures.py builds it (same model table, same
seeds; ``export_one``), with its weights, and compiled with ``torch.compile`` (Inductor, CPU) with
``torch._logging.set_logs(modules={"torch._inductor.memory": logging.INFO})``. What is read is
what ``reorder_for_peak_memory`` in torch/_inductor/memory.py logs for each graph it schedules:
``Reordering for peak memory -- N nodes`` (N fused scheduler nodes), ``Baseline peak memory``
(``estimate_peak_memory`` over the scheduler's order) and ``topological_sort_lpmf`` /
``topological_sort_bfs`` / ``topological_sort_dfs peak memory``; Inductor keeps the order with the
lowest figure (``min`` over the four, the ``chosen`` figure below).

What the figure counts (``compute_memory_timeline`` and ``get_freeable_input_buf``): the bytes of
Inductor's scheduler buffers (the outputs of fused kernels and extern kernels; a value computed
inside a fused kernel has no buffer), each allocated at its node and freed after its last reader,
graph outputs never freed; plus graph inputs Inductor may free (not parameters, user inputs or
tangents: ``is_nonfreeable_buffers`` in torch/_inductor/utils.py). Sizes are exact bytes (no
allocator rounding); kernel scratch is not counted.

Two compiles per training fixture:

* ``program``: the exported program itself (``ep.graph_module`` on its flat inputs, parameters
  and buffers first, as measure_eager.py runs it, under ``torch.no_grad()``), so Inductor
  schedules the same ATen graph that the .pt2 holds (for a training fixture, the joint forward +
  backward graph as one Inductor graph; ``ep.module()`` refuses the joint graph's extra
  gradient outputs).
* ``autograd`` (training fixtures): the training step as PyTorch users compile it,
  ``torch.compile(step)`` then ``loss.backward()``: AOTAutograd partitions it into a forward
  graph and a backward graph, each scheduled and logged on its own; the saved activations are
  forward outputs, then freeable inputs of the backward graph.

Each compile runs in its own process with ``--limit`` seconds (default 60); Inductor's caches are
off so every compile schedules, and it compiles in the process (``compile_threads = 1``). A
``program`` compile stops as soon as its one graph's figures are logged (its kernels are not
generated or built: ``seconds_to_estimate``); an ``autograd`` step is compiled and run whole,
forward and backward (``compile_and_run_s``). Writes
test/fixtures/torch-models/inductor.json.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import re
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# python/ ships in the npm package, and the child imports export_fixtures: no __pycache__ anywhere.
sys.dont_write_bytecode = True
FIXTURES = os.path.join(ROOT, "test", "fixtures", "torch-models")
LOG_LINE = re.compile(r"^(Reordering for peak memory -- (?P<nodes>\d+) nodes|(?P<method>\w+) peak memory: (?P<bytes>\d+))$")
METHODS = {"Baseline": "baseline", "topological_sort_lpmf": "lpmf", "topological_sort_bfs": "bfs",
           "topological_sort_dfs": "dfs"}
COUNTS = ("Inductor's scheduler buffers (outputs of fused and extern kernels, graph outputs kept to the end) "
          "plus graph inputs Inductor may free; not parameters, user inputs or tangents; exact bytes")


class EstimateRead(BaseException):
    """Raised once the last awaited graph's figures are logged: nothing after scheduling is needed.

    A BaseException, so memory.py's ``except Exception`` around each method lets it through."""


class MemoryLog(logging.Handler):
    """Collects reorder_for_peak_memory's records, one entry per scheduled graph."""

    def __init__(self, stop_after: int | None = None):
        super().__init__(logging.INFO)
        self.graphs: list[dict] = []
        self.stop_after = stop_after

    def emit(self, record: logging.LogRecord) -> None:
        match = LOG_LINE.match(record.getMessage())
        if not match:
            return
        if match["nodes"] is not None:
            self.graphs.append({"scheduler_nodes": int(match["nodes"])})
        elif match["method"] in METHODS and self.graphs:
            self.graphs[-1][METHODS[match["method"]]] = int(match["bytes"])
            if match["method"] == "topological_sort_dfs" and len(self.graphs) == self.stop_after:
                raise EstimateRead()


class TimeLimit(Exception):
    pass


def compile_one(file: str, mode: str, limit: int) -> dict:
    """Child process: rebuild the fixture's program, compile it, return the logged figures."""
    os.environ["TORCHINDUCTOR_FX_GRAPH_CACHE"] = "0"
    os.environ["TORCHINDUCTOR_AUTOGRAD_CACHE"] = "0"
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch
    import export_fixtures as fx
    import tensorplan_export as tpe

    name, kind = file.split(".")[:2]
    training = kind == "train"
    table = fx.model_table(torch.Generator().manual_seed(0))
    seed = list(table).index(name)
    entry = table[name]

    torch._logging.set_logs(modules={"torch._inductor.memory": logging.INFO})
    # The program is one Inductor graph: stop once it is scheduled (its C++ code is not needed).
    handler = MemoryLog(stop_after=1 if mode == "program" else None)
    logging.getLogger("torch._inductor.memory").addHandler(handler)
    torch._inductor.config.fx_graph_cache = False
    torch._inductor.config.compile_threads = 1  # no pool of compile workers to start
    torch._dynamo.reset()

    def on_alarm(*_):
        raise TimeLimit()

    signal.signal(signal.SIGALRM, on_alarm)
    if mode == "program":
        ep, _ = fx.export_one(entry, training, seed)
        flat = ep._graph_module_flat_inputs(*ep.example_inputs)
        start = time.perf_counter()
        signal.alarm(limit)
        try:
            with torch.no_grad():
                torch.compile(ep.graph_module, backend="inductor")(*flat)
        except EstimateRead:
            pass
        finally:
            signal.alarm(0)
    else:
        torch.manual_seed(seed)
        model = entry["build"]()
        model.train()
        step = tpe.TrainingStep(model, entry.get("loss_fn"))
        args, kwargs = tpe._split_inputs(entry["training"])
        targets = tuple(entry.get("targets", ()))
        start = time.perf_counter()
        signal.alarm(limit)
        try:
            (loss,) = torch.compile(step, backend="inductor")(args, kwargs, targets)
            loss.backward()
        finally:
            signal.alarm(0)
    seconds = round(time.perf_counter() - start, 1)
    if mode == "program":
        return {"seconds_to_estimate": seconds, "graphs": handler.graphs}
    return {"compile_and_run_s": seconds, "graphs": handler.graphs}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="only fixtures whose file name begins with this")
    parser.add_argument("--limit", type=int, default=60, help="seconds for one compile and run (default 60)")
    parser.add_argument("--child", nargs=2, metavar=("FILE", "MODE"), help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.child:
        print("RESULT " + json.dumps(compile_one(*opts.child, opts.limit)), flush=True)
        return 0

    import torch

    with open(os.path.join(FIXTURES, "manifest.json")) as f:
        files = list(json.load(f)["files"])
    out_path = os.path.join(FIXTURES, "inductor.json")
    out = {"torch": torch.__version__, "source": "torch/_inductor/memory.py reorder_for_peak_memory (its INFO log)",
           "counts": COUNTS, "limit_s": opts.limit, "machine": f"{os.cpu_count()} CPU cores, no GPU", "files": {}}
    if opts.only and os.path.exists(out_path):
        with open(out_path) as f:
            out["files"] = json.load(f)["files"]
    for file in files:
        if opts.only and not file.startswith(opts.only):
            continue
        modes = ["program", "autograd"] if ".train." in file else ["program"]
        record = {}
        for mode in modes:
            # The machine is shared: its load at the start goes beside the compile time.
            load = round(os.getloadavg()[0], 1)
            cmd = [sys.executable, os.path.abspath(__file__), "--child", file, mode, "--limit", str(opts.limit)]
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, timeout=opts.limit + 120)
            except subprocess.TimeoutExpired:
                record[mode] = {"error": f"no result within {opts.limit + 120} s (model build and compile)"}
                continue
            lines = [l for l in done.stdout.splitlines() if l.startswith("RESULT ")]
            if lines:
                result = json.loads(lines[-1][len("RESULT "):])
                for g in result["graphs"]:
                    g["chosen"] = min(g.get(k, float("inf")) for k in ("baseline", "lpmf", "bfs", "dfs"))
                record[mode] = dict(result, load_average=load)
            elif "TimeLimit" in done.stderr:
                record[mode] = {"error": f"compile and run took over {opts.limit} s", "load_average": load}
            else:
                tail = [l for l in done.stderr.strip().splitlines() if l.strip()][-1:] or ["no output"]
                record[mode] = {"error": f"exit {done.returncode}: {tail[0][:300]}"}
            print(f"{file} {mode}: {json.dumps(record[mode])}", flush=True)
        out["files"][file] = record
        with open(out_path, "w") as f:
            json.dump(out, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
