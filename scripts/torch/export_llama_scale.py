#!/usr/bin/env python3
"""Exports the joint forward + backward graph of a Llama-3-8B-like model without weights.

    /tmp/torchvenv/bin/python scripts/torch/export_llama_scale.py [-o OUT.pt2] [--layers 32] [--seq 2048]

transformers' LlamaForCausalLM with Llama-3-8B's shape (hidden 4096, 32 heads, 8 key/value heads,
intermediate 14336, vocabulary 128256, rope theta 500000, bfloat16), built under FakeTensorMode
(``tensorplan_export.fake_weights``: shapes, no bytes), exported as one training step
(forward, the model's causal-LM loss, backward) by python/tensorplan_export.py and written without
weights. ``torch.export.save`` stores its zip entries uncompressed (5.6 MB for 32 layers at
sequence 2048, nearly all of it model.json); the file is then rewritten with the same entries
deflated (about 0.23 MB), which tensorplan's reader (fflate) and Python's zipfile read alike.
bench/torch.bench.mjs imports and plans the committed copy, bench/data/torch/llama3-8b-32l.train.pt2,
on each backend. Prints one JSON line: the configuration, the seconds of each stage (model build,
trace and joint graph, save, deflate) and the sizes, also written beside the archive (.json).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "python"))

import torch  # noqa: E402
import tensorplan_export as tpe  # noqa: E402

from transformers_cpu import import_transformers  # noqa: E402

transformers = import_transformers()

# meta-llama/Meta-Llama-3-8B config.json (hidden_size, heads, intermediate_size, vocab_size, rope_theta).
LLAMA3_8B = dict(hidden_size=4096, num_attention_heads=32, num_key_value_heads=8, intermediate_size=14336,
                 vocab_size=128256, rope_theta=500000.0, max_position_embeddings=8192, rms_norm_eps=1e-5,
                 tie_word_embeddings=False, use_cache=False, attn_implementation="sdpa")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", help="a .pt2 path", default=os.path.join(ROOT, "bench", "data", "torch", "llama3-8b-32l.train.pt2"))
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--seq", type=int, default=2048)
    parser.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float32"])
    opts = parser.parse_args()
    config = dict(LLAMA3_8B, num_hidden_layers=opts.layers)
    dtype = getattr(torch, opts.dtype)

    start = time.perf_counter()
    # The default dtype makes the parameters bfloat16 as they are built (Module.to under the fake
    # mode fails to swap the fake parameters: "Couldn't swap Embedding.weight").
    torch.set_default_dtype(dtype)
    with tpe.fake_weights():
        model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**config))
    torch.set_default_dtype(torch.float32)
    model.train()
    built = time.perf_counter()
    g = torch.Generator().manual_seed(0)
    inputs = {"input_ids": torch.randint(0, config["vocab_size"], (opts.batch, opts.seq), generator=g),
              "labels": torch.randint(0, config["vocab_size"], (opts.batch, opts.seq), generator=g)}
    ep = tpe.export_program(model, inputs, training=True)
    exported = time.perf_counter()
    os.makedirs(os.path.dirname(os.path.abspath(opts.output)), exist_ok=True)
    stored = opts.output[: -len(".pt2")] + ".stored.pt2"
    tpe.save(ep, stored, weights=False)
    saved = time.perf_counter()
    with zipfile.ZipFile(stored) as source, zipfile.ZipFile(opts.output, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as out:
        for info in source.infolist():
            out.writestr(info.filename, source.read(info.filename))
    stored_bytes = os.path.getsize(stored)
    os.remove(stored)
    deflated = time.perf_counter()
    figures = {
        "file": os.path.relpath(opts.output, ROOT), "bytes": os.path.getsize(opts.output), "stored_bytes": stored_bytes,
        "nodes": len(ep.graph.nodes), "config": config, "dtype": opts.dtype, "batch": opts.batch, "seq": opts.seq,
        "torch": torch.__version__, "transformers": transformers.__version__,
        "build_s": round(built - start, 1), "export_s": round(exported - built, 1), "save_s": round(saved - exported, 1),
        "deflate_s": round(deflated - saved, 1), "load_average": round(os.getloadavg()[0], 1),
        "machine": f"{os.cpu_count()} CPU cores",
    }
    # Beside the archive: how it was made, for the bench to print.
    with open(opts.output[: -len(".pt2")] + ".json", "w") as f:
        json.dump(figures, f, indent=2)
        f.write("\n")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
