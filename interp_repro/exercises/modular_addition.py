"""Reference solutions to the modular-addition exercises (Moisescu-Pareja et al. 2025 on Zhong et al. 2023).

Each function answers one exercise of ``book/modular_addition/exercises.md``; every measurement goes
through :mod:`interp_repro.modular_addition` and :mod:`interp_repro.topology`.
"""

import numpy as np
import pandas as pd

from interp_repro.core import check_positive_int, numpy_rng
from interp_repro.modular_addition import analysis as an
from interp_repro.modular_addition.data import check_modulus
from interp_repro.modular_addition.probes import tables
from interp_repro.modular_addition.train import train
from interp_repro.topology import alpha_persistence, count_bars


def _check_frequency(f: int, p: int) -> int:
    if isinstance(f, bool) or not isinstance(f, int) or not 1 <= f <= p // 2:
        raise ValueError(f"the frequency f must be an integer in 1..{p // 2} for p = {p}, got {f!r}")
    return f


def _check_nonneg(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < np.inf:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return float(value)


# --- 1. the theorem on synthetic clusters ----------------------------------------------------------

def simple_neuron_cluster(p: int, f: int, n_neurons: int, aligned: bool, *, noise: float = 0.0,
                          seed: int = 0) -> np.ndarray:
    """Pre-activations (p, p, n_neurons) of a cluster of simple neurons (the paper's §3 model)

        N_i(a, b) = A_i cos(t a + phi_L,i) + B_i cos(t b + phi_R,i),  t = 2 pi f / p,

    with amplitudes A_i, B_i uniform on [0.5, 1.5] and phases uniform on the circle, drawn from
    ``numpy_rng(seed)``; ``aligned`` sets phi_R = phi_L (and B = A). ``noise``: sd of Gaussian noise added
    to every entry."""
    p = check_modulus(p)
    f = _check_frequency(f, p)
    check_positive_int("n_neurons", n_neurons)
    noise = _check_nonneg("noise", noise)
    rng = numpy_rng(seed)
    amp_l, amp_r = rng.uniform(0.5, 1.5, (2, n_neurons))
    phi_l, phi_r = rng.uniform(-np.pi, np.pi, (2, n_neurons))
    if aligned:
        amp_r, phi_r = amp_l, phi_l
    t = 2 * np.pi * f * np.arange(p) / p
    pre = (amp_l * np.cos(t[:, None, None] + phi_l) + amp_r * np.cos(t[None, :, None] + phi_r))
    return pre + noise * rng.standard_normal(pre.shape)


def _whitened(cloud: np.ndarray, k: int) -> np.ndarray:
    """The cloud's top k principal components, each scaled to unit variance."""
    centred = cloud - cloud.mean(axis=0)
    pcs = centred @ np.linalg.svd(centred, full_matrices=False)[2][:k].T
    return pcs / pcs.std(axis=0)


def cluster_shape(p: int = 59, f: int = 3, n_neurons: int = 12, *, noise: float = 0.02,
                  seed: int = 0) -> pd.DataFrame:
    """The paper's theorem (§4) checked on synthetic clusters: for aligned and independent phases, the
    PCA shares, the rank (the principal components that hold more than 0.1% of the variance each),
    linear CKA with the disc, torus and circle, and the Betti numbers of the cloud: alpha complex on
    those components (2 to 4 of them), each scaled to unit variance first, since a stretched torus
    can show a spurious H2 bar at a fixed threshold; bars longer than the library's threshold count."""
    rows = []
    for aligned in (True, False):
        cloud = an.cluster_cloud(simple_neuron_cluster(p, f, n_neurons, aligned, noise=noise, seed=seed),
                                 np.arange(n_neurons))
        shares = an.pca_variance(cloud)
        rank = int(np.count_nonzero(shares > 1e-3))  # components that hold more than 0.1% of the variance
        refs = {"disc": an.reference_disc(p, f), "torus": an.reference_torus(p, f),
                "circle": an.reference_circle(p, f)}
        rows.append({"phases": "aligned" if aligned else "independent",
                     "top-2 PCA share": shares[:2].sum(), "top-4 PCA share": shares[:4].sum(),
                     "rank": rank,
                     **{f"CKA {name}": an.linear_cka(cloud, ref) for name, ref in refs.items()},
                     "Betti": count_bars(alpha_persistence(_whitened(cloud, int(np.clip(rank, 2, 4))),
                                                           maxdim=2))})
    return pd.DataFrame(rows)


# --- 2. distance irrelevance of a Clock-Pizza mixture -----------------------------------------------

def _mixture_parts(p: int, f: int, clock_weight: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(1 - w) u and w v of :func:`mixed_logit_table`, each indexed by a residue 0..p-1."""
    p = check_modulus(p)
    f = _check_frequency(f, p)
    w = _check_nonneg("clock_weight", clock_weight)
    if w > 1:
        raise ValueError(f"clock_weight must lie in [0, 1], got {clock_weight!r}")
    u = np.abs(np.cos(np.pi * f * np.arange(p) / p))
    return (1 - w) * u, w * numpy_rng(seed).standard_normal(p)


def mixed_logit_table(p: int, f: int, clock_weight: float, *, seed: int = 0) -> np.ndarray:
    """A (p, p) table of correct-class logits L[a, b] = (1 - w) u((a - b) mod p) + w v((a + b) mod p).

    u(d) = |cos(pi f d / p)| is the Pizza's dependence on the difference (Zhong et al. 2023, §4); v is
    a random function of the sum (standard normal values from ``numpy_rng(seed)``), standing for
    whatever a Clock's correct logit does with a + b. w = ``clock_weight`` in [0, 1]."""
    pizza, clock = _mixture_parts(p, f, clock_weight, seed)
    a = np.arange(p)
    return pizza[(a[:, None] - a[None, :]) % p] + clock[(a[:, None] + a[None, :]) % p]


def irrelevance_prediction(p: int, f: int, clock_weight: float, *, seed: int = 0) -> float:
    """q = sd(w v) / sqrt(var((1 - w) u) + var(w v)) for the table of :func:`mixed_logit_table`: for
    odd p, (a, b) -> (a - b, a + b) is a bijection of the grid, so the two parts vary independently
    and Zhong's q (the std over sums at a fixed difference, over the overall std) has this closed form."""
    if check_modulus(p) % 2 == 0:
        raise ValueError(f"the closed form needs an odd modulus p, got {p}")
    pizza, clock = _mixture_parts(p, f, clock_weight, seed)
    return float(np.sqrt(clock.var() / (pizza.var() + clock.var())))


def irrelevance_sweep(p: int = 59, f: int = 5, clock_weights=(0.0, 0.1, 0.2, 0.4, 0.7, 1.0), *,
                      seed: int = 0) -> pd.DataFrame:
    """Distance irrelevance measured by the library (``analysis.distance_irrelevance``) beside the
    closed form :func:`irrelevance_prediction`, for each Clock weight."""
    rows = [{"clock weight": float(w),
             "q measured": an.distance_irrelevance(mixed_logit_table(p, f, w, seed=seed)),
             "q predicted": irrelevance_prediction(p, f, w, seed=seed)} for w in clock_weights]
    return pd.DataFrame(rows)


# --- 3. what the architecture forces ---------------------------------------------------------------

def _wrap(x: np.ndarray) -> np.ndarray:
    return np.pi - np.mod(np.pi - x, 2 * np.pi)


def architecture_phases(p: int = 23, *, steps: int = 1500, d_model: int = 64, d_mlp: int = 128,
                        seed: int = 0, architectures=("mlp_add", "mlp_concat")) -> pd.DataFrame:
    """Train one small network per architecture (``modular_addition.train.train``, Zhong et al.'s recipe
    with an explicit size) and describe every hidden neuron: key frequency, simple-neuron fit (R^2,
    phi_L, phi_R, their wrapped difference) and the torus distance of its peak from the diagonal
    (the paper, §3 and §5). One row per (architecture, neuron), with the network's final test
    accuracy repeated on its rows."""
    check_positive_int("steps", steps)
    unknown = [a for a in architectures if a not in ("mlp_add", "mlp_concat", "attention")]
    if unknown or not architectures:
        raise ValueError(f"architectures must name some of 'mlp_add', 'mlp_concat', 'attention', "
                         f"got {architectures!r}")
    frames = []
    for arch in architectures:
        res = train(arch, p, [seed], steps=steps, d_model=d_model, d_mlp=d_mlp, eval_every=steps,
                    desc=f"{arch}, p = {p}")
        pre = tables(res.model)[0][0]
        freqs = an.key_frequencies(pre)
        fit = an.simple_neuron_fit(pre, freqs)
        frames.append(pd.DataFrame({
            "architecture": arch, "neuron": np.arange(freqs.size), "key frequency": freqs,
            "R2": fit["r2"], "phi_L": fit["phi_L"], "phi_R": fit["phi_R"],
            "phi_L - phi_R": _wrap(fit["phi_L"] - fit["phi_R"]),
            "torus distance": an.torus_distance(an.phase_alignment(pre), p),
            "test accuracy": float(res.test_acc[-1, 0])}))
    return pd.concat(frames, ignore_index=True)
