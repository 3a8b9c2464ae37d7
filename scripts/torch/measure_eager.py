#!/usr/bin/env python3
"""PyTorch's eager live-storage peak of an exported program, in exact bytes.

    python scripts/torch/measure_eager.py model.pt2 [--json]

Runs the program's ATen graph (``ep.graph_module``) eagerly on CPU, one node
after the other in the graph's own order, with the example inputs saved in the
archive, and counts the bytes of every tensor storage that is alive:

* A ``TorchDispatchMode`` (torch/utils/_python_dispatch.py) sees the outputs of
  every ATen op that runs, including the ops a composite op runs inside
  (``scaled_dot_product_attention`` on CPU runs the flash kernel, whose
  logsumexp output is alive while the call lasts) and outputs nobody reads.
* Each ``UntypedStorage`` is counted once, with its whole ``nbytes()``: views
  share their base's storage; the functional ``aten.copy.default(self, src)``
  returns a tensor whose storage is as large as ``self``'s whole storage, not
  only the extent of ``self``'s sizes and strides, and is counted so.
* A storage stops counting when it dies: a ``weakref`` callback on the Python
  storage object, which lives exactly as long as the C++ ``StorageImpl`` because
  PyTorch preserves the PyObject of a storage that C++ still holds
  (``THPStorage_Wrap`` / PyObject preservation in torch/csrc/Storage.cpp).
  The generated graph code drops each value after its last use
  (``delete_unused_values`` in torch/fx/graph.py), so frees follow the graph's
  order.
* Parameters, buffers, constants and user inputs are held by the caller for the
  whole run and counted from the start, each storage once (tied weights and
  inputs that share a storage, such as ``labels`` being ``input_ids``, once).
  The outputs are held to the end.

The run is under ``torch.no_grad()``: a joint graph carries its own backward
nodes, and autograd must not keep saved tensors of its own. No rounding: the CPU
allocator's own peak is at or above this figure (scratch inside kernels that no
graph shows), and a CUDA caching allocator rounds each block up to 512 bytes.

Archives written without weights (meta tensors) cannot run: measure the same
program exported with weights, or call ``measure_program`` on the live
ExportedProgram.
"""
from __future__ import annotations

import argparse
import json
import sys
import weakref
from typing import Any

import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves


class LiveStorageMeter(TorchDispatchMode):
    """Counts the bytes of live tensor storages; ``peak_bytes`` is the most at any time."""

    def __init__(self) -> None:
        super().__init__()
        self._live: dict[int, tuple[int, weakref.ref]] = {}  # StorageImpl address -> (bytes, ref)
        self.current_bytes = 0
        self.peak_bytes = 0
        self.peak_op = ""
        self._op = "inputs"

    def track(self, tensor: torch.Tensor) -> int:
        """Count ``tensor``'s storage if it is not counted yet; returns the bytes added."""
        storage = tensor.untyped_storage()
        key = storage._cdata
        if key in self._live:
            return 0
        nbytes = storage.nbytes()

        def died(_ref, key=key, nbytes=nbytes):
            self._live.pop(key, None)
            self.current_bytes -= nbytes

        self._live[key] = (nbytes, weakref.ref(storage, died))
        self.current_bytes += nbytes
        if self.current_bytes > self.peak_bytes:
            self.peak_bytes = self.current_bytes
            self.peak_op = self._op
        return nbytes

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        self._op = str(func)
        for value in tree_leaves(out):
            if isinstance(value, torch.Tensor):
                self.track(value)
        return out


def _input_kind(spec) -> str:
    if spec.kind == InputKind.USER_INPUT:
        return "user_inputs"
    if spec.kind == InputKind.PARAMETER:
        return "parameters"
    if spec.kind == InputKind.BUFFER:
        return "buffers"
    return "constants"


def measure_program(ep: ExportedProgram, args: tuple | None = None, kwargs: dict | None = None) -> dict[str, Any]:
    """Run ``ep``'s graph eagerly and return its live-storage figures (bytes).

    ``args``/``kwargs`` default to the program's example inputs. Returns
    ``peak_bytes`` (everything alive at the peak, the inputs included),
    ``persistent_bytes`` (parameters, buffers, constants and user inputs, each
    storage once, with the part of each kind in ``persistent_by_kind``),
    ``intermediate_peak_bytes`` (= peak - persistent), ``output_bytes`` (new
    storages still alive at the end: the outputs) and ``peak_op``.
    """
    if args is None and kwargs is None:
        if ep.example_inputs is None:
            raise ValueError("the program has no example inputs: pass args/kwargs")
        args, kwargs = ep.example_inputs
    flat = ep._graph_module_flat_inputs(tuple(args or ()), dict(kwargs or {}))
    for value in flat:
        if isinstance(value, torch.Tensor) and value.device.type == "meta":
            raise ValueError("the program holds meta tensors (written without weights): it cannot run eagerly")

    meter = LiveStorageMeter()
    by_kind = {"parameters": 0, "buffers": 0, "constants": 0, "user_inputs": 0}
    specs = ep.graph_signature.input_specs
    if len(specs) != len(flat):
        raise AssertionError(f"{len(specs)} input specs but {len(flat)} flat inputs")
    for spec, value in zip(specs, flat):
        if isinstance(value, torch.Tensor):
            by_kind[_input_kind(spec)] += meter.track(value)
    persistent = meter.current_bytes

    with torch.no_grad(), meter:
        outputs = ep.graph_module(*flat)
    result = {
        "peak_bytes": meter.peak_bytes,
        "persistent_bytes": persistent,
        "persistent_by_kind": by_kind,
        "intermediate_peak_bytes": meter.peak_bytes - persistent,
        "output_bytes": meter.current_bytes - persistent,
        "peak_op": meter.peak_op,
    }
    del outputs
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Eager live-storage peak (exact bytes) of a .pt2 saved with weights.")
    parser.add_argument("archive", help="a .pt2 written by torch.export.save with weights and example inputs")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    opts = parser.parse_args(argv)
    ep = torch.export.load(opts.archive)
    result = measure_program(ep)
    if opts.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
