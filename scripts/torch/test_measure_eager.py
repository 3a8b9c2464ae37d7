#!/usr/bin/env python3
"""Checks scripts/torch/measure_eager.py on programs whose live bytes are known by hand.

    python3 scripts/torch/test_measure_eager.py [-v]
"""
from __future__ import annotations

import os
import sys
import tempfile
import unittest

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_eager import main, measure_program  # noqa: E402

FLOAT = 4


class MatmulTransposeExp(nn.Module):
    """mm -> t -> exp: x 64x32 (8 KiB), w 32x128 (16 KiB), two 32 KiB results (t is a view)."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(32, 128))

    def forward(self, x):
        return torch.exp(torch.mm(x, self.w).t())


class Product(nn.Module):
    def forward(self, a, b):
        return a * b


class Tied(nn.Module):
    """Two modules holding one weight; the second's placeholder has no users after export."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(16, 16, bias=False)
        self.b = nn.Linear(16, 16, bias=False)
        self.b.weight = self.a.weight

    def forward(self, x):
        return self.a(x)


class Attention(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v)


class MeasureEager(unittest.TestCase):
    def test_three_op_graph_by_hand(self):
        ep = torch.export.export(MatmulTransposeExp(), (torch.randn(64, 32),)).run_decompositions()
        r = measure_program(ep)
        # mm's 32 KiB and exp's 32 KiB are alive together at exp (permute is a view of mm).
        self.assertEqual(r["persistent_bytes"], 8192 + 16384)
        self.assertEqual(r["intermediate_peak_bytes"], 65536)
        self.assertEqual(r["peak_bytes"], 90112)
        self.assertEqual(r["output_bytes"], 32768)
        self.assertEqual(r["persistent_by_kind"], {"parameters": 16384, "buffers": 0, "constants": 0, "user_inputs": 8192})

    def test_inputs_sharing_a_storage_count_once(self):
        x = torch.randn(256)
        ep = torch.export.export(Product(), (x, torch.randn(256)))
        r = measure_program(ep, (x, x), {})
        self.assertEqual(r["persistent_by_kind"]["user_inputs"], 256 * FLOAT)
        self.assertEqual(r["peak_bytes"], 2 * 256 * FLOAT)

    def test_tied_weights_count_once(self):
        ep = torch.export.export(Tied(), (torch.randn(4, 16),))
        params = [s for s in ep.graph_signature.input_specs if s.kind.name == "PARAMETER"]
        self.assertEqual(len(params), 2)
        r = measure_program(ep)
        self.assertEqual(r["persistent_by_kind"]["parameters"], 16 * 16 * FLOAT)

    def test_hidden_output_of_a_composite_op(self):
        # Kept whole (no decomposition), scaled_dot_product_attention on CPU runs
        # _scaled_dot_product_flash_attention_for_cpu: its logsumexp (batch x heads x
        # queries floats) is alive with the output although the graph shows one value.
        q = torch.randn(1, 2, 8, 16)
        ep = torch.export.export(Attention(), (q, q.clone(), q.clone()))
        shown = [str(n.target) for n in ep.graph.nodes if n.op == "call_function"]
        self.assertEqual(shown, ["aten.scaled_dot_product_attention.default"])
        r = measure_program(ep)
        self.assertEqual(r["output_bytes"], q.numel() * FLOAT)
        self.assertEqual(r["intermediate_peak_bytes"], q.numel() * FLOAT + 1 * 2 * 8 * FLOAT)

    def test_command_line_on_a_saved_archive(self):
        ep = torch.export.export(MatmulTransposeExp(), (torch.randn(64, 32),)).run_decompositions()
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "m.pt2")
            torch.export.save(ep, path)
            self.assertEqual(main([path, "--json"]), 0)

    def test_meta_tensors_are_refused(self):
        with torch.device("meta"):
            model = MatmulTransposeExp()
        ep = torch.export.export(model, (torch.empty(64, 32, device="meta"),))
        with self.assertRaises(ValueError):
            measure_program(ep)


if __name__ == "__main__":
    unittest.main()
