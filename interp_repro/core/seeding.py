"""Explicit seeding: every random draw in the library takes a generator built from a seed."""

import numpy as np
import torch

SEED_LIMIT = 2**64
"""Seeds lie in [0, 2**64): what a torch generator takes (``manual_seed`` refuses 2**64 and above;
NumPy takes any integer >= 0), so that NumPy and torch accept the same seeds."""

MAX_SEED = 2**63 - 1
"""The largest seed a config (and a seed offset) may hold. The library derives a run's seeds from a
config's by adding small numbers (a seed index, 1 for the data, 2 for held-out data, a depth, 100),
so a config seed up to 2**63 - 1 leaves 2**63 of room below :data:`SEED_LIMIT` for them; it is also
the largest int64."""


def _check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"seed must be a non-negative integer below 2**64, got {seed!r}")
    return seed


def check_seed(name: str, seed: int) -> int:
    """Return ``seed`` if it is an integer in [0, :data:`MAX_SEED`] (a config's seed), else raise
    ``ValueError`` naming the field ``name``."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"{name} must be an integer in [0, 2**63 - 1] (MAX_SEED: every seed derived from "
                         f"it fits the generators), got {seed!r}")
    return int(seed)


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
