"""Device selection: CPU unless CUDA is asked for, and a clear error when it is absent."""

from collections.abc import Iterator
from contextlib import contextmanager

import torch

from interp_repro.core.validate import check_positive_int

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


@contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """Run the body on ``n`` torch threads, then restore the thread count.

    One thread suits many small steps on small tensors (thousands of steps of RNNs or two-layer
    networks): a second thread only adds synchronisation, and on a busy machine a thread that waits
    for a preempted partner slows every operation down by an order of magnitude.
    """
    check_positive_int("threads", n)
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)
