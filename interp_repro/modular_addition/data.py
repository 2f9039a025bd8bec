"""The modular-addition task (a + b) mod p on all p^2 input pairs, with a seeded train/test split
(Zhong et al. 2023; Moisescu-Pareja et al. 2025, §2)."""

import numpy as np
import torch

from interp_repro.core import check_fraction, numpy_rng


def check_modulus(p: int) -> int:
    """``p`` if it is an integer >= 3, else a ``ValueError`` (a modulus below 3 has no Fourier
    structure to learn)."""
    if isinstance(p, bool) or not isinstance(p, int | np.integer) or p < 3:
        raise ValueError(f"the modulus p must be an integer >= 3, got {p!r}")
    return int(p)


def all_pairs(p: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Every input pair in row-major order (index a * p + b): tensors a, b and the label (a + b) mod p,
    each of length p^2."""
    p = check_modulus(p)
    a, b = torch.meshgrid(torch.arange(p), torch.arange(p), indexing="ij")
    a, b = a.reshape(-1), b.reshape(-1)
    return a, b, (a + b) % p


def split(p: int, train_frac: float, seeds: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
    """Train and test pair indices, one row per seed: (K, n_train) and (K, p^2 - n_train). Seed s
    permutes the p^2 pairs with ``numpy_rng(s)``; the first round(train_frac p^2) are for training."""
    p = check_modulus(p)
    check_fraction("train_frac", train_frac)
    n = p * p
    n_train = int(round(train_frac * n))
    if not 0 < n_train < n:
        raise ValueError(f"train_frac {train_frac} leaves no train or no test pairs for p = {p}")
    seeds = list(seeds)
    if not seeds:
        raise ValueError("seeds must name at least one seed (one split per seed), got none")
    perms = np.stack([numpy_rng(s).permutation(n) for s in seeds])
    return torch.as_tensor(perms[:, :n_train]), torch.as_tensor(perms[:, n_train:])
