"""Explicit seeding: every random draw in the library takes a generator built from a seed."""

import numpy as np
import torch

SEED_LIMIT = 2**64
"""Seeds lie in [0, 2**64): what a torch generator takes, so that NumPy and torch accept the same seeds."""


def _check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"seed must be a non-negative integer below 2**64, got {seed!r}")
    return seed


def check_generator(generator: torch.Generator) -> torch.Generator:
    """Return ``generator`` if it is a ``torch.Generator``, else raise ``ValueError``: a model never
    falls back on the global random state."""
    if not isinstance(generator, torch.Generator):
        raise ValueError(f"generator must be a torch.Generator (e.g. core.torch_generator(seed)), got "
                         f"{generator!r}")
    return generator


def torch_generator(seed: int, device: str | torch.device = "cpu") -> torch.Generator:
    """A ``torch.Generator`` on ``device`` seeded with ``seed``."""
    return torch.Generator(device=device).manual_seed(_check_seed(seed))


def numpy_rng(seed: int) -> np.random.Generator:
    """A NumPy ``Generator`` seeded with ``seed``."""
    return np.random.default_rng(_check_seed(seed))
