"""Reference solutions to the modular-addition exercises (Moisescu-Pareja et al. 2025 on Zhong et al. 2023).

Each function answers one exercise of ``book/modular_addition/exercises.md``; every measurement goes
through :mod:`interp_repro.modular_addition.measures` and :mod:`interp_repro.modular_addition.topology`.
The ``check_*`` functions test a student's own code for the coding exercises against the library's
reference (``measures.distance_irrelevance``, ``measures.linear_cka``), saying what is wrong without giving
the answer.
"""

from collections.abc import Callable

import numpy as np
import pandas as pd

from interp_repro.core import (
    check_choices,
    check_nonnegative,
    check_positive_int,
    check_probability,
    numpy_rng,
    pca_projection,
    pca_variance,
)
from interp_repro.exercises.checking import attempt, close, number, passed, random_cases, require, withholds
from interp_repro.modular_addition import measures
from interp_repro.modular_addition.data import check_modulus
from interp_repro.modular_addition.model import KINDS
from interp_repro.modular_addition.topology import alpha_persistence, count_bars
from interp_repro.modular_addition.train import train

# --- 1. the theorem on synthetic clusters ----------------------------------------------------------

def simple_neuron_cluster(p: int, f: int, n_neurons: int, aligned: bool, *, noise: float = 0.0,
                          seed: int = 0) -> np.ndarray:
    """Pre-activations (p, p, n_neurons) of a cluster of simple neurons (the paper's §3 model)

        N_i(a, b) = A_i cos(t a + phi_L,i) + B_i cos(t b + phi_R,i),  t = 2 pi f / p,

    with amplitudes A_i, B_i uniform on [0.5, 1.5] and phases uniform on the circle, drawn from
    ``numpy_rng(seed)``; ``aligned`` sets phi_R = phi_L (and B = A). ``noise``: sd of Gaussian noise added
    to every entry."""
    p = check_modulus(p)
    f = measures.check_frequency(f, p)
    check_positive_int("n_neurons", n_neurons)
    noise = check_nonnegative("noise", noise)
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
    pcs = pca_projection(cloud, k)
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
        pre = simple_neuron_cluster(p, f, n_neurons, aligned, noise=noise, seed=seed)
        cloud = measures.cluster_cloud(pre, np.arange(n_neurons))
        shares = pca_variance(cloud)
        rank = int(np.count_nonzero(shares > 1e-3))  # components that hold more than 0.1% of the variance
        refs = {"disc": measures.reference_disc(p, f), "torus": measures.reference_torus(p, f),
                "circle": measures.reference_circle(p, f)}
        rows.append({"phases": "aligned" if aligned else "independent",
                     "top-2 PCA share": shares[:2].sum(), "top-4 PCA share": shares[:4].sum(),
                     "rank": rank,
                     **{f"CKA {name}": measures.linear_cka(cloud, ref) for name, ref in refs.items()},
                     "Betti": count_bars(alpha_persistence(_whitened(cloud, int(np.clip(rank, 2, 4))),
                                                           maxdim=2))})
    return pd.DataFrame(rows)


# --- 2. distance irrelevance of a Clock-Pizza mixture -----------------------------------------------

def _mixture_parts(p: int, f: int, clock_weight: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(1 - w) u and w v of :func:`mixed_logit_table`, each indexed by a residue 0..p-1."""
    p = check_modulus(p)
    f = measures.check_frequency(f, p)
    w = check_probability("clock_weight", clock_weight)
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
    """Distance irrelevance measured by the library (``measures.distance_irrelevance``) beside the
    closed form :func:`irrelevance_prediction`, for each Clock weight."""
    rows = [{"clock weight": float(w),
             "q measured": measures.distance_irrelevance(mixed_logit_table(p, f, w, seed=seed)),
             "q predicted": irrelevance_prediction(p, f, w, seed=seed)} for w in clock_weights]
    return pd.DataFrame(rows)


# --- 3. what the architecture forces ---------------------------------------------------------------

def architecture_phases(p: int = 23, *, steps: int = 1500, d_model: int = 64, d_mlp: int = 128,
                        seed: int = 0, kinds=("mlp_add", "mlp_concat")) -> pd.DataFrame:
    """Train one small network of each model kind in ``kinds`` (``model.KINDS``; the two MLP kinds are
    the paper's MLP-Add and MLP-Concat architectures) with ``modular_addition.train.train``, Zhong et
    al.'s recipe at an explicit size, and describe every hidden neuron: key frequency, simple-neuron
    fit (R^2, phi_L, phi_R, their wrapped difference) and the torus distance of its peak from the
    diagonal (the paper, §3 and §5). One row per (architecture, neuron), with the network's final
    test accuracy repeated on its rows."""
    check_positive_int("steps", steps)
    check_choices("kinds", tuple(kinds), KINDS)
    frames = []
    for kind in kinds:
        res = train(kind, p, [seed], steps=steps, d_model=d_model, d_mlp=d_mlp, eval_every=steps,
                    desc=f"{kind}, p = {p}")
        pre = measures.tables(res.model)[0][0]
        freqs = measures.key_frequencies(pre)
        fit = measures.simple_neuron_fit(pre, freqs)
        frames.append(pd.DataFrame({
            "architecture": kind, "neuron": np.arange(freqs.size), "key frequency": freqs,
            "R2": fit["r2"], "phi_L": fit["phi_L"], "phi_R": fit["phi_R"],
            "phi_L - phi_R": measures.wrap_angle(fit["phi_L"] - fit["phi_R"]),
            "torus distance": measures.torus_distance(measures.phase_alignment(pre), p),
            "test accuracy": float(res.test_acc[-1, 0])}))
    return pd.concat(frames, ignore_index=True)


# --- coding exercises: the student's functions, checked ---------------------------------------------

def _ddof_mistakes(p: int) -> dict[float, str]:
    """q of a table that depends on (a + b) mod p only (odd p), as each mix-up of standard deviations
    computes it, with the hint that names that mix-up (the right q is 1)."""
    within, overall = np.sqrt(p / (p - 1)), np.sqrt(p * p / (p * p - 1))
    return {within: "the spread within each difference uses ddof = 1: use population standard deviations",
            1 / overall: "the whole table's spread uses ddof = 1: use population standard deviations",
            within / overall: "use population standard deviations (ddof = 0), not sample ones"}


@withholds(measures.distance_irrelevance)
def check_distance_irrelevance(distance_irrelevance: Callable) -> None:
    """Check ``distance_irrelevance(table)`` on (p, p) tables of correct logits L[a, b]: Zhong et al.'s q,
    as ``measures.distance_irrelevance``, on cases that show one mistake each, then on random mixtures of a
    function of a - b, one of a + b and noise, for odd and even p (``random_cases(110)``)."""
    name = "distance_irrelevance"
    p = 7
    a = np.arange(p)
    rng = np.random.default_rng(11)
    table = rng.standard_normal((p, p))
    q = number(attempt(distance_irrelevance, name, table), name)
    rescaled = number(attempt(distance_irrelevance, name, 3.0 * table + 5.0), name)
    require(close(rescaled, q), "multiplying the table by 3 and adding 5 changed q: it must not (q is a "
            "ratio of two spreads of the table)")
    pizza = np.cos(2 * np.pi * ((a[:, None] - a[None, :]) % p) / p)
    q_pizza = number(attempt(distance_irrelevance, name, pizza), name)
    require(close(q_pizza, 0.0), f"a table that depends on (a - b) mod p only must give q = 0, yours gives "
            f"{q_pizza:.3g}: such a table does not vary within a group of pairs that share a difference")
    clock = rng.standard_normal(p)[(a[:, None] + a[None, :]) % p]
    q_clock = number(attempt(distance_irrelevance, name, clock), name)
    named = [hint for value, hint in _ddof_mistakes(p).items() if close(q_clock, value)]
    require(close(q_clock, 1.0), f"a table that depends on (a + b) mod p only must give q = 1 (p odd), yours "
            f"gives {q_clock:.3g}" + (f": {named[0]}" if named else ""))
    require(close(q, measures.distance_irrelevance(table)),
            f"on a random 7 x 7 table your q = {q:.6g} is wrong")
    checks = 5
    for k, rng in random_cases(110):
        p = int(rng.integers(3, 14))
        a = np.arange(p)
        weights = rng.uniform(0.0, 1.0, 3)
        table = (weights[0] * rng.standard_normal(p)[(a[:, None] - a[None, :]) % p]
                 + weights[1] * rng.standard_normal(p)[(a[:, None] + a[None, :]) % p]
                 + weights[2] * rng.standard_normal((p, p)) + rng.normal(0.0, 3.0))
        value = number(attempt(distance_irrelevance, name, table), name)
        require(close(value, measures.distance_irrelevance(table)),
                f"on random table {k} ({p} x {p}) your q = {value:.6g} is wrong")
        checks += 1
    passed(name, checks)


@withholds(measures.linear_cka)
def check_linear_cka(linear_cka: Callable) -> None:
    """Check ``linear_cka(X, Y)`` on representations X (n, d1), Y (n, d2) of the same n inputs: linear
    CKA (Kornblith et al. 2019), as ``measures.linear_cka``, on cases that show one mistake each, then on
    random pairs of every shape, their columns shifted by different amounts (``random_cases(50)``)."""
    name = "linear_cka"
    rng = np.random.default_rng(5)
    X, Y = rng.standard_normal((20, 3)), rng.standard_normal((20, 4))
    Y[:, :3] += X  # related, but not one a rotation of the other
    cka = number(attempt(linear_cka, name, X, Y), name)
    for which, moved in (("X", (X + rng.normal(0.0, 4.0, 3), Y)), ("Y", (X, Y + rng.normal(0.0, 4.0, 4)))):
        shifted = number(attempt(linear_cka, name, *moved), name)
        require(close(shifted, cka), f"adding a different constant to each column of {which} changed CKA: "
                "centre each column (subtract its mean over the inputs)")
    require(close(number(attempt(linear_cka, name, X, X), name), 1.0), "CKA of X with itself must be 1")
    require(close(number(attempt(linear_cka, name, Y, X), name), cka), "CKA(Y, X) differs from CKA(X, Y): "
            "it is symmetric")
    scaled = number(attempt(linear_cka, name, 3.0 * X, Y), name)
    require(close(scaled, cka), "multiplying X by 3 changed CKA: it must not")
    rotation = np.linalg.qr(rng.standard_normal((3, 3)))[0]
    rotated = number(attempt(linear_cka, name, X @ rotation, Y), name)
    require(close(rotated, cka), "rotating X (an orthogonal transform) changed CKA: it must not")
    require(close(cka, measures.linear_cka(X, Y)), f"on random 20-input representations your CKA = {cka:.6g} "
            "is wrong")
    checks = 8
    for k, rng in random_cases(50):
        n, d1, d2 = int(rng.integers(2, 12)), int(rng.integers(1, 6)), int(rng.integers(1, 6))
        X = rng.standard_normal((n, d1)) * np.exp(rng.normal(0.0, 1.0, d1)) + rng.normal(0.0, 5.0, d1)
        Y = (X @ rng.standard_normal((d1, d2)) * rng.uniform(0.0, 1.0) + rng.standard_normal((n, d2))
             + rng.normal(0.0, 5.0, d2))
        value = number(attempt(linear_cka, name, X, Y), name)
        require(close(value, measures.linear_cka(X, Y)),
                f"on random representations {k} ({n} inputs, {d1} and {d2} columns) your CKA = {value:.6g} "
                "is wrong")
        checks += 1
    passed(name, checks)
