"""The experiments of Elhage et al. (2022), one config and one cached ``run_*`` function each.

Each config has a preset per scale (``Config.preset("ci")``); any field can be overridden. Each run
function trains every instance it needs as one batched program, keeps the lowest-loss seed per
point where the paper does, caches the arrays on disk and returns them as a dict. Each ``*_claims``
function picks the headline numbers that ``claims.toml`` checks from :mod:`.measures` of those arrays.
"""

from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from interp_repro.core import (
    cached,
    check_choices,
    check_fraction,
    check_positive,
    check_positive_int,
    check_probability,
    check_tuple,
)
from interp_repro.core.estimate import Estimate
from interp_repro.core.parallel import Job, run_jobs
from interp_repro.core.presets import Preset
from interp_repro.core.seeding import check_seed
from interp_repro.core.table import Experiment, declares, table_claims, table_jobs
from interp_repro.core.units import Arrays
from interp_repro.core.validate import check_field_types
from interp_repro.superposition.data import decaying_importance
from interp_repro.superposition.measures import (
    REGULAR_GAP,
    abs_circuit_share,
    agreement_flags,
    antipodal_share,
    clustering_over_chance,
    dimensions_per_feature,
    empirical_phase,
    feature_dimensionality,
    intermediate_norm_share,
    jump_flags,
    keeps_top,
    live_top_share,
    mean_pair_cosine,
    median_dims_per_hidden,
    neighbour_gap_degrees,
    neuron_top_share,
    packed_dims,
    pentagon_error_degrees,
    plateau_ratio,
    represented,
    squared_frobenius,
    superposition_flags_above_bound,
)
from interp_repro.superposition.model import INITS
from interp_repro.superposition.train import train_best


def _log_densities(first: float, last: float, count: int) -> tuple[float, ...]:
    return tuple(float(v) for v in np.geomspace(first, last, count))


@dataclass(frozen=True)
class Recipe:
    """How a config's models train (:func:`~interp_repro.superposition.train.train_best`): AdamW
    steps, the batch size and the seed."""

    steps: int = 6000
    batch: int = 1024
    seed: int = 0

    def __post_init__(self):
        check_field_types(self)
        check_positive_int("steps", self.steps)
        check_positive_int("batch", self.batch)
        check_seed("seed", self.seed)


@dataclass(frozen=True)
class DensitySweep(Recipe):
    """n features into m dims with importances I_i = ``importance_decay``^i: one model per density,
    the best of ``seeds``, trained at learning rate ``lr``."""

    n_features: int = 5
    n_hidden: int = 2
    importance_decay: float = 0.9
    densities: tuple[float, ...] = (1.0,)
    seeds: int = 1
    lr: float = 1e-3

    def __post_init__(self):
        super().__post_init__()
        check_positive_int("n_features", self.n_features)
        check_positive_int("n_hidden", self.n_hidden)
        check_positive_int("seeds", self.seeds)
        check_positive("importance_decay", self.importance_decay)
        check_fraction("densities", self.densities)
        check_positive("lr", self.lr)


def _train_sweep(kind: str, cfg: DensitySweep, desc: str) -> Arrays:
    """Train the ``kind`` model of :class:`DensitySweep` ``cfg``; also returns ``density`` and
    ``importance``."""
    importance = decaying_importance(cfg.importance_decay, cfg.n_features)
    res = train_best(kind, cfg.n_features, cfg.n_hidden, importance, np.array(cfg.densities),
                     seeds=cfg.seeds, steps=cfg.steps, batch=cfg.batch, seed=cfg.seed, lr=cfg.lr,
                     desc=desc)
    return {**res, "density": np.array(cfg.densities), "importance": importance}


# --- (a) five features in two dimensions --------------------------------------------------------

@dataclass(frozen=True)
class IntroConfig(DensitySweep, Preset):
    """5 features into 2 dims, I_i = 0.9^i, density from 1 down to 0.05 (§1, Figure 1)."""

    densities: tuple[float, ...] = _log_densities(1.0, 0.05, 10)
    seeds: int = 6

    PRESETS: ClassVar = {
        "ci": dict(densities=_log_densities(1.0, 0.05, 6), seeds=4, steps=3000),
        "book": dict(),
        "paper": dict(densities=_log_densities(1.0, 0.05, 20), seeds=16, steps=10_000),
    }


def run_intro(cfg: IntroConfig) -> Arrays:
    """Train the ReLU-output model at every density, keeping the best of ``cfg.seeds``."""
    return cached("superposition/intro", cfg, lambda: _train_sweep("relu", cfg, "5->2 across sparsity"))


@declares("superposition.five_two_dense_count", "superposition.five_two_dense_top2",
           "superposition.five_two_pentagon_error", "superposition.five_two_sparse_bias_max",
           "superposition.five_two_sparse_count")
def intro_claims(res: Arrays) -> dict[str, Any]:
    """Dense: how many features and whether they are the top 2; sparse: pentagon and bias sign."""
    dense, sparse = res["W"][0], res["W"][-1]
    return {
        "superposition.five_two_dense_count": int(represented(dense).sum()),
        "superposition.five_two_dense_top2": bool(keeps_top(dense, 2)),
        "superposition.five_two_sparse_count": int(represented(sparse).sum()),
        "superposition.five_two_pentagon_error": pentagon_error_degrees(sparse),
        "superposition.five_two_sparse_bias_max": float(res["b"][-1].max()),
    }


@dataclass(frozen=True)
class PentagonConfig(Recipe, Preset):
    """Non-uniform superposition: the sparse 5 -> 2 pentagon with feature 0's importance multiplied
    by each of ``factors``, the other four at importance 1 (§"Non-uniform superposition")."""

    n_features: int = 5
    n_hidden: int = 2
    density: float = 0.05
    factors: tuple[float, ...] = (1.0, 1.5, 2.0, 3.0, 5.0)
    seeds: int = 6

    PRESETS: ClassVar = {
        "ci": dict(seeds=4, steps=3000),
        "book": dict(),
        "paper": dict(factors=(1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0), seeds=16, steps=10_000),
    }

    def __post_init__(self):
        super().__post_init__()
        check_positive_int("n_features", self.n_features)
        check_positive_int("seeds", self.seeds)
        check_fraction("density", self.density)
        for factor in check_tuple("factors", self.factors):
            check_positive("factors", factor)
        if self.n_hidden != 2:
            raise ValueError(f"the pentagon lives in 2 hidden dimensions, got n_hidden={self.n_hidden}")


def run_pentagon(cfg: PentagonConfig) -> Arrays:
    """Best-of-seeds ReLU-output models, one per importance factor of feature 0."""
    def compute() -> Arrays:
        importance = np.ones((len(cfg.factors), cfg.n_features))
        importance[:, 0] = cfg.factors
        res = train_best("relu", cfg.n_features, cfg.n_hidden, importance,
                         np.full(len(cfg.factors), cfg.density), seeds=cfg.seeds, steps=cfg.steps,
                         batch=cfg.batch, seed=cfg.seed, desc="perturbed pentagon")
        gaps = np.array([neighbour_gap_degrees(W, 0) for W in res["W"]])
        return {**res, "factor": np.array(cfg.factors), "gap": gaps}
    # gap is NaN for a model that represents no feature besides feature 0 (neighbour_gap_degrees):
    # no neighbours, no gap; pentagon_claims reads gap[-1], which the claim then refuses as not finite
    return cached("superposition/pentagon", cfg, compute, nonfinite=("gap",))


@declares("superposition.perturbed_pentagon_gap")
def pentagon_claims(res: Arrays) -> dict[str, Any]:
    """How far (degrees) the neighbours of the most important feature have moved away from it,
    beyond the regular pentagon's 72, at the largest importance factor."""
    return {"superposition.perturbed_pentagon_gap": float(res["gap"][-1] - REGULAR_GAP)}


# --- (b) linear vs ReLU output models -----------------------------------------------------------

SPARSITIES = (0.0, 0.7, 0.9, 0.97, 0.99, 0.997, 0.999)


@dataclass(frozen=True)
class DemoConfig(Recipe, Preset):
    """Linear vs ReLU-output models across sparsity (§2, Figures 2-3).

    Small: n = 20, m = 5, I_i = 0.7^i; large: n = 80, m = 20, I_i = 0.9^i.
    """

    sizes: tuple[tuple[int, int, float], ...] = ((20, 5, 0.7), (80, 20, 0.9))
    sparsities: tuple[float, ...] = SPARSITIES
    seeds: int = 1

    PRESETS: ClassVar = {
        "ci": dict(sizes=((20, 5, 0.7),), seeds=2, steps=3000),
        "book": dict(),
        "paper": dict(seeds=5, steps=20_000),
    }

    def __post_init__(self):
        super().__post_init__()
        check_positive_int("seeds", self.seeds)
        for size in check_tuple("sizes", self.sizes):
            n, m, decay = check_tuple("sizes", size, 3)
            check_positive_int("sizes", n)
            check_positive_int("sizes", m)
            check_positive("sizes", decay)
        sparsities = [check_probability("sparsities", s) for s in check_tuple("sparsities", self.sparsities)]
        check_fraction("density 1 - sparsities", [1 - s for s in sparsities])


def run_demo(cfg: DemoConfig) -> dict[str, Arrays]:
    """Train linear and ReLU models for every size; keys like ``relu_20x5``."""
    out = {}
    for n, m, decay in cfg.sizes:
        for kind in ("linear", "relu"):
            name = f"{kind}_{n}x{m}"

            def compute(kind=kind, n=n, m=m, decay=decay, name=name) -> Arrays:
                importance = decaying_importance(decay, n)
                density = 1 - np.array(cfg.sparsities)
                res = train_best(kind, n, m, importance, density, seeds=cfg.seeds,
                                 steps=cfg.steps, batch=cfg.batch, seed=cfg.seed, desc=name)
                return {**res, "sparsity": np.array(cfg.sparsities), "importance": importance}
            out[name] = cached(f"superposition/demo/{name}", cfg, compute)
    return out


@declares("superposition.antipodal_first_share", "superposition.dense_relu_frobenius",
           "superposition.dense_relu_top_m", "superposition.linear_top_m",
           "superposition.sparse_relu_represented")
def demo_claims(res: dict[str, Arrays], n: int = 20, m: int = 5) -> dict[str, Any]:
    """Linear: exactly the top m features at every sparsity; ReLU: when dense, ||W||_F^2 ~ m and the
    features it keeps are the top m, and at the first sparsity where it represents more than m
    features, the share of shared features that form antipodal pairs."""
    lin, relu = res[f"linear_{n}x{m}"], res[f"relu_{n}x{m}"]
    beyond = [W for W in relu["W"] if represented(W).sum() > m]
    return {
        "superposition.antipodal_first_share": antipodal_share(beyond[0]) if beyond else 0.0,
        "superposition.linear_top_m": float(keeps_top(lin["W"], m).mean()),
        "superposition.dense_relu_frobenius": squared_frobenius(relu["W"][0]),
        "superposition.dense_relu_top_m": bool(keeps_top(relu["W"][0], m)),
        "superposition.sparse_relu_represented": int(represented(relu["W"][-1]).sum()),
    }


# --- (c) phase diagrams -------------------------------------------------------------------------

@dataclass(frozen=True)
class PhaseConfig(Recipe, Preset):
    """Phase diagram of the last ("extra") feature: 2 -> 1 or 3 -> 2 (§"Phase change").

    The other features have importance 1; the extra one r, from 0.1 to 10 (log); density 1 to 0.01
    (log). Each point keeps the best of ``seeds`` models (the paper trains ten and drops the worst).
    The grid size is even so that no column sits exactly on r = 1, where the two single-feature
    solutions tie and training drifts along a flat valley between them. These models are tiny, so
    we use a learning rate of 1e-2 (not 1e-3) to settle them in a few thousand steps.
    """

    n_features: int = 2
    n_hidden: int = 1
    grid: int = 20
    seeds: int = 4
    steps: int = 3000
    batch: int = 512
    lr: float = 1e-2

    PRESETS: ClassVar = {
        "ci": dict(grid=8, seeds=3, steps=2000),
        "book": dict(),
        "paper": dict(grid=40, seeds=10, steps=10_000, batch=1024),
    }

    def __post_init__(self):
        super().__post_init__()
        check_positive_int("n_features", self.n_features)
        check_positive_int("n_hidden", self.n_hidden)
        check_positive_int("grid", self.grid)
        check_positive_int("seeds", self.seeds)
        check_positive("lr", self.lr)
        if self.n_hidden >= self.n_features:
            raise ValueError(f"a phase diagram needs n_hidden < n_features, got {self.n_hidden} "
                             f">= {self.n_features}")

    @property
    def densities(self) -> np.ndarray:
        return np.geomspace(1.0, 0.01, self.grid)

    @property
    def importances(self) -> np.ndarray:
        return np.geomspace(0.1, 10.0, self.grid)


def phase_configs(scale: str, **overrides) -> tuple[PhaseConfig, PhaseConfig]:
    """The 2 -> 1 config at ``scale`` and the 3 -> 2 one at half its grid resolution."""
    two = PhaseConfig.preset(scale, **overrides)
    three = replace(two, n_features=3, n_hidden=2, grid=max(4, two.grid // 2))
    return two, three


def run_phase(cfg: PhaseConfig) -> Arrays:
    """Train every (density, r) cell; ``phase`` (grid, grid) holds the extra feature's phase."""
    def compute() -> Arrays:
        s, r = np.meshgrid(cfg.densities, cfg.importances, indexing="ij")
        importance = np.ones((s.size, cfg.n_features))
        importance[:, -1] = r.ravel()
        res = train_best("relu", cfg.n_features, cfg.n_hidden, importance, s.ravel(),
                         seeds=cfg.seeds, steps=cfg.steps, batch=cfg.batch, seed=cfg.seed,
                         lr=cfg.lr, desc=f"{cfg.n_features}->{cfg.n_hidden} phase diagram")
        shape = (cfg.grid, cfg.grid)
        return {"W": res["W"].reshape(*shape, cfg.n_hidden, cfg.n_features),
                "loss": res["loss"].reshape(shape), "phase": empirical_phase(res["W"]).reshape(shape),
                "density": cfg.densities, "importance": cfg.importances}
    return cached("superposition/phase", cfg, compute)


@declares("superposition.phase_agreement", "superposition.phase_intermediate_norm",
           "superposition.phase_superposition_above_bound")
def phase_claims(res: Arrays) -> dict[str, Any]:
    """2 -> 1: share of cells in superposition above the density bound (4/7, reached at r = 1,
    the tip of the analytic superposition wedge), agreement with the analytic phases, and the share
    of cells whose extra feature is caught half-way (a first-order transition leaves few)."""
    return {
        "superposition.phase_superposition_above_bound": Estimate.share(
            superposition_flags_above_bound(res["phase"], res["density"]), "cells"),
        "superposition.phase_agreement": Estimate.share(
            agreement_flags(res["phase"], res["density"], res["importance"], 2), "cells"),
        "superposition.phase_intermediate_norm": intermediate_norm_share(res["W"]),
    }


@declares("superposition.phase_3_2_agreement")
def phase_3_2_claims(res: Arrays) -> dict[str, Any]:
    """3 -> 2: share of grid cells whose trained phase is that of the lowest-loss candidate."""
    return {"superposition.phase_3_2_agreement": Estimate.share(
        agreement_flags(res["phase"], res["density"], res["importance"], 3), "cells")}


# --- (d) geometry and (f) learning dynamics ----------------------------------------------------

@dataclass(frozen=True)
class GeometryConfig(Recipe, Preset):
    """Uniform importance, sparsity swept so 1/(1-S) runs from 1 to ``max_inverse_density``, as
    ``sweeps`` independent sweeps (§"The geometry of superposition", Figures on dimensions per feature).

    ``book`` trains as the original notebook does: n = 200, m = 20, 10,000 steps at batch 1,024,
    and its initialisation scale (``init="notebook"`` for the notebook's ``init_instances`` = 20
    instances, see :func:`~interp_repro.superposition.model.init_std`), over 30 sparsities. ``paper``
    has the paper's n = 400, m = 30. Each sweep is a job of its own (:func:`geometry_jobs`), with its
    own seeds for the initialisation and the data, so the spread between sweeps is the seed-to-seed
    spread of every claim.
    """

    n_features: int = 200
    n_hidden: int = 20
    points: int = 30
    max_inverse_density: float = 100.0
    steps: int = 10_000
    init: str = "notebook"
    init_instances: int = 20
    """The instances the notebook trains together, which set its initialisation scale."""
    sweeps: int = 3

    PRESETS: ClassVar = {
        "ci": dict(n_features=100, n_hidden=10, points=10, max_inverse_density=20.0, steps=3000, batch=512),
        "book": dict(),
        "paper": dict(n_features=400, n_hidden=30, points=40, steps=20_000),
    }

    def __post_init__(self):
        super().__post_init__()
        check_positive_int("n_features", self.n_features)
        check_positive_int("n_hidden", self.n_hidden)
        check_positive_int("points", self.points)
        check_positive_int("sweeps", self.sweeps)
        check_positive_int("init_instances", self.init_instances)
        check_choices("init", (self.init,), INITS)
        if not check_positive("max_inverse_density", self.max_inverse_density) > 1:
            raise ValueError(f"max_inverse_density must exceed 1, got {self.max_inverse_density}")

    @property
    def densities(self) -> np.ndarray:
        return 1 / np.geomspace(1.0, self.max_inverse_density, self.points)


def run_geometry_sweep(cfg: GeometryConfig, sweep: int) -> Arrays:
    """Sweep number ``sweep``: one model per density, trained in one batched program from seed
    ``cfg.seed + 3 * sweep`` (its initialisation; the data and the final evaluation take the next two),
    so no two sweeps share a draw; returns W (P, m, n) and loss (P,)."""
    def compute() -> Arrays:
        res = train_best("relu", cfg.n_features, cfg.n_hidden, np.ones(cfg.n_features), cfg.densities,
                         seeds=1, steps=cfg.steps, batch=cfg.batch, seed=cfg.seed + 3 * sweep, init=cfg.init,
                         init_instances=cfg.init_instances, desc=f"geometry sweep {sweep + 1}")
        return {"W": res["W"], "loss": res["loss"]}
    return cached("superposition/geometry_sweep", {"config": cfg, "sweep": sweep}, compute)


def geometry_jobs(cfg: GeometryConfig) -> list[Job]:
    """One job per sweep, started before the other jobs (``Job.first``): each is among the longest."""
    return [Job(run_geometry_sweep, (cfg, i), first=True, label=f"sweep {i + 1}") for i in range(cfg.sweeps)]


def run_geometry(cfg: GeometryConfig) -> Arrays:
    """One model per density and sweep (the sweeps side by side, ``core.parallel.run_jobs``); returns
    ``density`` (P,), W (sweeps, P, m, n), loss (sweeps, P), D* (``dstar``, sweeps x P) and per-feature
    D_i (``dims``, sweeps x P x n)."""
    run_jobs(geometry_jobs(cfg), desc="geometry sweeps")
    sweeps = [run_geometry_sweep(cfg, i) for i in range(cfg.sweeps)]
    W = np.stack([s["W"] for s in sweeps])
    return {"W": W, "loss": np.stack([s["loss"] for s in sweeps]), "density": cfg.densities,
            "dstar": dimensions_per_feature(W), "dims": feature_dimensionality(W)}


def dimensionality_counts(res: Arrays, inverse_density: float) -> tuple[float, dict[float, int]]:
    """The model of the geometry sweep ``res``'s first sweep whose 1/(1-S) is nearest
    ``inverse_density``: its 1/(1-S), and how many of its features have each value of D_i
    (:func:`~.measures.feature_dimensionality` rounded to 2 decimals), in increasing order of the value."""
    k = int(np.argmin(np.abs(1 / res["density"] - inverse_density)))
    values, counts = np.unique(feature_dimensionality(res["W"][0, k]).round(2), return_counts=True)
    return float(1 / res["density"][k]), dict(zip(values.tolist(), counts.tolist(), strict=True))


@declares("superposition.dims_near_fractions", "superposition.dstar_half_plateau",
           "superposition.dstar_one_plateau", "superposition.sum_dims_over_m")
def geometry_claims(res: Arrays) -> dict[str, Any]:
    """The widths of the D* = 1 and D* = 1/2 plateaus, how much more than chance the packed
    models' D_i cluster at the named fractions (:func:`~.measures.packed_dims`), and sum_i D_i / m:
    each the mean over the independent sweeps, with its interval."""
    density, m = res["density"], res["W"].shape[-2]
    per_sweep = {
        "superposition.dstar_one_plateau": [plateau_ratio(density, d, 1.0) for d in res["dstar"]],
        "superposition.dstar_half_plateau": [plateau_ratio(density, d, 0.5) for d in res["dstar"]],
        "superposition.dims_near_fractions": [clustering_over_chance(packed_dims(density, d, dims))
                                              for d, dims in zip(res["dstar"], res["dims"], strict=True)],
        "superposition.sum_dims_over_m": [median_dims_per_hidden(density, dims, m) for dims in res["dims"]],
    }
    return {cid: Estimate.mean(values, "sweeps") for cid, values in per_sweep.items()}


@dataclass(frozen=True)
class DynamicsConfig(Recipe, Preset):
    """One sparse uniform-importance model with snapshots (§"Learning dynamics")."""

    n_features: int = 100
    n_hidden: int = 10
    density: float = 0.1
    snapshot_every: int = 100
    """Steps between snapshots of W and of the batch loss (the last step is always kept)."""
    steps: int = 20_000
    seed: int = 3

    PRESETS: ClassVar = {
        "ci": dict(n_features=50, n_hidden=5, steps=4000, snapshot_every=50),
        "book": dict(),
        "paper": dict(steps=50_000, snapshot_every=200),
    }

    def __post_init__(self):
        super().__post_init__()
        check_positive_int("n_features", self.n_features)
        check_positive_int("n_hidden", self.n_hidden)
        check_positive_int("snapshot_every", self.snapshot_every)
        check_fraction("density", self.density)


def run_dynamics(cfg: DynamicsConfig) -> Arrays:
    """Snapshots of W and the loss along training, with D_i at every snapshot (``dims``)."""
    def compute() -> Arrays:
        res = train_best("relu", cfg.n_features, cfg.n_hidden, np.ones(cfg.n_features),
                         np.array([cfg.density]), seeds=1, steps=cfg.steps, batch=cfg.batch,
                         seed=cfg.seed, snapshot_every=cfg.snapshot_every, desc="dynamics")
        snaps = res["snapshot_W"][:, 0]
        return {"step": res["snapshot_steps"], "loss": res["snapshot_loss"][:, 0],
                "W": snaps, "dims": feature_dimensionality(snaps)}
    return cached("superposition/dynamics", cfg, compute)


@declares("superposition.dynamics_level_jumps")
def dynamics_claims(res: Arrays) -> dict[str, Any]:
    """The share of the features learned by the end of training whose D_i jumps between two settled
    levels on the way (§"Learning dynamics": D_i moves between discrete "energy levels";
    :func:`~.measures.jump_flags`). The features of one model are not independent: the model is the
    unit, so one model gives too few units for an interval."""
    flags = jump_flags(res["dims"])
    return {"superposition.dynamics_level_jumps": Estimate.share([flags], "learned features", of="models")}


# --- (e) correlated and anticorrelated features -------------------------------------------------

@dataclass(frozen=True)
class CorrelationConfig(Recipe, Preset):
    """Pairs of correlated or anticorrelated features, uniform importance (§"Non-uniform")."""

    n_pairs: int = 2
    """Features 2j and 2j + 1 form pair j: ``2 * n_pairs`` features in all."""
    n_hidden: int = 2
    density: float = 0.05
    """Each feature's probability of being present; at most 1/2, so that an anticorrelated pair can
    hold one present feature with probability 2 * density."""
    seeds: int = 8

    PRESETS: ClassVar = {
        "ci": dict(seeds=4, steps=3000),
        "book": dict(),
        "paper": dict(seeds=32, steps=20_000),
    }

    def __post_init__(self):
        super().__post_init__()
        check_positive_int("n_pairs", self.n_pairs)
        check_positive_int("n_hidden", self.n_hidden)
        check_positive_int("seeds", self.seeds)
        check_fraction("density", self.density)
        if self.density > 0.5:
            raise ValueError(f"anticorrelated pairs need density <= 0.5, got {self.density}")


def run_correlation(cfg: CorrelationConfig) -> dict[str, Arrays]:
    """Best-of-seeds models for ``correlated`` and ``anticorrelated`` pairs."""
    n = 2 * cfg.n_pairs
    out = {}
    for corr in ("correlated", "anticorrelated"):
        def compute(corr=corr) -> Arrays:
            return train_best("relu", n, cfg.n_hidden, np.ones(n), np.array([cfg.density]),
                              seeds=cfg.seeds, steps=cfg.steps, batch=cfg.batch, seed=cfg.seed,
                              correlation=corr, desc=f"{corr} pairs")
        out[corr] = cached(f"superposition/correlation/{corr}", cfg, compute)
    return out


@declares("superposition.anticorrelated_pair_cos", "superposition.correlated_pair_abs_cos")
def correlation_claims(res: dict[str, Arrays]) -> dict[str, Any]:
    """Mean cosine within each pair: ~0 (orthogonal) if correlated, ~-1 (antipodal) if anti."""
    return {
        "superposition.correlated_pair_abs_cos": abs(mean_pair_cosine(res["correlated"]["W"][0])),
        "superposition.anticorrelated_pair_cos": mean_pair_cosine(res["anticorrelated"]["W"][0]),
    }


# --- (g) privileged basis -----------------------------------------------------------------------

@dataclass(frozen=True)
class PrivilegedConfig(DensitySweep, Preset):
    """h = ReLU(W x), x' = ReLU(W^T h + b); n = 10, m = 5, I_i = 0.75^i (§"Privileged basis").

    ``ci`` trains 3,000 steps, with a learning rate of 1e-2 instead of the paper's 1e-3 so that
    the dense model still settles in that budget.
    """

    n_features: int = 10
    n_hidden: int = 5
    importance_decay: float = 0.75
    densities: tuple[float, ...] = (1.0, 0.3, 0.1, 0.03, 0.01)
    seeds: int = 6
    steps: int = 10_000

    PRESETS: ClassVar = {
        "ci": dict(densities=(1.0, 0.1, 0.01), seeds=6, steps=3000, lr=1e-2),
        "book": dict(),
        "paper": dict(seeds=200),
    }


def run_privileged(cfg: PrivilegedConfig) -> Arrays:
    """Best-of-seeds hidden-ReLU models at each density."""
    return cached("superposition/privileged", cfg,
                  lambda: _train_sweep("hidden_relu", cfg, "privileged basis"))


def top_share_table(res: Arrays) -> pd.DataFrame:
    """The top-feature share of every hidden neuron (:func:`~.measures.neuron_top_share`, NaN for a
    dead one) of the privileged-basis models: one row per density 1-S, one column per neuron."""
    shares = neuron_top_share(res["W"])
    return pd.DataFrame(shares, index=pd.Index(res["density"], name="1-S"),
                        columns=pd.RangeIndex(shares.shape[-1], name="neuron"))


@declares("superposition.privileged_dense_top_share", "superposition.privileged_sparse_top_share")
def privileged_claims(res: Arrays) -> dict[str, Any]:
    """Mean top-feature share of live neurons, dense vs sparsest: monosemantic -> polysemantic."""
    return {
        "superposition.privileged_dense_top_share": live_top_share(res["W"][0]),
        "superposition.privileged_sparse_top_share": live_top_share(res["W"][-1]),
    }


# --- (h) computation in superposition: absolute value -------------------------------------------

@dataclass(frozen=True)
class AbsConfig(Recipe, Preset):
    """y = |x|, x_i uniform on [-1, 1] when present (§"Computation in superposition").

    ``dense``: n = 3 features on m = 6 neurons at density 1. ``sweep``: n = 100, m = 40,
    I_i = 0.8^i over ``densities``.
    """

    dense_size: tuple[int, int] = (3, 6)
    sweep_size: tuple[int, int] = (100, 40)
    importance_decay: float = 0.8
    densities: tuple[float, ...] = (1.0, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001)
    seeds: int = 8

    PRESETS: ClassVar = {
        "ci": dict(seeds=4, steps=3000, densities=(1.0, 0.1, 0.01)),
        "book": dict(),
        "paper": dict(seeds=16, steps=20_000),
    }

    def __post_init__(self):
        super().__post_init__()
        check_positive_int("seeds", self.seeds)
        for name in ("dense_size", "sweep_size"):
            for size in check_tuple(name, getattr(self, name), 2):
                check_positive_int(name, size)
        check_positive("importance_decay", self.importance_decay)
        check_fraction("densities", self.densities)


def run_abs(cfg: AbsConfig) -> dict[str, Arrays]:
    """``dense``: best-of-seeds n=3, m=6 model; ``sweep``: one model per density."""
    def dense() -> Arrays:
        n, m = cfg.dense_size
        return train_best("abs", n, m, np.ones(n), np.array([1.0]), seeds=cfg.seeds,
                          steps=cfg.steps, batch=cfg.batch, seed=cfg.seed, desc="abs, dense")

    def sweep() -> Arrays:
        n, m = cfg.sweep_size
        res = train_best("abs", n, m, decaying_importance(cfg.importance_decay, n),
                         np.array(cfg.densities), seeds=1, steps=cfg.steps, batch=cfg.batch,
                         seed=cfg.seed, desc="abs, sparsity sweep")
        return {**res, "density": np.array(cfg.densities)}
    return {"dense": cached("superposition/abs/dense", cfg, dense),
            "sweep": cached("superposition/abs/sweep", cfg, sweep)}


@declares("superposition.abs_dense_top_share", "superposition.abs_sparse_top_share",
           "superposition.abs_two_neurons_per_feature")
def abs_claims(res: dict[str, Arrays]) -> dict[str, Any]:
    """Dense n = 3: share of features computed by exactly two single-feature neurons of opposite
    sign. Sweep: the mean top-feature share of live neurons, densest and sparsest (one feature per
    neuron when dense, polysemantic when sparse)."""
    sweep = res["sweep"]["W"]
    return {"superposition.abs_two_neurons_per_feature": abs_circuit_share(res["dense"]["W"][0]),
            "superposition.abs_dense_top_share": live_top_share(sweep[0]),
            "superposition.abs_sparse_top_share": live_top_share(sweep[-1])}


EXPERIMENTS: dict[str, Experiment] = {
    "intro": Experiment(IntroConfig.preset, run_intro, (intro_claims,)),
    "pentagon": Experiment(PentagonConfig.preset, run_pentagon, (pentagon_claims,)),
    "demo": Experiment(DemoConfig.preset, run_demo, (demo_claims,)),
    "phase_2to1": Experiment(lambda scale: phase_configs(scale)[0], run_phase, (phase_claims,)),
    "phase_3to2": Experiment(lambda scale: phase_configs(scale)[1], run_phase, (phase_3_2_claims,)),
    # one job per sweep: as one program of three sweeps it was the longest job of the book (45 min of
    # the cold book of 2026-12-06, alone for its last 20 min or more)
    "geometry": Experiment(GeometryConfig.preset, run_geometry, (geometry_claims,), jobs=geometry_jobs),
    "dynamics": Experiment(DynamicsConfig.preset, run_dynamics, (dynamics_claims,)),
    "correlation": Experiment(CorrelationConfig.preset, run_correlation, (correlation_claims,)),
    "privileged": Experiment(PrivilegedConfig.preset, run_privileged, (privileged_claims,)),
    "abs": Experiment(AbsConfig.preset, run_abs, (abs_claims,)),
}
"""The study's experiments (``core.table``), one job each."""


def jobs(scale: str) -> list[Job]:
    """The study's independent cached computations at ``scale``, one per experiment."""
    return table_jobs(EXPERIMENTS, scale)


def run_all(scale: str) -> dict[str, Any]:
    """Run every experiment of the study at ``scale`` (cached, those not cached yet side by side
    first) and return all headline numbers."""
    return table_claims(EXPERIMENTS, scale, desc="superposition experiments")
