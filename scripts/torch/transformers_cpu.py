"""Imports transformers beside the CPU build of torch.

transformers imports torchvision when it is installed (timm installs it). The package index's
torchvision wheel is built for CUDA torch: with the CPU torch its C++ ops library does not load,
and only its fake-tensor registrations (detection ops, unused here) fail. So torchvision is
imported first with those registrations skipped, as scripts/onnx-fixtures/export.py does.
"""
import torch


def import_transformers():
    """The transformers module, with torchvision's failing registrations skipped."""
    register_fake = torch.library.register_fake
    torch.library.register_fake = lambda *a, **k: (lambda f: f)
    try:
        import torchvision  # noqa: F401
    except ImportError:
        pass
    finally:
        torch.library.register_fake = register_fake
    import transformers

    return transformers
