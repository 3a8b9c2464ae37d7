"""Exports, with plain torch.export and its weights, an embedding whose output head is the same
tensor (tied weights: torch.export lists it twice), for torch-shared-weights.test.ts, and prints as
JSON the archive's path and PyTorch's eager live-storage figures (scripts/torch/measure_eager.py).
Usage: python3 export_tied.py OUT_DIR"""
import json
import os
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ in scripts/
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'scripts', 'torch'))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from measure_eager import measure_program  # noqa: E402


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 16)
        self.head = nn.Linear(16, 50, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, ids):
        return self.head(self.embed(ids))


torch.manual_seed(0)
ep = torch.export.export(Tied(), (torch.randint(0, 50, (2, 8)),))
path = os.path.join(sys.argv[1], 'tied.pt2')
torch.export.save(ep, path)
print(json.dumps({'path': path, 'eager': measure_program(ep)}))
