"""Re-exports fixtures of test/fixtures/torch-models/ with their weights and measures them live,
for torch-models.test.ts. Each program is made as scripts/torch/export_fixtures.py makes it (the
same model table, generator and per-model seed), written WITH weights to OUT_DIR, and run by
scripts/torch/measure_eager.py's measure_program. Prints, as JSON, per file: the archive's path,
the eager figures, and the torch version.

    python3 remeasure_models.py OUT_DIR FILE [FILE ...]     e.g. inplace_mlp.infer.pt2
"""
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..')
sys.dont_write_bytecode = True  # leave no __pycache__ in python/ or scripts/
sys.path.insert(0, os.path.join(ROOT, 'scripts', 'torch'))

import torch  # noqa: E402
import export_fixtures as fixtures  # noqa: E402


def main() -> int:
    out, files = sys.argv[1], sys.argv[2:]
    table = fixtures.model_table(torch.Generator().manual_seed(0))
    result = {}
    for seed, (name, entry) in enumerate(table.items()):
        for training in (False, True):
            file = f"{name}.{'train' if training else 'infer'}.pt2"
            if file not in files:
                continue
            ep, _ = fixtures.export_one(entry, training, seed)
            eager = fixtures.measure_program(ep)
            path = os.path.join(out, file)
            fixtures.tpe.save(ep, path, weights=True)
            result[file] = {'path': path, 'eager': eager, 'torch': torch.__version__}
    missing = sorted(set(files) - set(result))
    if missing:
        raise SystemExit(f'not in the model table of export_fixtures.py: {missing}')
    print(json.dumps(result))
    return 0


if __name__ == '__main__':
    sys.exit(main())
