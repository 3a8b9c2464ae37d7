#!/usr/bin/env python3
"""Checks python/tensorplan_export.py against eager PyTorch.

    python3 test/python/test_tensorplan_export.py [-v]

The joint forward + backward graphs come from private torch.export APIs, so
every training-step export here is run and its gradients (and BatchNorm's
updated running statistics) compared with eager autograd on the same model,
inputs and seed. Models: a pre-norm transformer block calling
``F.scaled_dot_product_attention`` (causal), a small language model whose
output projection is tied to its embedding, and a CNN with BatchNorm in
training mode. Prints each comparison's largest absolute difference.
Needs only torch (CPU).
"""
from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest
import zipfile

import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# python/ ships in the npm package: leave no __pycache__ there.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "python"))
import tensorplan_export as tpe  # noqa: E402

# float32 gradients of the same arithmetic in another order (the joint graph's
# decompositions) differ by rounding only: about 1e-8 on these models.
TOLERANCE = 1e-5


class Block(nn.Module):
    """Pre-norm transformer block: causal SDPA attention and a GELU MLP."""

    def __init__(self, dim: int = 32, heads: int = 4):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(attn.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.norm2(x))


class TiedLM(nn.Module):
    """Embedding, one block, and an output projection sharing the embedding's weight."""

    def __init__(self, vocab: int = 64, dim: int = 32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.block = Block(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, ids):
        return self.head(self.block(self.embed(ids)))


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
            nn.Conv2d(8, 8, 3, padding=1, stride=2), nn.BatchNorm2d(8), nn.ReLU())
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        return self.fc(self.features(x).mean(dim=(2, 3)))


def lm_loss(logits, labels):
    return F.cross_entropy(logits.flatten(0, 1), labels.flatten())


def run_joint(ep):
    """Run the joint graph on its example inputs: {output kind: {target: tensor}} and the loss."""
    flat = ep._graph_module_flat_inputs(*ep.example_inputs)
    with torch.no_grad():
        outputs = ep.graph_module(*flat)
    by_kind: dict[str, dict[str, torch.Tensor]] = {}
    loss = None
    for spec, value in zip(ep.graph_signature.output_specs, outputs):
        kind = spec.kind.name
        if kind == "LOSS_OUTPUT":
            loss = value
        else:
            by_kind.setdefault(kind, {})[spec.target] = value
    return by_kind, loss


def compare_training_step(test, make_model, inputs, loss_fn, targets, label):
    """Export a training step and compare loss, gradients and buffers with eager autograd."""
    torch.manual_seed(0)
    model = make_model().train()
    reference = copy.deepcopy(model)
    ep = tpe.export_program(model, inputs, training=True, loss_fn=loss_fn, targets=targets)
    by_kind, loss = run_joint(ep)

    eager_loss = loss_fn(reference(*inputs), *targets)
    eager_loss.backward()
    test.assertLess(abs(loss.item() - eager_loss.item()), TOLERANCE, f"{label}: loss")

    grads = by_kind.get("GRADIENT_TO_PARAMETER", {})
    # Every name of a tied weight maps to the same tensor; the joint graph gives one gradient per tensor.
    params = dict(reference.named_parameters(remove_duplicate=False))
    graded = [id(params[t.removeprefix("model.")]) for t in grads]
    test.assertEqual(sorted(graded), sorted(id(p) for p in reference.parameters()), f"{label}: one gradient per parameter")
    worst = 0.0
    for target, grad in grads.items():
        expected = params[target.removeprefix("model.")].grad
        worst = max(worst, (grad - expected).abs().max().item())
    test.assertLess(worst, TOLERANCE, f"{label}: gradients")

    buffers = dict(reference.named_buffers())
    worst_buffer = 0.0
    for target, value in by_kind.get("BUFFER_MUTATION", {}).items():
        worst_buffer = max(worst_buffer, (value.float() - buffers[target.removeprefix("model.")].float()).abs().max().item())
    test.assertLess(worst_buffer, TOLERANCE, f"{label}: updated buffers")
    print(f"  {label}: {len(grads)} gradients, max |joint - eager| = {worst:.3g}; "
          f"{len(by_kind.get('BUFFER_MUTATION', {}))} buffers, max diff {worst_buffer:.3g}", file=sys.stderr)
    return ep


def stock_gradient_error(make_model, inputs, loss_fn, targets):
    """The largest gradient error of PyTorch's own _export_forward_backward, or its exception text."""
    from torch.export.experimental import _export_forward_backward

    torch.manual_seed(0)
    model = make_model().train()
    reference = copy.deepcopy(model)
    step = tpe.TrainingStep(model, loss_fn)
    try:
        ep = _export_forward_backward(torch.export.export(step, (tuple(inputs), {}, tuple(targets))))
    except Exception as error:  # the tied-weights case raises
        return str(error).splitlines()[0]
    by_kind, _ = run_joint(ep)
    loss_fn(reference(*inputs), *targets).backward()
    params = dict(reference.named_parameters(remove_duplicate=False))
    return max((g - params[t.removeprefix("model.")].grad).abs().max().item()
               for t, g in by_kind["GRADIENT_TO_PARAMETER"].items())


def model_json(path: str) -> dict:
    with zipfile.ZipFile(path) as archive:
        name = next(n for n in archive.namelist() if n.endswith("models/model.json"))
        return json.loads(archive.read(name))


class JointGradients(unittest.TestCase):
    def test_transformer_block_with_sdpa(self):
        torch.manual_seed(1)
        x, y = torch.randn(2, 8, 32), torch.randn(2, 8, 32)
        ep = compare_training_step(self, Block, (x,), F.mse_loss, (y,), "transformer block (SDPA)")
        targets = {str(n.target) for n in ep.graph.nodes}
        self.assertIn("aten._scaled_dot_product_flash_attention_for_cpu.default", targets)
        self.assertIn("aten._scaled_dot_product_flash_attention_for_cpu_backward.default", targets)
        print(f"  PyTorch's own _export_forward_backward on the block: max gradient error "
              f"{stock_gradient_error(Block, (x,), F.mse_loss, (y,))}", file=sys.stderr)

    def test_tied_weights(self):
        torch.manual_seed(2)
        ids = torch.randint(0, 64, (2, 8))
        ep = compare_training_step(self, TiedLM, (ids,), lm_loss, (ids,), "tied embedding / output projection")
        params = [s.target for s in ep.graph_signature.input_specs if s.kind.name == "PARAMETER"]
        self.assertEqual(len(params), len(set(params)))
        self.assertEqual(sum(1 for p in params if p.endswith(("embed.weight", "head.weight"))), 1)
        print(f"  PyTorch's own _export_forward_backward on the tied model: "
              f"{stock_gradient_error(TiedLM, (ids,), lm_loss, (ids,))}", file=sys.stderr)

    def test_batchnorm_in_training_mode(self):
        torch.manual_seed(3)
        x, labels = torch.randn(4, 3, 8, 8), torch.randint(0, 10, (4,))
        ep = compare_training_step(self, SmallCNN, (x,), F.cross_entropy, (labels,), "CNN with BatchNorm (training)")
        kinds = [s.kind.name for s in ep.graph_signature.output_specs]
        self.assertEqual(kinds.count("BUFFER_MUTATION"), 6)  # running mean, var, batches tracked, twice


class Archives(unittest.TestCase):
    def test_weightless_archive_has_the_same_graph_and_no_bytes(self):
        torch.manual_seed(0)
        model = Block().train()
        x, y = torch.randn(2, 8, 32), torch.randn(2, 8, 32)
        with tempfile.TemporaryDirectory() as tmp:
            full, bare = os.path.join(tmp, "full.pt2"), os.path.join(tmp, "bare.pt2")
            tpe.export_training_step(model, (x,), full, loss_fn=F.mse_loss, targets=(y,))
            tpe.export_training_step(model, (x,), bare, loss_fn=F.mse_loss, targets=(y,), weights=False)
            with zipfile.ZipFile(bare) as archive:
                data = [i for i in archive.infolist() if "/data/" in i.filename and not i.filename.endswith(".json")]
                self.assertTrue(data)
                self.assertEqual([i.file_size for i in data if "sample_inputs" not in i.filename], [0] * sum(
                    1 for i in data if "sample_inputs" not in i.filename))
            a, b = model_json(full), model_json(bare)
            self.assertEqual(a["graph_module"]["graph"], b["graph_module"]["graph"])
            self.assertEqual(a["graph_module"]["signature"], b["graph_module"]["signature"])
            self.assertLess(os.path.getsize(bare), os.path.getsize(full))
            nodes = json.dumps(b["graph_module"]["graph"]["nodes"])
            self.assertNotIn("stack_trace", nodes)
            self.assertNotIn("from_node", nodes)

    def test_fake_weights_trace_the_same_graph(self):
        ids = torch.randint(0, 64, (2, 8))
        torch.manual_seed(0)
        real = TiedLM().train()
        with tpe.fake_weights():
            fake = TiedLM().train()
        with tempfile.TemporaryDirectory() as tmp:
            a_path, b_path = os.path.join(tmp, "real.pt2"), os.path.join(tmp, "fake.pt2")
            tpe.export_training_step(real, (ids,), a_path, loss_fn=lm_loss, targets=(ids,), weights=False)
            tpe.export_training_step(fake, (ids,), b_path, loss_fn=lm_loss, targets=(ids,), weights=False)
            a, b = model_json(a_path), model_json(b_path)
        self.assertEqual(a["graph_module"]["graph"], b["graph_module"]["graph"])

    def test_inference_keeps_flash_attention_whole_and_drops_unused_parameters(self):
        torch.manual_seed(0)
        model = TiedLM().eval()
        ep = tpe.export_program(model, (torch.randint(0, 64, (2, 8)),))
        targets = [str(n.target) for n in ep.graph.nodes if n.op == "call_function"]
        self.assertIn("aten._scaled_dot_product_flash_attention_for_cpu.default", targets)
        self.assertEqual(ep.verifiers[0].dialect, "ATEN")
        params = [s for s in ep.graph_signature.input_specs if s.kind.name == "PARAMETER"]
        placeholders = {n.name: n for n in ep.graph.nodes if n.op == "placeholder"}
        self.assertTrue(all(placeholders[s.arg.name].users for s in params))
        with torch.no_grad():
            expected = model(ep.example_inputs[0][0])
            got = ep.module()(*ep.example_inputs[0])
        self.assertLess((got - expected).abs().max().item(), TOLERANCE)

    def test_meta_model_exports_for_inference_only(self):
        with torch.device("meta"):
            model = SmallCNN().eval()
        x = torch.randn(2, 3, 8, 8)
        ep = tpe.export_program(model, (x,))
        self.assertTrue(any(str(n.target) == "aten.convolution.default" for n in ep.graph.nodes))
        with self.assertRaisesRegex(ValueError, "fake_weights"):
            tpe.export_program(model.train(), (x,), training=True, loss_fn=F.cross_entropy, targets=(torch.zeros(2, dtype=torch.int64),))

    def test_command_line_help(self):
        script = os.path.join(ROOT, "python", "tensorplan_export.py")
        out = subprocess.run([sys.executable, script, "--help"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("--training", out.stdout)
        self.assertIn("--no-weights", out.stdout)


if __name__ == "__main__":
    unittest.main()
