#!/usr/bin/env python3
"""Writes the torch.export (.pt2) fixtures in test/fixtures/torch-models/ (see its README.md).

    python3 -m venv /tmp/torchvenv
    /tmp/torchvenv/bin/pip install /opt/wheels/torch-2.13.0+cpu-*.whl transformers
    /tmp/torchvenv/bin/python scripts/torch/export_fixtures.py [OUT_DIR] [--skip-fake-check]

Public architectures at random initialisation (seeded; nothing downloaded), in
tiny configurations, each exported by python/tensorplan_export.py for inference
and for one training step, written without weights. For each file the
manifest records the model, its configuration, the graph's user inputs, the IR,
the versions, and PyTorch's eager live-storage peak (scripts/torch/measure_eager.py).

A weightless archive cannot run, so each program is exported once from the
real (seeded) model, measured eagerly, and written without its weights: the
recorded figure belongs to exactly the graph in the file. With the default
fake check, the same model is also built under FakeTensorMode
(``tensorplan_export.fake_weights``) and exported again, and its graph and
signature must equal the written ones.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import zipfile

import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# python/ ships in the npm package: leave no __pycache__ there.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensorplan_export as tpe  # noqa: E402
from measure_eager import measure_program  # noqa: E402

from transformers_cpu import import_transformers  # noqa: E402

transformers = import_transformers()

MAX_BYTES = 300_000
# The smallest T5 (one encoder and one decoder layer) cannot fit MAX_BYTES: its joint graph has
# about 820 nodes, and torch's JSON spends about 640 bytes per node with its tensor value; its
# inference graph's nn_module_stack metadata (long module paths) alone is over 100 KB.
SIZE_EXCEPTIONS = {"t5_encoder_decoder.infer.pt2": 320_000, "t5_encoder_decoder.train.pt2": 600_000}
DTYPE_NAMES = {torch.float32: "float32", torch.int64: "int64", torch.int32: "int32", torch.bool: "bool"}


# --- the models ------------------------------------------------------------------------------

class InPlaceMLP(nn.Module):
    """A hand-written MLP whose activations and residuals are in-place ops.

    ``mul_`` on a slice (a view) of an intermediate, ``relu_``, ``add_``,
    ``masked_fill_`` and ``mul_``: plain ``torch.export`` keeps them as mutating
    ops (training IR); the joint graph is functional (``slice_scatter``, ``copy``).
    """

    def __init__(self, dim: int = 32, classes: int = 10):
        super().__init__()
        self.fc1 = nn.Linear(dim, 2 * dim)
        self.fc2 = nn.Linear(2 * dim, dim)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        h = self.fc1(x)
        h[:, : h.shape[1] // 2].mul_(0.5)  # before relu_: autograd saves relu's output
        h.relu_()
        y = self.fc2(h)
        y.add_(x)
        y.masked_fill_(y < -3.0, -3.0)
        return self.head(self.norm(y).mul_(2.0))


def hf(cls_name: str, config_name: str, **config):
    def build():
        cfg = getattr(transformers, config_name)(**config)
        return getattr(transformers, cls_name)(cfg)

    return build


def lm_ids(vocab: int, batch: int, length: int, generator: torch.Generator) -> torch.Tensor:
    return torch.randint(0, vocab, (batch, length), generator=generator)


# name -> (source, licence, builder, config, inference inputs, training inputs, loss, notes)
def model_table(g: torch.Generator) -> dict:
    bert = dict(vocab_size=128, hidden_size=32, num_hidden_layers=1, num_attention_heads=4, intermediate_size=64,
                max_position_embeddings=64, num_labels=4, attn_implementation="sdpa")
    llama = dict(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4,
                 num_key_value_heads=2, max_position_embeddings=64, tie_word_embeddings=False, use_cache=False,
                 attn_implementation="sdpa")
    t5 = dict(vocab_size=128, d_model=32, d_kv=8, d_ff=64, num_layers=1, num_decoder_layers=1, num_heads=4,
              dropout_rate=0.0, use_cache=False, decoder_start_token_id=0, pad_token_id=0)
    gpt2 = dict(vocab_size=128, n_positions=64, n_embd=32, n_layer=1, n_head=4, use_cache=False,
                attn_implementation="sdpa")
    resnet = dict(num_channels=3, embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1], layer_type="basic",
                  num_labels=10)
    ids, mask = lm_ids(128, 2, 16, g), torch.ones(2, 16, dtype=torch.int64)
    return {
        "resnet_bn": dict(
            source="transformers ResNetForImageClassification (basic blocks, BatchNorm)", licence="Apache-2.0",
            build=hf("ResNetForImageClassification", "ResNetConfig", **resnet), config=resnet,
            inference={"pixel_values": torch.randn(2, 3, 32, 32, generator=g)},
            training={"pixel_values": torch.randn(2, 3, 32, 32, generator=g), "labels": torch.randint(0, 10, (2,), generator=g)},
            loss="the model's own (cross-entropy on labels)",
            note="inference in eval mode (running statistics read); the training step in training mode: "
                 "batch statistics and buffer_mutation outputs for running_mean, running_var, num_batches_tracked"),
        "bert_encoder": dict(
            source="transformers BertForSequenceClassification", licence="Apache-2.0",
            build=hf("BertForSequenceClassification", "BertConfig", **bert), config=bert,
            inference={"input_ids": ids, "attention_mask": mask},
            training={"input_ids": ids.clone(), "attention_mask": mask.clone(), "labels": torch.randint(0, 4, (2,), generator=g)},
            loss="the model's own (cross-entropy on labels)", note="SDPA with a padding mask, GELU, LayerNorm, pooler"),
        "llama_gqa": dict(
            source="transformers LlamaForCausalLM", licence="Apache-2.0",
            build=hf("LlamaForCausalLM", "LlamaConfig", **llama), config=llama,
            inference={"input_ids": ids.clone()},
            training={"input_ids": ids.clone(), "labels": lm_ids(128, 2, 16, g)},
            loss="the model's own (shifted causal-LM cross-entropy on labels)",
            note="grouped-query attention (4 query heads, 2 key/value heads: repeat_kv expand + reshape), "
                 "rotary embeddings, RMSNorm, SiLU-gated MLP"),
        "t5_encoder_decoder": dict(
            source="transformers T5ForConditionalGeneration", licence="Apache-2.0",
            build=hf("T5ForConditionalGeneration", "T5Config", **t5), config=t5,
            inference={"input_ids": ids.clone(), "decoder_input_ids": lm_ids(128, 2, 8, g)},
            training={"input_ids": ids.clone(), "labels": lm_ids(128, 2, 8, g)},
            loss="the model's own (cross-entropy on labels; decoder inputs are the shifted labels)",
            note="relative position bias, encoder-decoder cross-attention, T5 layer norm (RMS), tied input/output "
                 "embedding; dropout 0 to keep the joint graph small"),
        "gpt2_tied": dict(
            source="transformers GPT2LMHeadModel", licence="Apache-2.0",
            build=hf("GPT2LMHeadModel", "GPT2Config", **gpt2), config=gpt2,
            inference={"input_ids": ids.clone()},
            training={"input_ids": ids.clone(), "labels": lm_ids(128, 2, 16, g)},
            loss="the model's own (shifted causal-LM cross-entropy on labels)",
            note="lm_head.weight is transformer.wte.weight: one parameter input (the unused duplicate dropped)"),
        "inplace_mlp": dict(
            source="InPlaceMLP in scripts/torch/export_fixtures.py", licence="MIT (this project)",
            build=InPlaceMLP, config=dict(dim=32, classes=10),
            inference=(torch.randn(8, 32, generator=g),),
            training=(torch.randn(8, 32, generator=g),), targets=(torch.randint(0, 10, (8,), generator=g),),
            loss_fn=F.cross_entropy, loss="F.cross_entropy(logits, target)",
            note="inference kept in the training IR (decompose=False) so the in-place ops stay in the graph"),
    }


# --- export, measure, write ------------------------------------------------------------------

def model_json(path: str) -> dict:
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read(next(n for n in archive.namelist() if n.endswith("models/model.json"))))


def user_inputs(ep) -> dict:
    """The graph's user inputs in order: placeholder name -> shape and dtype."""
    flat = ep._graph_module_flat_inputs(*ep.example_inputs)
    out = {}
    for spec, value in zip(ep.graph_signature.input_specs, flat):
        if spec.kind.name == "USER_INPUT":
            out[spec.arg.name] = {"shape": list(value.shape), "dtype": DTYPE_NAMES[value.dtype]}
    return out


def check_whole_storages(ep, file: str) -> None:
    """Each input fills its storage, so the measured persistent bytes are the archive's tensor sizes."""
    for value in ep._graph_module_flat_inputs(*ep.example_inputs):
        if isinstance(value, torch.Tensor) and (
                value.untyped_storage().nbytes() != value.numel() * value.element_size() or not value.is_contiguous()):
            raise SystemExit(f"{file}: an input is not a whole contiguous storage ({list(value.shape)})")


def export_one(entry: dict, training: bool, seed: int):
    torch.manual_seed(seed)
    model = entry["build"]()
    model.train() if training else model.eval()
    inputs = entry["training" if training else "inference"]
    decompose = not (entry["build"] is InPlaceMLP and not training)
    ep = tpe.export_program(model, inputs, training=training, loss_fn=entry.get("loss_fn"),
                            targets=entry.get("targets", ()) if training else (), decompose=decompose)
    return ep, decompose


def fake_graph(entry: dict, training: bool, decompose: bool, path: str) -> dict:
    """The graph traced from the same model built under FakeTensorMode, as written to ``path``."""
    with tpe.fake_weights():
        model = entry["build"]()
    model.train() if training else model.eval()
    inputs = entry["training" if training else "inference"]
    ep = tpe.export_program(model, inputs, training=training, loss_fn=entry.get("loss_fn"),
                            targets=entry.get("targets", ()) if training else (), decompose=decompose)
    tpe.save(ep, path, weights=False)
    return model_json(path)["graph_module"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", default=os.path.join(ROOT, "test", "fixtures", "torch-models"))
    parser.add_argument("--skip-fake-check", action="store_true", help="do not re-export under FakeTensorMode")
    parser.add_argument("--only", help="export only this model (a manifest key prefix)")
    opts = parser.parse_args()
    os.makedirs(opts.out, exist_ok=True)
    manifest_path = os.path.join(opts.out, "manifest.json")
    manifest = {"torch": torch.__version__, "transformers": transformers.__version__, "files": {}}
    if opts.only and os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest["files"] = json.load(f)["files"]

    oversized = []
    g = torch.Generator().manual_seed(0)
    for seed, (name, entry) in enumerate(model_table(g).items()):
        if opts.only and not name.startswith(opts.only):
            continue
        for training in (False, True):
            file = f"{name}.{'train' if training else 'infer'}.pt2"
            path = os.path.join(opts.out, file)
            ep, decompose = export_one(entry, training, seed)
            eager = measure_program(ep)
            check_whole_storages(ep, file)
            inputs = user_inputs(ep)
            ir = "joint" if training else ("core-aten" if decompose else "training")
            tpe.save(ep, path, weights=False)
            written = model_json(path)
            if not opts.skip_fake_check:
                fake = fake_graph(entry, training, decompose, path[:-4] + ".fake.pt2")
                os.remove(path[:-4] + ".fake.pt2")
                for key in ("graph", "signature"):
                    if fake[key] != written["graph_module"][key]:
                        raise SystemExit(f"{file}: the FakeTensorMode export's {key} differs from the measured one")
            size = os.path.getsize(path)
            if size > SIZE_EXCEPTIONS.get(file, MAX_BYTES):
                oversized.append(f"{file}: {size} bytes")
            manifest["files"][file] = {
                "model": name,
                "source": entry["source"],
                "licence": entry["licence"],
                "config": entry["config"],
                "program": "training step (forward, loss, backward)" if training else "inference",
                "ir": ir,
                "verifiers": written["verifiers"],
                "inputs": inputs,
                "loss": entry["loss"] if training else None,
                "note": entry["note"],
                "nodes": len(written["graph_module"]["graph"]["nodes"]),
                "bytes": size,
                "max_bytes": SIZE_EXCEPTIONS.get(file, MAX_BYTES),
                "torch": torch.__version__,
                "eager": eager,
            }
            print(f"{file}: {size} B, {manifest['files'][file]['nodes']} nodes, eager peak {eager['peak_bytes']} B "
                  f"(persistent {eager['persistent_bytes']}, intermediates {eager['intermediate_peak_bytes']})", flush=True)
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    if oversized:
        print(f"over the {MAX_BYTES}-byte limit: " + ", ".join(oversized), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
