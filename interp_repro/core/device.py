"""Device selection (CPU unless CUDA is asked for, and a clear error when it is absent) and the
number of CPU threads a computation uses."""

import os
from collections.abc import Iterator
from contextlib import contextmanager

import torch

from interp_repro.core.validate import check_positive_int

DEVICES = ("cpu", "cuda")

DEVICE_ENV = "INTERP_REPRO_DEVICE"
"""Where the studies that stack many networks per program (modular addition, the Schur RNNs) train
them: "cpu" (the default), "cuda", or "auto" (CUDA where torch sees a GPU)."""


def select_device(name: str = "cpu") -> torch.device:
    """Return the torch device called ``name`` ('cpu' or 'cuda').

    Raises ``ValueError`` for another name and ``RuntimeError`` if CUDA is asked for but absent.
    """
    if name not in DEVICES:
        raise ValueError(f"unknown device {name!r}: choose one of {', '.join(DEVICES)}")
    if name == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("device 'cuda' was asked for, but torch sees no CUDA GPU on this machine")
    return torch.device(name)


def default_device() -> str:
    """The device named by ``$INTERP_REPRO_DEVICE`` (set by ``--device``), checked with
    :func:`select_device`; "auto" picks "cuda" where torch sees a GPU, else "cpu"."""
    name = os.environ.get(DEVICE_ENV, "cpu")
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    return select_device(name).type


@contextmanager
def cpu_threads(n: int) -> Iterator[None]:
    """Run the body on ``n`` CPU threads, in torch and in the BLAS and OpenMP pools that NumPy and
    SciPy use, then restore the thread counts.

    Every cached computation runs on one (``core.cached``). A sum split over more threads adds in
    another order, so one thread makes results independent of the machine's core count and of how
    many workers share it. It also suits many small steps on small tensors (thousands of steps of RNNs
    or two-layer networks): a second thread only adds synchronisation, and on a busy machine threads
    that wait for a preempted partner spin in the kernel and slow every operation down by an order
    of magnitude.
    """
    from threadpoolctl import threadpool_limits

    check_positive_int("threads", n)
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        with threadpool_limits(n):
            yield
    finally:
        torch.set_num_threads(before)


@contextmanager
def flush_denormals() -> Iterator[None]:
    """Flush denormal floats to zero in the body, then stop: the setting is the whole process's.

    Training steps whose gradients decay towards zero (backpropagation through many steps, or
    cross-entropy on logits that are far wrong once the loss is small) produce denormal floats, which
    the CPU handles tens of times slower than normal ones."""
    torch.set_flush_denormal(True)
    try:
        yield
    finally:
        torch.set_flush_denormal(False)
