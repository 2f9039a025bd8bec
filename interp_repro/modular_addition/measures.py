"""What the modular-addition study measures (Moisescu-Pareja et al. 2025, "the paper"; Zhong et al. 2023
for the Clock/Pizza metrics): what a trained network shows on every input pair, Fourier key frequencies
and neuron clusters, the simple-neuron fit, cluster point clouds against the theorem's reference
manifolds (CKA), the phase alignment distribution with MMD tests and the torus distance, Betti
numbers of clusters and logit manifolds, the per-network analysis and the statistics pooled over
networks.

Conventions: ``p`` is the modulus; layer-1 pre-activations come as ``preacts`` of shape
(p, p, n_neurons) indexed [a, b, neuron]; point clouds have one row per input pair in row-major
(a * p + b) order. A trained network is a :class:`interp_repro.core.Unit` whose ``measured`` arrays
are those of :func:`analyse`.
"""

from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from math import comb
from typing import Any

import numpy as np
import torch
from scipy.spatial.distance import cdist, pdist
from scipy.stats import mannwhitneyu

from interp_repro.core import (
    Arrays,
    Unit,
    check_choices,
    check_finite,
    check_fraction,
    check_positive,
    check_positive_int,
    check_real_array,
    numpy_rng,
    pca_variance,
)
from interp_repro.core.validate import mean_of
from interp_repro.modular_addition import zhong
from interp_repro.modular_addition.data import all_pairs, check_modulus
from interp_repro.modular_addition.model import ModAddNet
from interp_repro.modular_addition.topology import betti_numbers, bottleneck, count_bars, persistence

REFERENCES = ("disc", "torus", "circle")
"""The theorem's reference manifolds (§4), in the order of the CKA columns of :func:`analyse`."""

DISC_PCA_SHARE = 0.95
"""A cluster counts as a disc when its Betti vector is (1, 0, 0) and its top-2 PCA share is at least
this: the paper's threshold (§5: disc clusters hold at least 95% of their variance in two principal
components)."""


def _as_int_array(x, name: str, ndim: int) -> np.ndarray:
    """``x`` as an int64 array after checking that it holds integers and is ``ndim``-D (may be empty)."""
    arr = np.asarray(x)
    if arr.dtype.kind not in "iu" and arr.size:
        raise ValueError(f"{name} must hold integers, got dtype {arr.dtype}")
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array, got shape {arr.shape}")
    return arr.astype(np.int64)


def _as_preacts(preacts) -> np.ndarray:
    """``preacts`` as float64 after checking it is a finite (p, p, n_neurons) array with p >= 3."""
    arr = check_real_array("preacts", preacts, 3)
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"preacts must be indexed [a, b, neuron] on a square p x p grid, got shape "
                         f"{arr.shape}")
    if arr.shape[0] < 3:
        raise ValueError(f"preacts must cover a p x p grid with p >= 3, got shape {arr.shape}")
    return arr


def check_frequency(f: int, p: int) -> int:
    """``f`` if it is an integer in 1..p//2, else a ``ValueError``."""
    if isinstance(f, bool) or not isinstance(f, int | np.integer) or not 1 <= f <= p // 2:
        raise ValueError(f"the frequency f must be an integer in 1..{p // 2} for p = {p}, got {f!r}")
    return int(f)


def _grid(p: int) -> tuple[np.ndarray, np.ndarray]:
    """a and b of every input pair in row-major order, each of length p^2."""
    a, b = np.divmod(np.arange(p * p), p)
    return a, b


def wrap_angle(phi: np.ndarray) -> np.ndarray:
    """Angles mapped into (-pi, pi]."""
    return np.pi - np.mod(np.pi - phi, 2 * np.pi)


# ------------------------------------------------------------------ what a network shows


@torch.no_grad()
def tables(model: ModAddNet) -> tuple[np.ndarray, np.ndarray]:
    """Layer-1 (MLP) pre-activations (K, p, p, d_mlp) and logits (K, p, p, p) on all p^2 pairs,
    indexed [instance, a, b, ...] (the paper's neuron tables, §3)."""
    p = model.p
    a, b, _ = all_pairs(p)
    logits, pre = model(a, b, return_preacts=True)
    K = model.n_instances
    return pre.reshape(K, p, p, -1).numpy(), logits.reshape(K, p, p, p).numpy()


def gradient_cosines(model: ModAddNet) -> np.ndarray:
    """Zhong et al. (2023, §4): for every triple (a, b, c), the cosine similarity between the gradients
    of logit c with respect to the token embeddings of a and of b; (K, p, p, p) indexed [instance, a, b,
    c]. One backward pass per class c over all p^2 pairs. Refuses a model with a non-finite weight."""
    bad = [name for name, w in model.named_parameters() if not torch.isfinite(w).all()]
    if bad:
        raise ValueError(f"the model has non-finite weights in {bad}: gradient symmetricity is undefined")
    p, K = model.p, model.n_instances
    a, b, _ = all_pairs(p)
    ea = model.embed(a.expand(K, -1)).detach().requires_grad_(True)
    eb = model.embed(b.expand(K, -1)).detach().requires_grad_(True)
    logits = model.from_embeddings(ea, eb)
    out = torch.empty(K, p * p, p)
    for c in range(p):
        ga, gb = torch.autograd.grad(logits[..., c].sum(), (ea, eb), retain_graph=c < p - 1)
        out[..., c] = torch.nn.functional.cosine_similarity(ga, gb, dim=-1)
    return out.reshape(K, p, p, p).numpy()


def gradient_symmetricity(model: ModAddNet, triples=None) -> np.ndarray:
    """Gradient symmetricity (Zhong et al. 2023, §4): :func:`gradient_cosines` averaged over every
    triple (a, b, c), exact; or over ``triples``, an (n, 3) array such as the 100 random ones of
    Zhong's notebook (``zhong.notebook_triples``), whose sampling noise is the cosines' spread over
    sqrt(n). Pizza-like networks score near 1, Clock-like ones near 1/3. Returns (K,)."""
    cos = gradient_cosines(model)
    return cos.mean(axis=(1, 2, 3)) if triples is None else _triples_mean(cos, triples, model.p)


def _triples_mean(cos: np.ndarray, triples, p: int) -> np.ndarray:
    """The cosines (K, p, p, p) of :func:`gradient_cosines` averaged over ``triples`` (n, 3); (K,)."""
    t = _as_int_array(triples, "triples", 2)
    if t.shape[1:] != (3,) or not t.size or t.min() < 0 or t.max() >= p:
        raise ValueError(f"triples must be a non-empty (n, 3) array of integers in 0..{p - 1}, "
                         f"got shape {t.shape}")
    return cos[:, t[:, 0], t[:, 1], t[:, 2]].mean(axis=1)


def logit_cloud(logits: np.ndarray, f: int, unit: bool = False) -> np.ndarray:
    """The logit manifold at frequency f (the paper, §5): each input pair's logit vector projected on
    (cos 2 pi f c / p, sin 2 pi f c / p) over the classes c, shape (p^2, 2) (projection ours: the
    paper's code was not available); ``logits`` is one network's (p, p, p) table of :func:`tables`.

    A Clock's logits at f are A cos(2 pi f (a + b - c) / p): a circle of radius A p / 2. A Pizza's
    are about A |cos(pi f (a - b) / p)| cos(2 pi f (a + b - c) / p) (Zhong et al. 2023, §4), whose
    radius varies with a - b: the projection fills a disc (:func:`logit_pizza_correlation`). With
    ``unit``, each point is scaled to length 1, keeping only the logit's phase: a circle for both."""
    logits = check_real_array("logits", logits, 3)
    p = logits.shape[-1]
    c = 2 * np.pi * f * np.arange(p) / p
    cloud = logits.reshape(p * p, p) @ np.stack([np.cos(c), np.sin(c)], axis=1)
    return cloud / np.linalg.norm(cloud, axis=1, keepdims=True).clip(1e-12) if unit else cloud


def logit_pizza_correlation(logits: np.ndarray, f: int) -> float:
    """Pearson correlation, over the p^2 input pairs, between the radius of :func:`logit_cloud` at f
    and |cos(pi f (a - b) / p)|: near 1 for a Pizza's logits (a disc), near 0 for a Clock's (a circle,
    whose radius does not depend on a - b); 0 when the radius is constant up to rounding (ours)."""
    logits = check_real_array("logits", logits, 3)
    p = logits.shape[-1]
    radius = np.linalg.norm(logit_cloud(logits, f), axis=1)
    a, b = np.divmod(np.arange(p * p), p)
    pizza = np.abs(np.cos(np.pi * f * (a - b) / p))
    if radius.std() <= 1e-9 * radius.mean():  # constant up to rounding
        return 0.0
    return float(np.corrcoef(radius, pizza)[0, 1])


def embedding_spectrum(W_E: np.ndarray) -> np.ndarray:
    """Norm of the token embedding ``W_E`` (p, d)'s DFT over tokens at each frequency 1..p//2, shape
    (p//2,): a few key frequencies carry the embedding (Zhong et al. 2023, the Fourier features of
    the Clock and the Pizza)."""
    p = W_E.shape[0]
    power = np.abs(np.fft.fft(W_E, axis=0)) ** 2
    return np.sqrt(power[1: p // 2 + 1].sum(axis=1))


# ------------------------------------------------------------------ Fourier structure and clusters


def dft_power(preacts) -> np.ndarray:
    """|DFT2|^2 of each neuron's p x p table over the (a, b) axes, mean removed first (so the (0, 0)
    entry is 0); shape (p, p, n_neurons), entry [u, v, i] for frequency u of a and v of b (numpy's
    unnormalised ``fft2``) (the paper, §3)."""
    x = _as_preacts(preacts)
    x = x - x.mean(axis=(0, 1))
    return np.abs(np.fft.fft2(x, axes=(0, 1))) ** 2


def key_frequencies(preacts) -> np.ndarray:
    """Each neuron's key frequency in 1..p//2, shape (n_neurons,) (the paper, §3).

    The score of f is the total DFT power (:func:`dft_power`) at the pairs (u, v) with u, v in
    {0, f, -f} mod p other than (0, 0): (f, 0), (0, f), (f, f), (f, -f) and their conjugates, i.e. every
    term of a neuron c + cos(2 pi f a / p + .) + cos(2 pi f b / p + .) and of the (a + b) and (a - b)
    terms a "clock" neuron adds (ours, following the paper's "dominant frequency"). The key frequency
    maximises the score; ties go to the smallest f, so a constant neuron gets f = 1 (ours).
    """
    power = dft_power(preacts)
    p = power.shape[0]
    scores = np.stack([power[np.ix_(idx, idx)].sum(axis=(0, 1))
                       for idx in (np.unique([0, f, (-f) % p]) for f in range(1, p // 2 + 1))])
    return np.argmax(scores, axis=0) + 1


def clusters(freqs, min_size: int = 1) -> dict[int, np.ndarray]:
    """Neuron indices grouped by key frequency, keys ascending; clusters with fewer than ``min_size``
    neurons are dropped (the paper, §3)."""
    freqs = _as_int_array(freqs, "freqs", 1)
    check_positive_int("min_size", min_size)
    groups = {int(f): np.flatnonzero(freqs == f) for f in np.unique(freqs)}
    return {f: idx for f, idx in groups.items() if idx.size >= min_size}


def simple_neuron_fit(preacts, freqs) -> dict[str, np.ndarray]:
    """Per-neuron least-squares fit of the simple-neuron model (the paper, §3)

        N(a, b) = c + A_L cos(2 pi f a / p + phi_L) + A_R cos(2 pi f b / p + phi_R)

    at the neuron's key frequency f = ``freqs[i]``, solved as linear least squares in the cos and sin
    terms. Returns arrays of shape (n_neurons,): "r2" (1 - SS_res / SS_tot; 1 for a constant neuron,
    which the model fits exactly, ours), "phi_L" and "phi_R" in (-pi, pi], "amp_L" and "amp_R" (>= 0).
    """
    x = _as_preacts(preacts)
    p, _, n = x.shape
    freqs = _as_int_array(freqs, "freqs", 1)
    if freqs.shape != (n,):
        raise ValueError(f"freqs must hold one frequency per neuron, shape ({n},), got shape {freqs.shape}")
    y = x.reshape(p * p, n)
    a, b = _grid(p)
    coef, r2 = np.empty((5, n)), np.empty(n)
    for f in np.unique(freqs):
        ta, tb = 2 * np.pi * check_frequency(f, p) * a / p, 2 * np.pi * f * b / p
        design = np.stack([np.ones(p * p), np.cos(ta), np.sin(ta), np.cos(tb), np.sin(tb)], axis=1)
        cols = freqs == f
        coef[:, cols] = np.linalg.lstsq(design, y[:, cols], rcond=None)[0]
        ss_res = np.sum((y[:, cols] - design @ coef[:, cols]) ** 2, axis=0)
        ss_tot = np.sum((y[:, cols] - y[:, cols].mean(axis=0)) ** 2, axis=0)
        r2[cols] = 1 - np.divide(ss_res, ss_tot, out=np.zeros_like(ss_res), where=ss_tot > 0)
    # A cos(x + phi) = A cos(phi) cos(x) - A sin(phi) sin(x)
    return {
        "r2": r2,
        "phi_L": wrap_angle(np.arctan2(-coef[2], coef[1])),
        "phi_R": wrap_angle(np.arctan2(-coef[4], coef[3])),
        "amp_L": np.hypot(coef[1], coef[2]),
        "amp_R": np.hypot(coef[3], coef[4]),
    }


# ------------------------------------------------------------------ point clouds and reference manifolds


def cluster_cloud(preacts, neurons) -> np.ndarray:
    """The cluster's point cloud (the paper, §3): shape (p^2, len(neurons)), row a * p + b holding the
    chosen neurons' pre-activations on input (a, b)."""
    x = _as_preacts(preacts)
    p, _, n = x.shape
    idx = _as_int_array(neurons, "neurons", 1)
    if idx.size == 0:
        raise ValueError("neurons must name at least one neuron")
    bad = idx[(idx < 0) | (idx >= n)]
    if bad.size:
        raise ValueError(f"neurons must be indices in 0..{n - 1}, got {bad.tolist()}")
    return x.reshape(p * p, n)[:, idx]


def _angles(p: int, f: int) -> tuple[np.ndarray, np.ndarray]:
    """t a and t b (t = 2 pi f / p) of every input pair in row-major order."""
    p = check_modulus(p)
    t = 2 * np.pi * check_frequency(f, p) / p
    a, b = _grid(p)
    return t * a, t * b


def reference_disc(p: int, f: int) -> np.ndarray:
    """The rank-2 disc (cos ta + cos tb, sin ta + sin tb), t = 2 pi f / p, on the p x p grid, shape
    (p^2, 2) (the paper's theorem, §4: layer-1 clusters with phi_L = phi_R)."""
    ta, tb = _angles(p, f)
    return np.stack([np.cos(ta) + np.cos(tb), np.sin(ta) + np.sin(tb)], axis=1)


def reference_torus(p: int, f: int) -> np.ndarray:
    """The rank-4 torus (cos ta, sin ta, cos tb, sin tb), t = 2 pi f / p, on the p x p grid, shape
    (p^2, 4) (the paper's theorem, §4: layer-1 clusters with independent phases)."""
    ta, tb = _angles(p, f)
    return np.stack([np.cos(ta), np.sin(ta), np.cos(tb), np.sin(tb)], axis=1)


def reference_circle(p: int, f: int) -> np.ndarray:
    """The circle (cos t(a + b), sin t(a + b)), t = 2 pi f / p, on the p x p grid, shape (p^2, 2) (the
    paper, §4: the Clock's angle-sum circle, which does not arise in layer 1)."""
    ta, tb = _angles(p, f)
    return np.stack([np.cos(ta + tb), np.sin(ta + tb)], axis=1)


def linear_cka(X, Y) -> float:
    """Linear CKA (Kornblith et al. 2019) between representations X (n, d1) and Y (n, d2) of the same n
    inputs: with centred columns, ||Y^T X||_F^2 / (||X^T X||_F ||Y^T Y||_F), in [0, 1]; 1 when Y is an
    orthogonal transform of X up to isotropic scale (used against the reference manifolds, the paper,
    §5)."""
    x, y = check_real_array("X", X, 2), check_real_array("Y", Y, 2)
    if x.shape[0] != y.shape[0] or x.shape[0] < 2:
        raise ValueError(f"X and Y must hold the same number (>= 2) of inputs, got shapes {x.shape} and "
                         f"{y.shape}")
    x, y = x - x.mean(axis=0), y - y.mean(axis=0)
    for name, z in (("X", x), ("Y", y)):
        if not z.any():
            raise ValueError(f"{name} has zero variance (all rows equal): CKA is undefined")

    def cka(x: np.ndarray, y: np.ndarray) -> float:
        return float(np.linalg.norm(y.T @ x) ** 2 / (np.linalg.norm(x.T @ x) * np.linalg.norm(y.T @ y)))

    with np.errstate(all="ignore"):
        value = cka(x, y)
    # CKA does not depend on scale: where the products under- or overflow, rescale and compute again
    return value if np.isfinite(value) else cka(x / np.abs(x).max(), y / np.abs(y).max())


def rsm_correlation(X, Y, n_inputs: int | None = 1000, seed: int = 0) -> float:
    """Representational-similarity correlation between X (n, d1) and Y (n, d2), representations of the
    same n inputs (the paper's camera-ready, RSM correlation with the reference manifolds): the Pearson
    correlation between the two matrices of Euclidean distances between inputs (their upper
    triangles). 1 when Y is X moved, rotated, reflected or scaled; unlike CKA it compares the shapes
    pair by pair, not through their covariances.

    Over ``n_inputs`` of the inputs drawn without replacement with ``seed`` (every input when None or
    when there are no more): the p^2 = 3,481 inputs of a cluster give 6 million pairs, a thousand give
    half a million and the same correlation to about two decimals."""
    x, y = check_real_array("X", X, 2), check_real_array("Y", Y, 2)
    if x.shape[0] != y.shape[0] or x.shape[0] < 3:
        raise ValueError(f"X and Y must hold the same number (>= 3) of inputs, got shapes {x.shape} and "
                         f"{y.shape}")
    if n_inputs is not None and check_positive_int("n_inputs", n_inputs) < x.shape[0]:
        keep = np.sort(np.random.default_rng(seed).choice(x.shape[0], n_inputs, replace=False))
        x, y = x[keep], y[keep]
    dx, dy = pdist(x), pdist(y)
    for name, d in (("X", dx), ("Y", dy)):
        if np.ptp(d) == 0:
            raise ValueError(f"{name} has no spread of distances between inputs: its RSM correlation is "
                             "undefined")
    return float(np.corrcoef(dx, dy)[0, 1])


# ------------------------------------------------------------------ phase alignment and torus distance


def phase_alignment(preacts) -> np.ndarray:
    """For each neuron the input pair (a*, b*) maximising its pre-activation, shape (n_neurons, 2)
    (the paper's PAD sample, §5); ties go to the first pair in row-major order."""
    x = _as_preacts(preacts)
    p, _, n = x.shape
    return np.stack(np.divmod(np.argmax(x.reshape(p * p, n), axis=0), p), axis=1)


def _as_pairs(pairs, p: int) -> np.ndarray:
    """``pairs`` as an (N, 2) int64 array after checking that its entries lie in 0..p-1."""
    arr = _as_int_array(pairs, "pairs", 2)
    if arr.shape[1] != 2:
        raise ValueError(f"pairs must have shape (N, 2), got shape {arr.shape}")
    bad = arr[(arr < 0) | (arr >= p)]
    if bad.size:
        raise ValueError(f"pairs must hold residues in 0..{p - 1}, got {bad[:5].tolist()}")
    return arr


def torus_distance(pairs, p: int) -> np.ndarray:
    """Graph distance on the discrete p x p torus (4-neighbour grid with wrap-around) from each (a, b)
    in ``pairs`` (N, 2) to the diagonal {(k, k)} (the paper, §5).

    Closed form (ours): with c(x) = min(x mod p, -x mod p) the distance on the p-cycle, the distance from
    (a, b) to (k, k) is c(a - k) + c(b - k) >= c(a - b) by the triangle inequality, with equality at
    k = a; so the distance is c(a - b) = min((a - b) mod p, (b - a) mod p), in 0..p//2.
    """
    p = check_modulus(p)
    arr = _as_pairs(pairs, p)
    d = (arr[:, 0] - arr[:, 1]) % p
    return np.minimum(d, p - d)


def torus_embedding(pairs, p: int) -> np.ndarray:
    """(cos 2 pi a / p, sin 2 pi a / p, cos 2 pi b / p, sin 2 pi b / p) for each (a, b) in ``pairs``,
    shape (N, 4): PAD samples as points whose Euclidean distances respect the wrap-around (ours)."""
    p = check_modulus(p)
    theta = 2 * np.pi * _as_pairs(pairs, p) / p
    return np.stack([np.cos(theta[:, 0]), np.sin(theta[:, 0]), np.cos(theta[:, 1]), np.sin(theta[:, 1])],
                    axis=1)


# ------------------------------------------------------------------ MMD


def _mmd_inputs(x, y, bandwidth: float) -> tuple[np.ndarray, int]:
    """The Gaussian kernel matrix of the pooled samples with a zero diagonal, and the size of x."""
    x, y = check_real_array("x", x, 2), check_real_array("y", y, 2)
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"x and y must have the same dimension, got shapes {x.shape} and {y.shape}")
    if x.shape[0] < 2 or y.shape[0] < 2:
        raise ValueError(f"x and y must hold at least 2 points each, got shapes {x.shape} and {y.shape}")
    if (isinstance(bandwidth, bool) or not isinstance(bandwidth, int | float | np.integer | np.floating)
            or not 0 < bandwidth < np.inf):
        raise ValueError(f"bandwidth must be a positive finite number, got {bandwidth!r}")
    z = np.concatenate([x, y])
    kernel = np.exp(-cdist(z, z, "sqeuclidean") / (2.0 * bandwidth**2))
    np.fill_diagonal(kernel, 0.0)
    return kernel, x.shape[0]


def _mmd_of_splits(kernel: np.ndarray, in_x: np.ndarray, n: int) -> np.ndarray:
    """Unbiased MMD^2 for each split of the pooled samples, one row of the 0/1 matrix ``in_x`` (S, N)
    per split marking the n points taken as x; ``kernel`` has a zero diagonal."""
    m = kernel.shape[0] - n
    s_xx = np.sum(in_x * (in_x @ kernel), axis=1)
    s_xy = in_x @ kernel.sum(axis=1) - s_xx
    s_yy = kernel.sum() - s_xx - 2 * s_xy
    return s_xx / (n * (n - 1)) + s_yy / (m * (m - 1)) - 2 * s_xy / (n * m)


def mmd_permutation_test(x, y, bandwidth: float, n_permutations: int = 1000,
                         seed: int = 0) -> tuple[float, float]:
    """(MMD^2, p-value) of a permutation test of "x and y come from one distribution" (the paper, §5).

    MMD^2 is the unbiased squared MMD (Gretton et al. 2012) between samples x (n, d) and y (m, d) with
    the Gaussian kernel exp(-||u - v||^2 / (2 bandwidth^2)); it can be slightly negative. For the p-value,
    the pooled samples are split at random ``n_permutations`` times (``numpy_rng(seed)``) and
    p = (1 + #{permuted MMD^2 >= observed}) / (1 + n_permutations). Memory grows as
    n_permutations * (n + m)."""
    kernel, n = _mmd_inputs(x, y, bandwidth)
    check_positive_int("n_permutations", n_permutations)
    total = kernel.shape[0]
    observed = _mmd_of_splits(kernel, (np.arange(total) < n)[None].astype(np.float64), n)[0]
    perms = numpy_rng(seed).permuted(np.tile(np.arange(total), (n_permutations, 1)), axis=1)
    in_x = np.zeros((n_permutations, total))
    np.put_along_axis(in_x, perms[:, :n], 1.0, axis=1)
    null = _mmd_of_splits(kernel, in_x, n)
    return float(observed), float((1 + np.count_nonzero(null >= observed)) / (1 + n_permutations))


# ------------------------------------------------------------------ Zhong's metric and Betti counts


def distance_irrelevance(correct_logits) -> float:
    """Distance irrelevance q (Zhong et al. 2023, §4, Def. 4.2) of the (p, p) table L[a, b] of the
    correct-class logit: for each difference d = (a - b) mod p the std of L over the p pairs with that
    difference (as the sum (a + b) mod p varies), averaged over d, divided by the std of the whole
    table (population stds).

    q ~ 0 when L depends on a - b only (Pizza, ~0.17 in Zhong) and q ~ 1 when L ignores a - b (Clock,
    ~0.85; exactly 1 when L depends on a + b only, for odd p). This follows Zhong's definition and
    released code (the std over sums for each difference, ``np.std(table[s, d], axis=0)``), not the
    fact sheet's wording "mean over sums of the std over differences", which has the axes swapped and
    would put both algorithms near 1. Grouping by d directly also works for even p (ours).
    """
    table = check_real_array("correct_logits", correct_logits, 2)
    p = check_modulus(table.shape[0])
    if table.shape != (p, p):
        raise ValueError(f"correct_logits must be a square (p, p) table, got shape {table.shape}")
    overall = table.std()
    if overall == 0:
        raise ValueError("correct_logits is constant: distance irrelevance is undefined")
    a = np.arange(p)
    by_difference = table[a[None, :], (a[None, :] - a[:, None]) % p]  # [d, a] = L[a, a - d]
    return float(by_difference.std(axis=1).mean() / overall)


def task_accuracy(logits) -> float:
    """The share of all p^2 pairs whose largest logit is (a + b) mod p, from the (p, p, p) logits
    [a, b, class] of one network."""
    correct, top_incorrect = logit_tables(logits)
    return float(np.mean(correct > top_incorrect))


def logit_tables(logits) -> tuple[np.ndarray, np.ndarray]:
    """From the (p, p, p) logits [a, b, class] of one network, the (p, p) tables [a, b] of the correct
    class's logit and of the largest incorrect logit: the paper's distance irrelevance reads the
    first, Zhong's sweep table (``code/train-main.py``) the second."""
    arr = check_real_array("logits", logits, 3)
    p = check_modulus(arr.shape[0])
    if arr.shape != (p, p, p):
        raise ValueError(f"logits must be a (p, p, p) array [a, b, class], got shape {arr.shape}")
    a, b = np.meshgrid(np.arange(p), np.arange(p), indexing="ij")
    label = (a + b) % p
    correct = np.take_along_axis(arr, label[..., None], axis=-1)[..., 0]
    others = arr.copy()
    np.put_along_axis(others, label[..., None], -np.inf, axis=-1)
    return correct, others.max(axis=-1)


def betti_vector_counts(bettis: Sequence[Sequence[int]]) -> dict[tuple[int, ...], int]:
    """How many networks have each Betti vector, most frequent first, ties by vector (the paper, §5:
    disc (1, 0, 0), circle (1, 1, 0), torus (1, 2, 1))."""
    vectors = []
    for v in bettis:
        arr = np.asarray(v)
        if arr.ndim != 1 or arr.size == 0 or arr.dtype.kind not in "iu" or (arr < 0).any():
            raise ValueError(f"each Betti vector must be a sequence of non-negative integers, got {v!r}")
        vectors.append(tuple(int(b) for b in arr))
    return dict(sorted(Counter(vectors).items(), key=lambda item: (-item[1], item[0])))


# ------------------------------------------------------------------ one network


def analyse(model: ModAddNet, min_cluster: int, max_clusters: int, n_landmarks: int,
            triples=None) -> Arrays:
    """The paper's per-network analysis (§3-5) of a single-instance ``model``: key frequencies (``freqs``),
    the clusters with at least ``min_cluster`` neurons (``n_clusters``) and, for the ``max_clusters``
    largest (``cluster_freqs``, ``cluster_sizes``), their top-4 PCA shares (``pca``), Betti numbers up
    to H2 on ``n_landmarks`` landmarks (``betti``), CKA and RSM correlation with each of
    :data:`REFERENCES` (``cka``, ``rsm``), the
    Betti numbers of the logit manifold at their frequency (``logit_betti``; of its phases alone,
    ``logit_betti_unit``), how much its radius follows a Pizza's (``logit_pizza``:
    :func:`logit_pizza_correlation`) and the median simple-neuron R^2 of their neurons (``r2``); every
    neuron's fitted phases (``phi_L``, ``phi_R``) and phase alignment sample (``phase_alignment``); the
    H1 diagram of the largest cluster (``h1``); Zhong's ``gradient_symmetricity`` over every triple
    (exact) with the spread of its cosines over triples (``gradient_symmetricity_sd``: a mean over n
    random triples has sampling noise ``sd / sqrt(n)``), and with ``triples`` (n, 3), its mean over
    them (``gradient_symmetricity_triples``, from the same cosines); ``distance_irrelevance`` by the paper's
    definition (correct logit) and as Zhong's sweep table computes it
    (``distance_irrelevance_top_incorrect``); the ``embedding_spectrum``."""
    pre, logits = (x[0] for x in tables(model))
    p = model.p
    freqs = key_frequencies(pre)
    groups = clusters(freqs, min_size=min_cluster)
    if not groups:
        raise ValueError(f"no key-frequency cluster has {min_cluster} or more neurons; lower min_cluster")
    order = sorted(groups, key=lambda f: (-groups[f].size, f))[:max_clusters]
    fit = simple_neuron_fit(pre, freqs)
    refs = {"disc": reference_disc, "torus": reference_torus, "circle": reference_circle}
    pca, betti, cka, rsm, logit_betti, logit_unit, logit_pizza, r2 = [], [], [], [], [], [], [], []
    for f in order:
        cloud = cluster_cloud(pre, groups[f])
        ratios = pca_variance(cloud)
        pca.append(np.pad(ratios, (0, max(0, 4 - ratios.size)))[:4])
        diagrams = persistence(cloud, maxdim=2, n_landmarks=n_landmarks)
        betti.append(count_bars(diagrams))
        if f == order[0]:  # the largest cluster's H1: ripser's is the same whatever higher dimension
            h1 = diagrams[1]  # it computes too, so no second run for it
        cka.append([linear_cka(cloud, refs[name](p, f)) for name in REFERENCES])
        rsm.append([rsm_correlation(cloud, refs[name](p, f)) for name in REFERENCES])
        logit_betti.append(betti_numbers(logit_cloud(logits, f), maxdim=1, n_landmarks=n_landmarks))
        logit_unit.append(betti_numbers(logit_cloud(logits, f, unit=True), maxdim=1, n_landmarks=n_landmarks))
        logit_pizza.append(logit_pizza_correlation(logits, f))
        r2.append(np.median(fit["r2"][groups[f]]))
    correct, top_incorrect = logit_tables(logits)
    cosines = gradient_cosines(model)
    over_triples = {} if triples is None else {
        "gradient_symmetricity_triples": np.array(_triples_mean(cosines, triples, p)[0])}
    cosines = cosines[0]
    return over_triples | {
        "freqs": freqs, "cluster_freqs": np.array(order),
        "cluster_sizes": np.array([groups[f].size for f in order]), "n_clusters": np.array(len(groups)),
        "pca": np.array(pca), "betti": np.array(betti), "cka": np.array(cka), "rsm": np.array(rsm),
        "logit_betti": np.array(logit_betti), "logit_betti_unit": np.array(logit_unit),
        "logit_pizza": np.array(logit_pizza), "r2": np.array(r2),
        "phi_L": fit["phi_L"], "phi_R": fit["phi_R"],
        "phase_alignment": phase_alignment(pre),
        "h1": h1,
        "gradient_symmetricity": np.array(cosines.mean()),
        "gradient_symmetricity_sd": np.array(cosines.std()),
        "distance_irrelevance": np.array(distance_irrelevance(correct)),
        "distance_irrelevance_top_incorrect": np.array(distance_irrelevance(top_incorrect)),
        "embedding_spectrum": embedding_spectrum(model.W_E[0].detach().numpy()),
    }


def largest_cluster(model: ModAddNet, measured: Arrays) -> np.ndarray:
    """The point cloud (p^2, n_neurons) of the largest analysed cluster (the paper, §3) of a
    single-instance ``model`` whose :func:`analyse` is ``measured``, recomputed from its weights."""
    pre, _ = tables(model)
    return cluster_cloud(pre[0], np.flatnonzero(measured["freqs"] == measured["cluster_freqs"][0]))


def umap_view(points: np.ndarray, seed: int = 0) -> np.ndarray:
    """A 2-D UMAP embedding (McInnes et al. 2018) of a point cloud, seeded; 15 neighbours (the
    library's default). A view, not a measurement: UMAP keeps neighbourhoods, not distances."""
    from umap import UMAP  # imported here: it compiles with numba on first use (about 10 s)

    return UMAP(n_components=2, random_state=seed, n_jobs=1).fit_transform(points)


# ------------------------------------------------------------------ over networks


def disc_flags(units: Sequence[Unit]) -> list[bool]:
    """Per analysed cluster of ``units``, whether it is a disc (the paper, §5): Betti (1, 0, 0) and
    top-2 PCA share >= :data:`DISC_PCA_SHARE`."""
    return [bool(tuple(b) == (1, 0, 0) and pc[:2].sum() >= DISC_PCA_SHARE)
            for u in units for b, pc in zip(u.measured["betti"], u.measured["pca"], strict=True)]


def disc_fraction(units: Sequence[Unit]) -> float:
    """Share of analysed clusters that are discs (:func:`disc_flags`)."""
    return mean_of("disc_fraction", disc_flags(units))


def betti_flags(units: Sequence[Unit], vector: tuple[int, ...], key: str = "betti") -> list[bool]:
    """Per analysed cluster (or logit manifold, ``key="logit_betti"``) of ``units``, whether it has
    this Betti vector (the paper, §5)."""
    return [tuple(b) == vector for u in units for b in u.measured[key]]


def betti_fraction(units: Sequence[Unit], vector: tuple[int, ...], key: str = "betti") -> float:
    """Share of analysed clusters (or logit manifolds) with this Betti vector (:func:`betti_flags`)."""
    return mean_of("betti_fraction", betti_flags(units, vector, key))


def logit_summary(units: Sequence[Unit]) -> dict[str, float]:
    """The logit manifolds of ``units`` two ways: the share that are circles (Betti (1, 1)) as
    :func:`logit_cloud` projects them and as their phases alone (``unit=True``), and the median
    :func:`logit_pizza_correlation` (how much their radius follows a Pizza's |cos(pi f (a - b) / p)|)."""
    return {"circles (projection)": betti_fraction(units, (1, 1), key="logit_betti"),
            "circles (phases alone)": betti_fraction(units, (1, 1), key="logit_betti_unit"),
            "radius ~ Pizza's (median r)": float(np.median(np.concatenate(
                [u.measured["logit_pizza"] for u in units])))}


def cka_values(units: Sequence[Unit], reference: str, key: str = "cka") -> list[float]:
    """Linear CKA (``key="cka"``) or RSM correlation (``key="rsm"``) between each analysed cluster of
    ``units`` and the theorem's ``reference`` manifold, one of :data:`REFERENCES` (the paper, §5)."""
    column = REFERENCES.index(reference)
    return [float(c[column]) for u in units for c in u.measured[key]]


def mean_cka(units: Sequence[Unit], reference: str) -> float:
    """Mean of :func:`cka_values` over the analysed clusters."""
    return mean_of("mean_cka", cka_values(units, reference))


def pad_diagonal_shares(units: Sequence[Unit]) -> list[float]:
    """Per network, the share of its neurons whose phase-alignment peak lies on the diagonal a = b
    (torus distance 0): aligned phases (phi_L = phi_R) put every peak there (the paper, §5)."""
    return [float(np.mean(torus_distance(u.measured["phase_alignment"], u.spec.p) == 0)) for u in units]


def pad_diagonal_share(units: Sequence[Unit]) -> float:
    """:func:`pad_diagonal_shares` averaged over networks."""
    return mean_of("pad_diagonal_share", pad_diagonal_shares(units))


ZHONG_ALGORITHMS = {name: zhong.NOTEBOOK[run] for name, run in zhong.MODELS.items()}
"""Zhong et al.'s Pizza and Clock (2023, §4) as (gradient symmetricity, distance irrelevance): his
Model A and Model B, one network each, as his notebook measures them (``zhong.NOTEBOOK``). His
population spreads widely around them (``zhong.population``)."""


def algorithm(grad_sym: float, dist_irr: float) -> str:
    """"clock" or "pizza": which of Zhong's two example networks (:data:`ZHONG_ALGORITHMS`, his Models
    B and A) lies nearer a network's two metrics (Euclidean, in the plane of the two, distance
    irrelevance by the paper's definition; ours: Zhong sorts networks by eye on this plane). A
    nearest example, not a population's verdict. Refuses a non-finite metric."""
    if not (np.isfinite(grad_sym) and np.isfinite(dist_irr)):
        raise ValueError(f"the metrics must be finite, got gradient symmetricity {grad_sym!r} and "
                         f"distance irrelevance {dist_irr!r}")
    return min(ZHONG_ALGORITHMS, key=lambda name: np.hypot(grad_sym - ZHONG_ALGORITHMS[name][0],
                                                          dist_irr - ZHONG_ALGORITHMS[name][1]))


NETWORK_SUMMARY = ("gradient symmetricity", "distance irrelevance", "manifold share", "top-2 PCA share",
                   "CKA to the reference", "PAD on the diagonal")
"""The per-network numbers of :func:`network_summary`, in its order."""


def network_summary(unit: Unit, reference: str) -> dict[str, float]:
    """One network's headline measures, those the training-length curves follow: Zhong's two
    metrics; the share of its analysed clusters that are the paper's manifold ``reference`` ("disc":
    :func:`disc_fraction`, "torus": Betti (1, 2, 1)); their median top-2 PCA share; their mean CKA with
    that reference; the share of its neurons whose phase-alignment peak is on the diagonal."""
    check_choices("reference", (reference,), ("disc", "torus"))
    shape = disc_fraction([unit]) if reference == "disc" else betti_fraction([unit], (1, 2, 1))
    values = (float(unit.measured["gradient_symmetricity"]), float(unit.measured["distance_irrelevance"]),
              shape, float(np.median(unit.measured["pca"][:, :2].sum(1))), mean_cka([unit], reference),
              pad_diagonal_share([unit]))
    return dict(zip(NETWORK_SUMMARY, values, strict=True))


def mann_whitney_p(ours, theirs) -> float:
    """Two-sided Mann-Whitney U p-value (scipy's, exact or asymptotic as it chooses) of "our networks'
    values and another population's come from one distribution". Refuses non-finite or empty samples."""
    x, y = (check_real_array(name, v, 1) for name, v in (("ours", ours), ("theirs", theirs)))
    return float(mannwhitneyu(x, y, alternative="two-sided").pvalue)


def median_in_range_rate(population, n: int, bounds: tuple[float, float], draws: int = 10_000,
                         seed: int = 0) -> float:
    """How often the median of ``n`` networks drawn (with replacement, seeded) from ``population``
    lies within ``bounds``: a median-in-band test's rate of passing a sample of that population."""
    values = check_real_array("population", population, 1)
    check_positive_int("n", n)
    check_positive_int("draws", draws)
    lo, hi = bounds
    medians = np.median(numpy_rng(seed).choice(values, size=(draws, n)), axis=1)
    return float(np.mean((medians >= lo) & (medians <= hi)))


def settled_at(lengths: Sequence[int], values: Sequence[float], tol: float) -> int:
    """The first of ``lengths`` from which every later value lies within ``tol`` of the last one
    (the last length when none earlier does): where a curve has settled. Refuses a NaN or infinite
    value, which no comparison would count as off."""
    values = check_finite("the curve's values", values)
    if len(lengths) != values.size or not values.size:
        raise ValueError(f"need one value per length, got {len(lengths)} lengths and {values.size} values")
    off = np.flatnonzero(np.abs(values - values[-1]) > check_positive("tol", tol))
    return int(lengths[off[-1] + 1]) if off.size else int(lengths[0])


def first_step_at(curves: Arrays, level: float = 1.0) -> int | None:
    """The first logged step (``curves["steps"]``) at which test accuracy (``curves["test_acc"]``)
    reaches ``level``; None when it never does. Refuses a curve with NaN or inf, which no comparison
    would count as reaching it."""
    check_fraction("level", level)
    accuracy = check_real_array("test_acc", curves["test_acc"], 1)
    if np.shape(curves["steps"]) != accuracy.shape:
        raise ValueError(f"steps and test_acc must have one entry per logged step, got shapes "
                         f"{np.shape(curves['steps'])} and {accuracy.shape}")
    hit = np.flatnonzero(accuracy >= level)
    return int(curves["steps"][hit[0]]) if hit.size else None


def pad_test(a: Sequence[Unit], b: Sequence[Unit], n_permutations: int = 1000,
             seed: int = 0) -> tuple[float, float]:
    """MMD^2 and permutation p-value between two architectures' phase alignment samples, embedded on
    the torus (the paper, §5); bandwidth 1 in the embedding (ours)."""
    p = a[0].spec.p
    x = torus_embedding(np.concatenate([u.measured["phase_alignment"] for u in a]), p)
    y = torus_embedding(np.concatenate([u.measured["phase_alignment"] for u in b]), p)
    return mmd_permutation_test(x, y, 1.0, n_permutations=n_permutations, seed=seed)


def _network_distances(units: Sequence[Unit]) -> np.ndarray:
    """Bottleneck distances between the H1 diagrams of the largest clusters of ``units``, (n, n)."""
    n = len(units)
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            out[i, j] = out[j, i] = bottleneck(units[i].measured["h1"], units[j].measured["h1"])
    return out


def distance_test(res: dict[str, list[Unit]], a: str = "uniform", b: str = "learnable",
                  n_permutations: int = 10_000, seed: int = 0) -> dict[str, Any]:
    """Bottleneck distances between the H1 diagrams of the largest clusters (not in the paper: the
    book's seed document claims the two attention architectures' diagrams are nearly identical),
    within an architecture (a with a, b with b) and across (a with b), and a permutation test over
    networks of "across is larger than within" (statistic: mean across minus mean within).

    Pairwise distances that share a network are not independent samples, so the test relabels whole
    networks between the two architectures: every labelling when there are at most
    ``n_permutations``, else ``n_permutations`` random ones (seeded). Returns the within and across
    distances, the mean across distance, the p-value, the number of labellings, the networks of the
    smaller architecture and the smallest p-value the test can give."""
    if min(len(res[a]), len(res[b])) < 2:
        raise ValueError(f"the distance test needs at least 2 networks of {a} and of {b} (within-"
                         f"architecture distances), got {len(res[a])} and {len(res[b])}: "
                         "raise the config's seeds")
    n_a, units = len(res[a]), res[a] + res[b]
    dist = _network_distances(units)
    rows, cols = np.triu_indices(len(units), 1)
    pairs = dist[rows, cols]

    def statistic(in_a: np.ndarray) -> float:
        same = in_a[rows] == in_a[cols]
        return float(pairs[~same].mean() - pairs[same].mean())

    observed = np.arange(len(units)) < n_a
    if comb(len(units), n_a) <= n_permutations:
        labellings = [np.isin(np.arange(len(units)), c) for c in combinations(range(len(units)), n_a)]
        stats = np.array([statistic(m) for m in labellings])
        p = float(np.mean(stats >= statistic(observed) - 1e-12))
        smallest = float(np.mean(stats >= stats.max() - 1e-12))
    else:
        rng = np.random.default_rng(seed)
        labellings = [rng.permutation(observed) for _ in range(n_permutations)]
        stats = np.array([statistic(m) for m in labellings])
        p = float((1 + np.sum(stats >= statistic(observed) - 1e-12)) / (1 + n_permutations))
        smallest = 1 / (1 + n_permutations)
    same = observed[rows] == observed[cols]
    return {"within": pairs[same], "across": pairs[~same], "mean_across": float(pairs[~same].mean()),
            "p": p, "labellings": len(labellings), "networks": min(n_a, len(res[b])), "smallest_p": smallest}
