# Whisper-tiny's encoder at full size, like-for-like with ONNX Runtime (the figures in docs/onnx.md,
# "Measured against ORT"): transformers' WhisperConfig of whisper-tiny (d_model 384, 4 layers, 6
# heads, ffn 1536, 80 mel bins, 1500 positions; default sdpa attention), random init (nothing is
# downloaded), exported by the TorchScript (opset 17) and dynamo (opset 18) exporters into OUT_DIR
# (about 33 MB each, not committed), then run by test/frontends/onnx/ort-arena.py. Prints, per file,
# ORT's pattern block (`minRequested`) and the command that plans it with tensorplan.
#
#   /tmp/venv/bin/python scripts/onnx-fixtures/whisper_tiny.py [OUT_DIR]
import json, os, subprocess, sys, tempfile, warnings

import torch
import torch.nn as nn

# transformers imports torchvision where it is installed; the index's torchvision wheel is built for CUDA
# torch, and with the CPU torch only its fake-tensor registrations (unused here) fail, as in export.py.
_register_fake = torch.library.register_fake
torch.library.register_fake = lambda *a, **k: (lambda f: f)
try:
    import torchvision  # noqa: F401
except ImportError:
    pass
torch.library.register_fake = _register_fake
import transformers

warnings.filterwarnings('ignore')
OUT = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix='whisper-tiny-')
os.makedirs(OUT, exist_ok=True)
ORT_ARENA = os.path.join(os.path.dirname(__file__), '..', '..', 'test', 'frontends', 'onnx', 'ort-arena.py')
TINY = dict(d_model=384, encoder_layers=4, encoder_attention_heads=6, decoder_layers=4, decoder_attention_heads=6,
            encoder_ffn_dim=1536, decoder_ffn_dim=1536, num_mel_bins=80, max_source_positions=1500, vocab_size=51865)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = transformers.models.whisper.modeling_whisper.WhisperEncoder(transformers.WhisperConfig(**TINY))

    def forward(self, features):
        return self.enc(features).last_hidden_state


torch.manual_seed(0)
model = Encoder().eval()
features = torch.randn(1, 80, 3000)
paths = {'torchscript': os.path.join(OUT, 'whisper_tiny_encoder.onnx'), 'dynamo': os.path.join(OUT, 'whisper_tiny_encoder_dynamo.onnx')}
with torch.no_grad():
    torch.onnx.export(model, (features,), paths['torchscript'], dynamo=False, input_names=['features'], output_names=['hidden'],
                      opset_version=17, do_constant_folding=True)
    torch.onnx.export(model, (features,), dynamo=True, input_names=['features'], output_names=['hidden'], opset_version=18,
                      optimize=True).save(paths['dynamo'])
spec = json.dumps({'features': {'shape': [1, 80, 3000], 'dtype': 'float32'}})
for exporter, path in paths.items():
    run = subprocess.run([sys.executable, ORT_ARENA, path, spec], capture_output=True, text=True, check=True)
    print(f'{exporter}: ORT pattern block {json.loads(run.stdout)["minRequested"]} B; '
          f'tensorplan: node bin/tensorplan.mjs plan {path} --external-io --runtime ort-cpu --json (arenaBytes)')
