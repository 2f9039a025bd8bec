"""Reference solutions to the superposition exercises (Elhage et al. 2022, toy models of superposition).

Each function answers one exercise of ``book/superposition/exercises.md``; every measurement is one of
:mod:`interp_repro.superposition.measures`. The ``check_*`` functions test a student's own code for the
coding exercises against the library's reference (``train.instance_loss``,
``measures.feature_dimensionality``), saying what is wrong without giving the answer.
"""

from collections.abc import Callable

import numpy as np
import pandas as pd
import torch

from interp_repro.core import (
    check_fraction,
    check_nonnegative,
    check_positive,
    check_positive_int,
    check_real_array,
    torch_generator,
)
from interp_repro.exercises.checking import (
    array,
    attempt,
    close,
    number,
    passed,
    random_cases,
    require,
    withholds,
)
from interp_repro.superposition import measures
from interp_repro.superposition.data import decaying_importance
from interp_repro.superposition.model import ToyModel
from interp_repro.superposition.train import evaluate, instance_loss, train_best


def _check_importance(values) -> np.ndarray:
    """``values`` as a float64 array of ``values``' shape after checking that it is non-empty and each
    relative importance is finite and > 0."""
    r = check_real_array("relative importance", np.ravel(values), 1)
    for v in r:
        check_positive("relative importance", v)
    return r.reshape(np.shape(values))


# --- 1. the phase boundary in closed form --------------------------------------------------------

def superposition_boundary(relative_importance) -> np.ndarray:
    """The density s*(r) below which the antipodal pair beats both single-feature solutions (2 -> 1).

    From the three candidate losses of Elhage et al. (2022, §"Superposition as a phase change"),
    (1 + r) s^2 / 6 < min(1, r) (s/3 - s^2/4) holds exactly when
    s < s*(r) = 4 min(1, r) / (2 + 2 r + 3 min(1, r)), so s*(1) = 4/7 and s*(r) = s*(1/r).
    Broadcasts over ``relative_importance`` (> 0).
    """
    r = _check_importance(relative_importance)
    low = np.minimum(1.0, r)
    return 4 * low / (2 + 2 * r + 3 * low)


def boundary_table(relative_importances) -> pd.DataFrame:
    """s*(r) in closed form beside the library's grid search ``measures.superposition_density_bound``."""
    r = _check_importance(relative_importances).ravel()
    return pd.DataFrame({"r": r, "closed form s*(r)": superposition_boundary(r),
                         "library grid search": [measures.superposition_density_bound(float(v)) for v in r]})


# --- 2. the three candidate losses by Monte Carlo ------------------------------------------------

def _candidates(densities: np.ndarray, r: float, generator: torch.Generator) -> ToyModel:
    """A 2 -> 1 ReLU model with 3 instances per density: the three candidates of ``measures.PHASES``.

    not learned: W = (1, 0), the extra feature's bias at its mean s/2; superposition: W = (1, -1), b = 0;
    learned alone: W = (0, 1), the first feature's bias at its mean s/2.
    """
    k = 3 * densities.size
    model = ToyModel(k, 2, 1, "relu", generator)
    W = np.tile([[[1.0, 0.0]], [[1.0, -1.0]], [[0.0, 1.0]]], (densities.size, 1, 1))
    half = np.repeat(densities / 2, 3)
    b = np.zeros((k, 1, 2))
    b[0::3, 0, 1], b[2::3, 0, 0] = half[0::3], half[2::3]
    with torch.no_grad():
        model.W.copy_(torch.as_tensor(W, dtype=torch.float32))
        model.b.copy_(torch.as_tensor(b, dtype=torch.float32))
    return model


def candidate_losses(densities, relative_importance: float = 1.0, *, batches: int = 16,
                     batch: int = 4096, seed: int = 0) -> pd.DataFrame:
    """Monte Carlo losses of the three hand-built 2 -> 1 solutions beside their closed forms
    (Elhage et al. 2022, §"Superposition as a phase change": r (s/3 - s^2/4), (1 + r) s^2 / 6,
    s/3 - s^2/4).

    Each of ``batches`` batches of ``batch`` inputs is drawn from seed ``seed + i`` with the library's
    own sampler (``superposition.train.evaluate``); the standard error is over batches.
    Returns one row per (density, candidate).
    """
    s = np.asarray(densities, dtype=np.float64).ravel()
    check_fraction("densities", s)
    if np.ndim(relative_importance) != 0:
        raise ValueError(f"relative_importance must be one number, got {relative_importance!r}")
    r = float(_check_importance(relative_importance))
    check_positive_int("batches", batches)
    check_positive_int("batch", batch)
    model = _candidates(s, r, torch_generator(seed))
    importance = torch.tensor([1.0, r], dtype=torch.float32)
    density = torch.as_tensor(np.repeat(s, 3), dtype=torch.float32)
    per_batch = np.stack([evaluate(model, importance, density, seed=seed + i, batches=1, batch=batch)
                          for i in range(batches)])  # (batches, 3 * densities)
    mean = per_batch.mean(0).reshape(s.size, 3)
    sem = (per_batch.std(0, ddof=1) / np.sqrt(batches) if batches > 1
           else np.full(per_batch.shape[1], np.nan)).reshape(s.size, 3)
    exact = measures.analytic_losses_2_1(s, r).T  # (densities, 3)
    return pd.DataFrame([{"density": s[i], "candidate": measures.PHASES[j], "Monte Carlo": mean[i, j],
                          "standard error": sem[i, j], "closed form": exact[i, j]}
                         for i in range(s.size) for j in range(3)])


# --- 3. polytopes and feature dimensionality -----------------------------------------------------

def _regular_polygon(n: int) -> np.ndarray:
    angle = 2 * np.pi * np.arange(n) / n
    return np.stack([np.cos(angle), np.sin(angle)])


def polytopes() -> dict[str, np.ndarray]:
    """Unit feature directions W (m x n) of the uniform arrangements named in Elhage et al. (2022,
    §"The geometry of superposition"): each is a tight frame, W W^T = (n / m) I."""
    tetra = np.array([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]], dtype=np.float64).T / np.sqrt(3)
    # square antiprism: two squares at heights +-1/sqrt(3), the top one turned by 45 degrees
    turn = np.pi / 4 * (np.arange(8) % 2) + np.pi / 2 * (np.arange(8) // 2)
    ring = np.sqrt(2 / 3) * np.stack([np.cos(turn), np.sin(turn)])
    antiprism = np.vstack([ring, np.where(np.arange(8) % 2, 1.0, -1.0) / np.sqrt(3)])
    return {"dedicated dimensions": np.eye(3), "tetrahedron": tetra, "triangle": _regular_polygon(3),
            "antipodal pair": np.array([[1.0, -1.0]]), "pentagon": _regular_polygon(5),
            "square antiprism": antiprism}


def polytope_dimensionalities() -> pd.DataFrame:
    """Per-feature dimensionality D_i and dimensions per feature D* of each arrangement of
    :func:`polytopes`, measured by the library, beside the fraction m / n they should give."""
    rows = []
    for name, W in polytopes().items():
        D = measures.feature_dimensionality(W)
        m, n = W.shape
        rows.append({"arrangement": name, "m": m, "n": n, "m / n": m / n, "D_i (min)": D.min(),
                     "D_i (max)": D.max(), "sum D_i": D.sum(),
                     "D*": float(measures.dimensions_per_feature(W))})
    return pd.DataFrame(rows)


# --- 4. the linear model is PCA ------------------------------------------------------------------

def linear_optimum(n_features: int, n_hidden: int, importance, density) -> np.ndarray:
    """The lowest loss a linear model x' = W^T W x + b can reach: sum_{i >= m} I_i Var(x_i), with
    Var(x_i) = s/3 - s^2/4 for density s and I sorted in decreasing order (Elhage et al. 2022,
    §"Demonstrating superposition": the linear model keeps the m most important features, as PCA).
    Broadcasts over ``density``."""
    check_positive_int("n_features", n_features)
    check_positive_int("n_hidden", n_hidden)
    imp = check_real_array("importance", importance, 1)
    if imp.shape != (n_features,):
        raise ValueError(f"importance must hold {n_features} values, got shape {imp.shape}")
    for v in imp:
        check_nonnegative("importance", v)
    s = np.asarray(density, dtype=np.float64)
    check_fraction("density", s)
    dropped = np.sort(imp)[::-1][n_hidden:].sum()
    return dropped * measures.feature_variance(s)


def linear_vs_optimum(n_features: int = 20, n_hidden: int = 5, importance_decay: float = 0.7,
                      sparsities=(0.0, 0.7, 0.9, 0.97), *, steps: int = 3000, seeds: int = 1,
                      seed: int = 0) -> pd.DataFrame:
    """Train linear models (``superposition.train.train_best``, the chapter's recipe) at each
    sparsity and set their held-out loss beside :func:`linear_optimum`. The training is short, so the
    gap says how far from the optimum that budget leaves the model; it can never be negative beyond
    sampling noise."""
    check_fraction("importance_decay", importance_decay)
    sparsity = np.asarray(sparsities, dtype=np.float64).ravel()
    check_fraction("density 1 - sparsity", 1 - sparsity)
    importance = decaying_importance(importance_decay, n_features)
    res = train_best("linear", n_features, n_hidden, importance, 1 - sparsity, seeds=seeds, steps=steps,
                     batch=1024, seed=seed, desc="linear models")
    best = linear_optimum(n_features, n_hidden, importance, 1 - sparsity)
    return pd.DataFrame({"sparsity": sparsity, "trained loss": res["loss"], "optimum": best,
                         "trained / optimum": res["loss"] / best})


# --- coding exercises: the student's functions, checked ---------------------------------------------

class _Reconstruction:
    """A stand-in for a model whose output is fixed, so ``train.instance_loss`` scores ``x_hat``."""

    def __init__(self, x_hat: np.ndarray):
        self.x_hat = torch.tensor(x_hat[None], dtype=torch.float64)

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return self.x_hat

    def target(self, x: torch.Tensor) -> torch.Tensor:
        return x


def weighted_loss(x, x_hat, importance) -> float:
    """The reference of the loss exercise: ``train.instance_loss``, the mean over the batch (rows of x and
    x_hat) of sum_i I_i (x_i - x_hat_i)^2, for a reconstruction ``x_hat`` given as an array."""
    x, x_hat = check_real_array("x", x, 2), check_real_array("x_hat", x_hat, 2)
    importance = torch.tensor(check_real_array("importance", importance, 1))
    return float(instance_loss(_Reconstruction(x_hat), torch.tensor(x[None]), importance)[0])


@withholds(instance_loss, weighted_loss)
def check_weighted_loss(student: Callable) -> None:
    """Check a student's ``weighted_loss(x, x_hat, importance)``: the toy models' loss, the mean over a
    batch (rows of x, x_hat) of sum_i I_i (x_i - x_hat_i)^2 (Elhage et al. 2022), as :func:`weighted_loss`,
    on cases that show one mistake each, then on random batches (``random_cases(70)``)."""
    name = "weighted_loss"
    rng = np.random.default_rng(7)
    x, x_hat = rng.random((6, 4)), rng.random((6, 4))
    importance = 0.7 ** np.arange(4)
    loss = number(attempt(student, name, x, x_hat, importance), name)
    require(close(number(attempt(student, name, x, x.copy(), importance), name), 0.0),
            "a perfect reconstruction (x_hat equal to x) must have loss 0")
    off_last = x.copy()
    off_last[:, -1] += 1.0
    require(close(number(attempt(student, name, x, off_last, np.r_[importance[:-1], 0.0]), name), 0.0),
            "an error on a feature of importance 0 must cost nothing: weight each feature's squared error "
            "by its importance")
    doubled = number(attempt(student, name, np.tile(x, (2, 1)), np.tile(x_hat, (2, 1)), importance),
                     name)
    require(close(doubled, loss), "repeating the batch twice changed the loss: average over the batch (the "
            "rows)" + (", don't sum" if close(doubled, 2 * loss) else ""))
    extra = number(attempt(student, name, np.c_[x, np.ones(6)], np.c_[x_hat, np.ones(6)],
                           np.r_[importance, 0.0]), name)
    require(close(extra, loss), "adding a feature of importance 0 with no error changed the loss"
            + (": sum the weighted errors over the features, don't average them" if close(extra, 0.8 * loss)
               else ""))
    heavier = number(attempt(student, name, x, x_hat, 2 * importance), name)
    require(close(heavier, 2 * loss), "doubling every importance must double the loss"
            + (": weight the errors by the importances as given, don't normalise them" if close(heavier, loss)
               else ""))
    twice = number(attempt(student, name, x, x + 2 * (x_hat - x), importance), name)
    require(close(twice, 4 * loss), "doubling every error must multiply the loss by 4: square the errors")
    require(close(loss, weighted_loss(x, x_hat, importance)),
            f"on a batch of 6 inputs with 4 features your loss {loss:.6g} is wrong")
    checks = 7
    for k, rng in random_cases(70):
        batch, features = int(rng.integers(1, 10)), int(rng.integers(1, 8))
        x = rng.random((batch, features)) * (rng.random(features) < 0.7)  # sparse features, as in the toys
        x_hat = x + rng.normal(0.0, rng.uniform(0.05, 2.0), (batch, features))
        importance = rng.exponential(1.0, features) * (rng.random(features) < 0.8)
        value = number(attempt(student, name, x, x_hat, importance), name)
        require(close(value, weighted_loss(x, x_hat, importance)),
                f"on random batch {k} ({batch} inputs, {features} features) your loss {value:.6g} is wrong")
        checks += 1
    passed(name, checks)


@withholds(measures.feature_dimensionality)
def check_feature_dimensionality(feature_dimensionality: Callable) -> None:
    """Check ``feature_dimensionality(W)``: D_i = ||W_i||^2 / sum_j (W_i_hat . W_j)^2 for every column W_i
    of the (m, n) matrix W (Elhage et al. 2022, §"Geometry"), as ``measures.feature_dimensionality``, on
    cases that show one mistake each, then on random matrices (``random_cases(30)``)."""
    name = "feature_dimensionality"
    W = np.random.default_rng(3).standard_normal((3, 5))
    D = array(attempt(feature_dimensionality, name, W), name, (5,), "one value per feature (column of W)")
    alone = array(attempt(feature_dimensionality, name, np.eye(3)), name, (3,), "one value per column")
    require(close(alone, 1.0), "three features with a dimension each (W the identity) must each have D_i = 1")
    pair = array(attempt(feature_dimensionality, name, np.array([[1.0, -1.0]])), name, (2,),
                 "one value per column")
    require(close(pair, 0.5), "an antipodal pair in one dimension (W = [[1, -1]]) must have D_i = 1/2 each")
    scaled = array(attempt(feature_dimensionality, name, 3.0 * W), name, (5,), "one value per column")
    require(close(scaled, D), "scaling W by 3 changed D_i: D_i must not depend on the scale of W")
    dead = W.copy()
    dead[:, 0] = 0.0
    D_dead = array(attempt(feature_dimensionality, name, dead), name, (5,), "one value per column")
    require(bool(np.isfinite(D_dead).all()) and close(D_dead[0], 0.0),
            "a feature the model does not represent (a zero column) must get D_i = 0, not nan or inf")
    require(close(D, measures.feature_dimensionality(W)), "on a random 3 x 5 matrix W your D_i are wrong")
    checks = 6
    for k, rng in random_cases(30):
        m, n = int(rng.integers(1, 6)), int(rng.integers(1, 9))
        W = rng.standard_normal((m, n)) * np.exp(rng.normal(0.0, 1.0, n))  # columns of different lengths
        W[:, rng.random(n) < 0.15] = 0.0
        D = array(attempt(feature_dimensionality, name, W), name, (n,), "one value per feature (column of W)")
        require(close(D, measures.feature_dimensionality(W)),
                f"on random matrix {k} ({m} x {n}) your D_i are wrong")
        checks += 1
    passed(name, checks)
