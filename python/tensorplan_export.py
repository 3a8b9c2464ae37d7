#!/usr/bin/env python3
"""Export a PyTorch model to a ``.pt2`` archive that tensorplan can plan.

An inference program or one training step (forward + loss + backward, as one
joint graph), with or without the weights' bytes. Uses ``torch.export``
(written against torch 2.13.0; the joint graph comes from private APIs that
PyTorch calls "highly unstable", so the tests in test/python/ compare its
gradients with eager autograd).

Python API::

    import tensorplan_export as tpe

    tpe.export_inference(model, (x,), "model.pt2", weights=False)
    tpe.export_training_step(model, (x,), "step.pt2", loss_fn=F.cross_entropy,
                             targets=(labels,), weights=False)

    # Never materialise the weights: build the model with fake tensors.
    with tpe.fake_weights():
        model = transformers.LlamaForCausalLM(config)
    tpe.export_training_step(model, {"input_ids": ids, "labels": ids}, "step.pt2")

Command line (the model comes from a Python function you name)::

    python tensorplan_export.py my_models:build_model --input x=2x3x32x32 \\
        --training --loss cross_entropy --target labels=2:int64:10 -o step.pt2

What the exporter changes relative to plain ``torch.export``:

* The decomposition table is PyTorch's core ATen table without
  ``_scaled_dot_product_flash_attention_for_cpu``. Its decomposition in
  torch/_decomp/decompositions.py (``scaled_dot_product_flash_attention_for_cpu``)
  returns ``(output, attn)``: the second value is the softmax probabilities,
  where the flash kernel's second output is the logsumexp. In a joint graph the
  flash backward then receives the probabilities as its logsumexp, and the
  gradients are wrong (0.1 off on a transformer block). Kept whole, the op's two
  real outputs appear in the graph and the gradients match eager.
* Parameters that the program never reads are dropped from the signature and
  the state dict first. With tied weights (GPT-2's ``wte`` and ``lm_head``)
  ``torch.export`` lists the shared tensor twice, one placeholder without users,
  and the joint trace rejects it ("Found a parameter that did not receive a
  gradient", ``_decompose_and_get_gm_with_new_signature_constants`` in
  torch/export/exported_program.py). In an archive without weights every
  parameter points at the same empty file, so the tie could not be seen there
  either; after the drop each parameter input is a distinct tensor.
* Nodes' ``stack_trace`` and ``from_node`` metadata are removed unless asked
  to keep them: the first holds absolute paths of the exporting machine, the
  second Python object ids (``graph_id``) that change from run to run; together
  they are over half of model.json. ``nn_module_stack`` and ``torch_fn`` stay.

Without weights (``weights=False``), parameters, buffers, constants and the
sample inputs are written as tensors on the ``meta`` device: the archive keeps
every shape, dtype and stride and no bytes (``_get_raw_tensor_bytes`` in
torch/export/pt2_archive/_package.py writes nothing for a tensor without data).
``torch.export.load`` may not reload such an archive; its models/model.json is
complete.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import sys
from typing import Any, Callable, Iterable

import torch
import torch.nn as nn
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind

__all__ = [
    "export_inference",
    "export_training_step",
    "export_program",
    "joint_forward_backward",
    "drop_unused_parameters",
    "decomposition_table",
    "save",
    "fake_weights",
]

# The flash-attention op for CPU that must stay whole (see the module docstring).
_FLASH_CPU = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default


def decomposition_table() -> dict:
    """PyTorch's core ATen decomposition table without the CPU flash-attention op.

    ``torch.export.default_decompositions()`` (torch/export/exported_program.py)
    materialised to a plain dict; ``scaled_dot_product_attention`` itself still
    decomposes (its CompositeImplicitAutograd kernel picks the CPU flash op), so
    the graph shows ``_scaled_dot_product_flash_attention_for_cpu`` with both of
    its outputs.
    """
    table = dict(torch.export.default_decompositions().items())
    table.pop(_FLASH_CPU, None)
    return table


def _split_inputs(inputs: Any) -> tuple[tuple, dict]:
    """A tensor, a tuple/list of positional inputs or a dict of keyword inputs."""
    if isinstance(inputs, torch.Tensor):
        return (inputs,), {}
    if isinstance(inputs, dict):
        return (), dict(inputs)
    if isinstance(inputs, (tuple, list)):
        return tuple(inputs), {}
    raise TypeError(f"inputs must be a tensor, a tuple of tensors or a dict, not {type(inputs).__name__}")


def _fake_mode_of(model: nn.Module):
    """The FakeTensorMode the model's tensors belong to, or None for real tensors."""
    from torch._guards import detect_fake_mode

    tensors = list(model.parameters()) + list(model.buffers())
    return detect_fake_mode(tensors) if tensors else None


@contextlib.contextmanager
def fake_weights():
    """Build a model inside this block to give it fake tensors (shapes, no bytes).

    A ``FakeTensorMode`` (torch/_subclasses/fake_tensor.py); the export functions
    see the model's fake parameters and convert the example inputs into the same
    mode. Models built on the ``meta`` device export for inference too (their
    inputs are moved to ``meta``), but not as a training step: the joint trace
    needs fake CPU tensors.
    """
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode(allow_non_fake_inputs=True) as mode:
        yield mode


def _to_mode(value: Any, mode) -> Any:
    """Example inputs converted to the model's fake mode (real tensors untouched when mode is None)."""
    if mode is None:
        return value
    return torch.utils._pytree.tree_map_only(torch.Tensor, mode.from_tensor, value)


def drop_unused_parameters(ep: ExportedProgram) -> ExportedProgram:
    """The program without parameter placeholders that no node reads.

    Their state-dict entries go too, unless another input spec still names
    the same target.
    """
    from torch.export.experimental import _copy_graph_module_and_signature

    gm, signature = _copy_graph_module_and_signature(ep)
    placeholders = {n.name: n for n in gm.graph.nodes if n.op == "placeholder"}
    kept, dropped = [], set()
    for spec in signature.input_specs:
        node = placeholders[spec.arg.name]
        if spec.kind == InputKind.PARAMETER and not node.users:
            gm.graph.erase_node(node)
            dropped.add(spec.target)
        else:
            kept.append(spec)
    if not dropped:
        return ep
    signature.input_specs = kept
    gm.recompile()
    still_named = {spec.target for spec in kept}
    state_dict = {k: v for k, v in ep.state_dict.items() if k not in dropped or k in still_named}
    return ep._update(gm, signature, state_dict=state_dict)


def joint_forward_backward(ep: ExportedProgram, loss_index: int = 0) -> ExportedProgram:
    """The joint forward + backward graph of a program whose output ``loss_index`` is the loss.

    ``torch.export.experimental._export_forward_backward`` (torch/export/experimental/__init__.py)
    with ``decomposition_table()`` in place of the full core ATen table, after
    ``drop_unused_parameters``. Outputs: ``loss_output``, one
    ``gradient_to_parameter`` per parameter, ``buffer_mutation`` for buffers the
    step updates (BatchNorm's running statistics).
    """
    from torch.export.experimental import _copy_graph_module_and_signature, _remove_detach_pass
    from torch.export.exported_program import _decompose_exported_program

    ep = drop_unused_parameters(ep)
    ep = _decompose_exported_program(
        ep,
        cia_to_decomp={},
        python_decomp_table=decomposition_table(),
        joint_loss_index=loss_index,
        decompose_custom_triton_ops=False,
    )
    gm, signature = _copy_graph_module_and_signature(ep)
    _remove_detach_pass(gm, signature)
    return ep._update(gm, signature)


class TrainingStep(nn.Module):
    """``model`` followed by its loss: ``forward(inputs, targets) -> (loss,)``.

    The loss is ``loss_fn(output, *targets)`` or, without ``loss_fn``, the
    model's own: the output itself when it is a tensor, else ``output.loss`` /
    ``output["loss"]`` (Hugging Face models given ``labels``).
    """

    def __init__(self, model: nn.Module, loss_fn: Callable | None = None):
        super().__init__()
        self.model = model
        self.loss_fn = loss_fn

    def forward(self, args: tuple, kwargs: dict, targets: tuple):
        output = self.model(*args, **kwargs)
        if self.loss_fn is not None:
            return (self.loss_fn(output, *targets),)
        if isinstance(output, torch.Tensor):
            return (output,)
        loss = getattr(output, "loss", None)
        if loss is None and isinstance(output, dict):
            loss = output.get("loss")
        if loss is None:
            raise ValueError("the model returns no loss: pass loss_fn (and targets)")
        return (loss,)


# Node metadata that depends on the exporting machine or run (see the module docstring).
_RUN_SPECIFIC_METADATA = ("stack_trace", "from_node")


def _strip_run_specific_metadata(ep: ExportedProgram) -> None:
    for node in ep.graph.nodes:
        for key in _RUN_SPECIFIC_METADATA:
            node.meta.pop(key, None)


def _on_meta(value: Any) -> Any:
    """Tensors (real or fake) as meta tensors with the same sizes, strides and dtype."""

    def to_meta(t: torch.Tensor) -> torch.Tensor:
        meta = torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta")
        if isinstance(t, nn.Parameter):
            return nn.Parameter(meta, requires_grad=t.requires_grad)
        return meta

    return torch.utils._pytree.tree_map_only(torch.Tensor, to_meta, value)


def save(ep: ExportedProgram, path: str, *, weights: bool = True, keep_debug_metadata: bool = False) -> None:
    """``torch.export.save``; without weights, no tensor bytes are written (see the module docstring)."""
    if not keep_debug_metadata:
        _strip_run_specific_metadata(ep)
    if not weights:
        state_dict = {k: _on_meta(v) for k, v in ep.state_dict.items()}
        constants = {k: _on_meta(v) if isinstance(v, torch.Tensor) else v for k, v in ep.constants.items()}
        example_inputs = ep.example_inputs
        ep = ep._update(ep.graph_module, ep.graph_signature, state_dict=state_dict, constants=constants)
        if example_inputs is not None:
            ep.example_inputs = _on_meta(example_inputs)
    torch.export.save(ep, path)


def export_program(
    model: nn.Module,
    inputs: Any,
    *,
    training: bool = False,
    loss_fn: Callable | None = None,
    targets: Iterable = (),
    decompose: bool = True,
    dynamic_shapes: Any = None,
) -> ExportedProgram:
    """The ExportedProgram of an inference call or a training step (nothing written).

    Inference: ``torch.export.export`` then, with ``decompose``,
    ``run_decompositions(decomposition_table())`` (core ATen, no mutating ops);
    without, the training IR (in-place ops, ``reshape``, ``contiguous`` kept) and
    unused parameters kept. The model's train/eval mode is left as it is: a
    BatchNorm in training mode updates its running statistics
    (``buffer_mutation`` outputs).
    Training step: the joint graph of ``TrainingStep(model, loss_fn)``.
    """
    args, kwargs = _split_inputs(inputs)
    targets = tuple(targets)
    if any(p.device.type == "meta" for p in model.parameters()):
        if training:
            # The joint trace of a meta model fails ("Found a parameter that did not receive a
            # gradient"), even for a small CNN with torch 2.13.
            raise ValueError("a training step needs real or fake weights: build the model inside "
                             "tensorplan_export.fake_weights() instead of on the meta device")
        args, kwargs = torch.utils._pytree.tree_map_only(torch.Tensor, lambda t: t.to("meta"), (args, kwargs))
    mode = _fake_mode_of(model)
    args, kwargs, targets = _to_mode((args, kwargs, targets), mode)
    context = mode if mode is not None else contextlib.nullcontext()
    with context:
        if training:
            step = TrainingStep(model, loss_fn)
            ep = torch.export.export(step, (args, kwargs, targets), dynamic_shapes=dynamic_shapes)
        else:
            ep = torch.export.export(model, args, kwargs, dynamic_shapes=dynamic_shapes)
    # Decomposition makes its own fake mode; under the model's it fails
    # ("fake mode ... doesn't match mode ... from fake tensor input").
    if training:
        return joint_forward_backward(ep)
    if decompose:
        return drop_unused_parameters(ep.run_decompositions(decomposition_table()))
    return ep


def export_inference(
    model: nn.Module,
    inputs: Any,
    path: str,
    *,
    weights: bool = True,
    decompose: bool = True,
    dynamic_shapes: Any = None,
    keep_debug_metadata: bool = False,
) -> ExportedProgram:
    """Export ``model(*inputs)`` (or ``model(**inputs)`` for a dict) to ``path``; returns the program."""
    ep = export_program(model, inputs, decompose=decompose, dynamic_shapes=dynamic_shapes)
    save(ep, path, weights=weights, keep_debug_metadata=keep_debug_metadata)
    return ep


def export_training_step(
    model: nn.Module,
    inputs: Any,
    path: str,
    *,
    loss_fn: Callable | None = None,
    targets: Iterable = (),
    weights: bool = True,
    keep_debug_metadata: bool = False,
) -> ExportedProgram:
    """Export one training step (forward, ``loss_fn(output, *targets)``, backward) to ``path``.

    Without ``loss_fn`` the model's own loss is used (see ``TrainingStep``).
    The model should be in training mode (``model.train()``) for dropout and
    BatchNorm to behave as in training. No optimizer step is included.
    """
    ep = export_program(model, inputs, training=True, loss_fn=loss_fn, targets=targets)
    save(ep, path, weights=weights, keep_debug_metadata=keep_debug_metadata)
    return ep


# --- command line ----------------------------------------------------------------------------

_DTYPES = {
    "float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "float64": torch.float64,
    "int64": torch.int64, "int32": torch.int32, "bool": torch.bool,
}


def _parse_tensor(text: str) -> tuple[str, torch.Tensor]:
    """``name=2x3x32x32[:dtype[:high]]``: random values, integers in [0, high) (default 2)."""
    name, _, spec = text.partition("=")
    if not spec:
        raise argparse.ArgumentTypeError(f"expected name=SHAPE[:dtype[:high]], got {text!r}")
    parts = spec.split(":")
    shape = [int(d) for d in parts[0].split("x")] if parts[0] else []
    dtype = _DTYPES[parts[1]] if len(parts) > 1 else torch.float32
    if dtype.is_floating_point:
        return name, torch.randn(shape, dtype=dtype)
    high = int(parts[2]) if len(parts) > 2 else 2
    return name, torch.randint(0, high, shape, dtype=dtype)


def _load_callable(ref: str) -> Callable:
    """``module:function`` or ``path/to/file.py:function``."""
    module_name, _, attr = ref.rpartition(":")
    if not module_name:
        raise SystemExit(f"expected MODULE:FUNCTION, got {ref!r}")
    if module_name.endswith(".py"):
        spec = importlib.util.spec_from_file_location("_tensorplan_user_model", module_name)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(module_name)
    return getattr(module, attr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Export a PyTorch model (inference or one training step) to a .pt2 archive for tensorplan.",
        epilog="Example: python tensorplan_export.py models.py:build --input x=8x3x32x32 "
        "--training --loss cross_entropy --target y=8:int64:10 --no-weights -o step.pt2",
    )
    parser.add_argument("model", help="MODULE:FUNCTION or FILE.py:FUNCTION returning an nn.Module (called with no arguments)")
    parser.add_argument("--input", action="append", default=[], type=_parse_tensor, metavar="NAME=SHAPE[:DTYPE[:HIGH]]",
                        help="an example input passed by keyword, e.g. input_ids=2x16:int64:1000 (repeatable)")
    parser.add_argument("--positional", action="store_true", help="pass the inputs positionally, in the order given")
    parser.add_argument("--training", action="store_true", help="export one training step (joint forward + backward)")
    parser.add_argument("--loss", help="a torch.nn.functional loss applied as loss(output, *targets), "
                        "output.logits for Hugging Face outputs; "
                        "without it the model's own loss (its output, or output.loss)")
    parser.add_argument("--target", action="append", default=[], type=_parse_tensor, metavar="NAME=SHAPE[:DTYPE[:HIGH]]",
                        help="a target passed to --loss after the output (repeatable)")
    parser.add_argument("--no-weights", action="store_true", help="write shapes only (no tensor bytes); "
                        "the model is built under FakeTensorMode")
    parser.add_argument("--no-decompose", action="store_true", help="inference: keep the training IR "
                        "(in-place ops, reshape) instead of core ATen")
    parser.add_argument("--eval", action="store_true", help="put the model in eval mode (default: as built)")
    parser.add_argument("--keep-debug-metadata", action="store_true",
                        help="keep nodes' stack_trace and from_node metadata")
    parser.add_argument("--seed", type=int, default=0, help="torch.manual_seed before building (default 0)")
    parser.add_argument("-o", "--output", required=True, help="the .pt2 file to write")
    opts = parser.parse_args(argv)

    torch.manual_seed(opts.seed)
    build = _load_callable(opts.model)
    with fake_weights() if opts.no_weights else contextlib.nullcontext():
        model = build()
    if opts.eval:
        model.eval()
    inputs = dict(opts.input)
    if opts.positional:
        inputs = tuple(inputs.values())
    if opts.training:
        import torch.nn.functional as F

        loss_fn = None
        if opts.loss:
            base = getattr(F, opts.loss)
            loss_fn = lambda output, *targets: base(getattr(output, "logits", output), *targets)  # noqa: E731
        export_training_step(model, inputs, opts.output, loss_fn=loss_fn, targets=[t for _, t in opts.target],
                             weights=not opts.no_weights, keep_debug_metadata=opts.keep_debug_metadata)
    else:
        export_inference(model, inputs, opts.output, weights=not opts.no_weights,
                         decompose=not opts.no_decompose, keep_debug_metadata=opts.keep_debug_metadata)
    print(f"wrote {opts.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
