"""Device selection: CPU unless CUDA is asked for, and a clear error when it is absent."""

import torch

DEVICES = ("cpu", "cuda")


def select_device(name: str = "cpu") -> torch.device:
    """Return the torch device called ``name`` ('cpu' or 'cuda').

    Raises ``ValueError`` for another name and ``RuntimeError`` if CUDA is asked for but absent.
    """
    if name not in DEVICES:
        raise ValueError(f"unknown device {name!r}: choose one of {', '.join(DEVICES)}")
    if name == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("device 'cuda' was asked for, but torch sees no CUDA GPU on this machine")
    return torch.device(name)
