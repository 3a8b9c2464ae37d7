# Exports small public architectures at random initialisation (nothing is downloaded) to ONNX,
# as real-exporter test fixtures for the importer: test/fixtures/onnx-real/ (see its README.md).
#
#   python3 -m venv /tmp/venv && /tmp/venv/bin/pip install torch torchvision onnx onnxruntime onnxscript transformers
#   /tmp/venv/bin/python scripts/onnx-fixtures/export.py [OUT_DIR]
#
# Widths and depths are shrunk so that each file stays under ~1.5 MB; the graphs keep the
# architecture's operators and shape computations, which is what the importer is tested on.
# Seeds are fixed, but the bytes depend on the torch / onnx versions (recorded in manifest.json).
import json, os, subprocess, sys, warnings

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.filterwarnings('ignore')
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..', 'test', 'fixtures', 'onnx-real')
os.makedirs(OUT, exist_ok=True)
manifest = {'torch': torch.__version__, 'onnx': onnx.__version__, 'models': {}}


def export(name, model, args, input_names, output_names, *, dynamo=False, opset=17, values=None, dims=None, note=''):
    """Exports one model; records its inputs (shapes, values) in the manifest for the tests."""
    torch.manual_seed(0)
    model.eval()
    path = os.path.join(OUT, f'{name}.onnx')
    with torch.no_grad():
        if dynamo:
            prog = torch.onnx.export(model, args, dynamo=True, input_names=input_names, output_names=output_names, opset_version=max(opset, 18), optimize=True)
            prog.save(path)
        else:
            torch.onnx.export(model, args, path, dynamo=False, input_names=input_names, output_names=output_names, opset_version=opset, do_constant_folding=True)
    m = onnx.load(path)
    onnx.checker.check_model(m)
    inputs = {}
    for n, a in zip(input_names, args):
        inputs[n] = {'shape': list(a.shape), 'dtype': str(a.dtype).replace('torch.', '')}
    entry = {'exporter': 'dynamo' if dynamo else 'torchscript', 'inputs': inputs, 'bytes': os.path.getsize(path), 'nodes': len(m.graph.node), 'note': note}
    if values: entry['values'] = values
    manifest['models'][name] = entry
    print(f'{name}: {entry["bytes"]} bytes, {entry["nodes"]} nodes')
    return path


def seeded(build):
    torch.manual_seed(0)
    return build()


# --- torchvision (BSD-3-Clause) -------------------------------------------------------------
# The index's torchvision wheel is built for CUDA torch; with the CPU torch its C++ ops library does
# not load, and only its fake-tensor registrations (detection ops, unused here) would fail.
_register_fake = torch.library.register_fake
torch.library.register_fake = lambda *a, **k: (lambda f: f)
import torchvision
torch.library.register_fake = _register_fake

mnv3 = seeded(lambda: torchvision.models.mobilenet_v3_small(weights=None, width_mult=0.25, num_classes=10))
export('mobilenet_v3_small', mnv3, (torch.randn(1, 3, 64, 64),), ['image'], ['logits'],
       note='torchvision mobilenet_v3_small(width_mult=0.25, num_classes=10): hardswish, SE blocks')
shuffle = seeded(lambda: torchvision.models.shufflenet_v2_x0_5(weights=None, num_classes=10))
export('shufflenet_v2', shuffle, (torch.randn(1, 3, 64, 64),), ['image'], ['logits'],
       note='torchvision shufflenet_v2_x0_5(num_classes=10): channel shuffle = Reshape/Transpose/Reshape, Split')
export('mobilenet_v3_small_dynamo', mnv3, (torch.randn(1, 3, 64, 64),), ['image'], ['logits'], dynamo=True,
       note='the same mobilenet through the dynamo exporter (opset 18)')

# --- transformers (Apache-2.0) ---------------------------------------------------------------
import transformers


class BertLogits(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = transformers.BertConfig(vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                      intermediate_size=64, max_position_embeddings=64, attn_implementation='eager')
        self.bert = transformers.BertModel(cfg)

    def forward(self, input_ids, attention_mask):
        return self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


bert = seeded(BertLogits)
ids = torch.randint(0, 128, (2, 16))
mask = torch.ones(2, 16, dtype=torch.int64)
export('bert_tiny', bert, (ids, mask), ['input_ids', 'attention_mask'], ['hidden'],
       note='transformers BertModel(hidden 32, 2 layers, 2 heads), eager attention: Gather embeddings, mask arithmetic, LayerNorm, Gelu/Erf')
export('bert_tiny_dynamo', bert, (ids, mask), ['input_ids', 'attention_mask'], ['hidden'], dynamo=True,
       note='the same BERT through the dynamo exporter')


class WhisperEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = transformers.WhisperConfig(d_model=32, encoder_layers=2, encoder_attention_heads=2, decoder_layers=1,
                                         decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64,
                                         num_mel_bins=16, max_source_positions=32, vocab_size=64, pad_token_id=0, bos_token_id=1,
                                         eos_token_id=2, decoder_start_token_id=1, attn_implementation='eager')
        self.enc = transformers.models.whisper.modeling_whisper.WhisperEncoder(cfg)

    def forward(self, features):
        return self.enc(features).last_hidden_state


whisper = seeded(WhisperEncoder)
export('whisper_encoder', whisper, (torch.randn(1, 16, 64),), ['features'], ['hidden'],
       note='transformers WhisperModel encoder (d_model 32, 2 layers, 16 mel bins, 64 frames): Conv1d stem, Gelu, attention')


class WhisperEncoderSdpa(nn.Module):
    """Whisper's encoder with transformers' default attention (sdpa) in whisper-tiny's proportions: heads * frames /
    d_model = 2 * 192 / 16 = 24 (whisper-tiny: 6 * 1500 / 384 = 23.4), so the [heads, frames, frames] attention
    scores are the largest tensors, as in whisper-tiny, and ONNX Runtime's in-place Softmax decides the arena."""

    def __init__(self):
        super().__init__()
        cfg = transformers.WhisperConfig(d_model=16, encoder_layers=2, encoder_attention_heads=2, decoder_layers=1,
                                         decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32,
                                         num_mel_bins=8, max_source_positions=192, vocab_size=64, pad_token_id=0, bos_token_id=1,
                                         eos_token_id=2, decoder_start_token_id=1, attn_implementation='sdpa')
        self.enc = transformers.models.whisper.modeling_whisper.WhisperEncoder(cfg)

    def forward(self, features):
        return self.enc(features).last_hidden_state


whisper_sdpa = seeded(WhisperEncoderSdpa)
export('whisper_encoder_sdpa', whisper_sdpa, (torch.randn(1, 8, 384),), ['features'], ['hidden'],
       note='transformers WhisperEncoder (d_model 16, 2 layers, 2 heads, 8 mel bins, 384 frames), sdpa attention: whisper-tiny\'s attention-to-hidden proportions')
export('whisper_encoder_sdpa_dynamo', whisper_sdpa, (torch.randn(1, 8, 384),), ['features'], ['hidden'], dynamo=True,
       note='the same Whisper encoder through the dynamo exporter')


# --- PyTorch patterns --------------------------------------------------------------------------
class PadNet(nn.Module):
    """F.pad with a computed pad list: the Concat -> Reshape -> Slice(-1) -> Transpose -> Cast -> Pad lowering."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 3)

    def forward(self, x):
        y = F.pad(x, (1, 2, 0, 3), mode='reflect')
        y = self.conv(y)
        return F.pad(y, (2, 2, 1, 1), value=0.5)


export('pad_reflect', seeded(PadNet), (torch.randn(1, 4, 12, 12),), ['x'], ['y'], note='F.pad (reflect and constant) on a conv')


class ModeSwitch(nn.Module):
    """A branch chosen by a scalar input (a mode flag, like a VAD's sample rate): scripted, so it stays an If."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(16, 16)
        self.b = nn.Linear(16, 16)

    def forward(self, x, mode):
        if bool(mode > 0):
            y = torch.relu(self.a(x))
        else:
            y = torch.sigmoid(self.b(x)) * 2.0
        return y + x


mode_switch = torch.jit.script(seeded(ModeSwitch))
export('mode_switch', mode_switch, (torch.randn(4, 16), torch.tensor(1, dtype=torch.int64)), ['x', 'mode'], ['y'],
       values={'mode': 1}, note='torch.jit.script module whose If condition depends on the scalar input "mode"')

# --- onnxruntime's quantizer (MIT) --------------------------------------------------------------
from onnxruntime.quantization import QuantType, quantize_dynamic


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(64, 128), nn.GELU(), nn.Linear(128, 64), nn.LayerNorm(64), nn.Linear(64, 10))

    def forward(self, x):
        return self.net(x)


fp32 = export('mlp_fp32_tmp', seeded(Mlp), (torch.randn(8, 64),), ['x'], ['y'])
q_path = os.path.join(OUT, 'mlp_int8_dynamic.onnx')
quantize_dynamic(fp32, q_path, weight_type=QuantType.QInt8)
entry = manifest['models'].pop('mlp_fp32_tmp')
os.remove(fp32)
qm = onnx.load(q_path)
entry.update(exporter='torchscript + onnxruntime.quantization.quantize_dynamic', bytes=os.path.getsize(q_path), nodes=len(qm.graph.node),
             note='Linear/GELU/LayerNorm MLP, weights int8: DynamicQuantizeLinear, MatMulInteger, Cast, Mul')
manifest['models']['mlp_int8_dynamic'] = entry
print(f'mlp_int8_dynamic: {entry["bytes"]} bytes, {entry["nodes"]} nodes')

# --- onnxruntime's transformer optimizer and contrib operators (MIT) ----------------------------
sys.path.insert(0, os.path.dirname(__file__))
import ort_fixtures
ort_fixtures.build(OUT, manifest)

# ONNX Runtime's memory-pattern block for each model, like-for-like with `tensorplan plan MODEL --external-io
# --runtime ort-cpu` (test/frontends/onnx/ort-arena.py: initializers fed as user buffers, graph optimisations off,
# one intra-op thread): the least requested bytes in use at a node's end in the third run.
ORT_ARENA = os.path.join(os.path.dirname(__file__), '..', '..', 'test', 'frontends', 'onnx', 'ort-arena.py')
for name, entry in manifest['models'].items():
    spec = {k: {**v, **({'value': entry['values'][k]} if k in entry.get('values', {}) else {})} for k, v in entry['inputs'].items()}
    run = subprocess.run([sys.executable, ORT_ARENA, os.path.join(OUT, f'{name}.onnx'), json.dumps(spec)], capture_output=True, text=True, check=True)
    entry['ortPatternBytes'] = json.loads(run.stdout)['minRequested']

import onnxruntime
manifest['onnxruntime'] = onnxruntime.__version__
manifest['torchvision'] = torchvision.__version__
manifest['transformers'] = transformers.__version__
with open(os.path.join(OUT, 'manifest.json'), 'w') as f:
    json.dump(manifest, f, indent=2)
    f.write('\n')
