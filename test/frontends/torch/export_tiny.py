"""Exports tiny programs with the installed torch for torch-live-export.test.ts and prints, as
JSON, each archive's path and PyTorch's eager live-storage peak (make_fixtures.py's measure):
an MLP with a dynamic batch (core ATen), measured at the example batch and at another one, and a
joint forward + backward graph of a LayerNorm MLP. Usage: python3 export_tiny.py OUT_DIR"""
import json
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'fixtures', 'torch'))
from make_fixtures import joint, measure, save_weightless  # noqa: E402


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(24)
        self.fc1 = nn.Linear(24, 48)
        self.fc2 = nn.Linear(48, 8)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(self.norm(x))))


class Loss(Net):
    def forward(self, x):
        return super().forward(x).square().mean()


def main(out):
    torch.manual_seed(0)
    result = {'torch': torch.__version__}
    x = torch.randn(4, 24)
    batch = torch.export.Dim('batch', min=2, max=64)
    ep = torch.export.export(Net().eval(), (x,), dynamic_shapes=({0: batch},)).run_decompositions()
    path = os.path.join(out, 'dynamic.pt2')
    save_weightless(ep, path)
    symbol = next(iter(ep.range_constraints.keys()))
    result['dynamic'] = {'path': path, 'symbol': str(symbol), 'peak4': measure(ep, (x,)), 'peak6': measure(ep, (torch.randn(6, 24),))}
    ep = joint(torch.export.export(Loss().train(), (x,)))
    path = os.path.join(out, 'joint.pt2')
    save_weightless(ep, path)
    result['joint'] = {'path': path, 'peak': measure(ep, (x,))}
    print(json.dumps(result))


if __name__ == '__main__':
    main(sys.argv[1])
