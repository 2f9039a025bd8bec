"""Explicit seeding: every random draw in the library takes a generator built from a seed."""

import numpy as np
import torch


def _check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return seed


def torch_generator(seed: int, device: str | torch.device = "cpu") -> torch.Generator:
    """A ``torch.Generator`` on ``device`` seeded with ``seed``."""
    return torch.Generator(device=device).manual_seed(_check_seed(seed))


def numpy_rng(seed: int) -> np.random.Generator:
    """A NumPy ``Generator`` seeded with ``seed``."""
    return np.random.default_rng(_check_seed(seed))
