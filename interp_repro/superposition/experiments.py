"""The experiments of Elhage et al. (2022), one config and one cached ``run_*`` function each.

Each config has a preset per scale (``Config.preset("ci")``); any field can be overridden. Each run
function trains every instance it needs as one batched program, keeps the lowest-loss seed per
point where the paper does, caches the arrays on disk and returns them as a dict. Each ``*_claims``
function turns those arrays into the headline numbers that ``claims.toml`` checks.
"""

from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np
import torch

from interp_repro.core import cached, check_fraction, check_positive_int, select_device
from interp_repro.core.parallel import Job, run_jobs
from interp_repro.core.presets import Preset
from interp_repro.core.seeding import torch_generator
from interp_repro.superposition.metrics import (
    FRACTIONS,
    REGULAR_GAP,
    abs_circuit_share,
    antipodal_share,
    chance_fraction_share,
    dimensions_per_feature,
    feature_dimensionality,
    live_top_share,
    nearest_fraction_share,
    neighbour_gap_degrees,
    pair_cosines,
    pentagon_error_degrees,
    plateau_span,
    represented,
)
from interp_repro.superposition.model import INITS, ToyModel
from interp_repro.superposition.phase import (
    analytic_losses_2_1,
    analytic_phase,
    empirical_phase,
    intermediate_norm_share,
    superposition_density_bound,
)
from interp_repro.superposition.train import train

Arrays = dict[str, np.ndarray]


def _check_common(cfg) -> None:
    for name in ("n_features", "n_hidden", "steps", "batch", "seeds", "grid", "points", "n_pairs"):
        if hasattr(cfg, name):
            check_positive_int(name, getattr(cfg, name))
    if getattr(cfg, "seed", 0) < 0:
        raise ValueError(f"seed must be >= 0, got {cfg.seed}")


def train_best(kind: str, n: int, m: int, importance: np.ndarray, density: np.ndarray, *,
               seeds: int, steps: int, batch: int, seed: int, desc: str, lr: float = 1e-3,
               correlation: str = "none", snapshot_every: int | None = None,
               device: str = "cpu", init: str = "xavier") -> Arrays:
    """Train ``seeds`` models per point (one row of ``importance`` and ``density`` each) in one
    batched program on ``device`` and keep the lowest-loss one per point. ``init``: see
    :func:`~interp_repro.superposition.model.init_std`.

    Returns W (P, m, n), b (P, n), loss (P,), all_loss (P, seeds) and, for the abs model, W_out.
    """
    check_positive_int("n_features", n)
    check_positive_int("n_hidden", m)
    check_positive_int("seeds", seeds)
    density = np.asarray(density, dtype=np.float64)
    check_fraction("density", density)
    points = density.shape[0]
    importance = np.broadcast_to(np.asarray(importance, dtype=np.float64), (points, n))
    rep_density = torch.tensor(np.repeat(density, seeds), dtype=torch.float32)
    rep_importance = torch.tensor(np.repeat(importance, seeds, axis=0), dtype=torch.float32)
    model = ToyModel(points * seeds, n, m, kind, torch_generator(seed), init).to(select_device(device))
    res = train(model, rep_importance, rep_density, steps=steps, batch=batch, seed=seed + 1, lr=lr,
                correlation=correlation, snapshot_every=snapshot_every, desc=desc)
    all_loss = res.loss.reshape(points, seeds)
    best = np.arange(points) * seeds + all_loss.argmin(axis=1)
    out = {"W": res.W[best], "b": res.b[best], "loss": all_loss.min(axis=1), "all_loss": all_loss}
    if res.W_out is not None:
        out["W_out"] = res.W_out[best]
    if snapshot_every:
        out.update(snapshot_steps=res.snapshot_steps, snapshot_W=res.snapshot_W[:, best],
                   snapshot_loss=res.snapshot_loss[:, best])
    return out


def _log_densities(first: float, last: float, count: int) -> tuple[float, ...]:
    return tuple(float(v) for v in np.geomspace(first, last, count))


# --- (a) five features in two dimensions --------------------------------------------------------

@dataclass(frozen=True)
class IntroConfig(Preset):
    """5 features into 2 dims, I_i = 0.9^i, density from 1 down to 0.05 (§1, Figure 1)."""

    n_features: int = 5
    n_hidden: int = 2
    importance_decay: float = 0.9
    densities: tuple[float, ...] = _log_densities(1.0, 0.05, 10)
    seeds: int = 6
    steps: int = 6000
    batch: int = 1024
    seed: int = 0

    PRESETS: ClassVar = {
        "ci": dict(densities=_log_densities(1.0, 0.05, 6), seeds=4, steps=3000),
        "book": dict(),
        "paper": dict(densities=_log_densities(1.0, 0.05, 20), seeds=16, steps=10_000),
    }

    def __post_init__(self):
        _check_common(self)
        check_fraction("densities", self.densities)


def run_intro(cfg: IntroConfig) -> Arrays:
    """Train the ReLU-output model at every density, keeping the best of ``cfg.seeds``."""
    def compute() -> Arrays:
        importance = cfg.importance_decay ** np.arange(cfg.n_features)
        out = train_best("relu", cfg.n_features, cfg.n_hidden, importance, np.array(cfg.densities),
                         seeds=cfg.seeds, steps=cfg.steps, batch=cfg.batch, seed=cfg.seed,
                         desc="5->2 across sparsity")
        return {**out, "density": np.array(cfg.densities), "importance": importance}
    return cached("superposition/intro", cfg, compute)


def intro_claims(res: Arrays) -> dict[str, Any]:
    """Dense: how many features and whether they are the top 2; sparse: pentagon and bias sign."""
    dense, sparse = res["W"][0], res["W"][-1]
    rep_dense = represented(dense)
    return {
        "superposition.five_two_dense_count": int(rep_dense.sum()),
        "superposition.five_two_dense_top2": bool(rep_dense[:2].all() and rep_dense.sum() == 2),
        "superposition.five_two_sparse_count": int(represented(sparse).sum()),
        "superposition.five_two_pentagon_error": pentagon_error_degrees(sparse),
        "superposition.five_two_sparse_bias_max": float(res["b"][-1].max()),
    }


@dataclass(frozen=True)
class PentagonConfig(Preset):
    """Non-uniform superposition: the sparse 5 -> 2 pentagon with feature 0's importance multiplied
    by each of ``factors``, the other four at importance 1 (§"Non-uniform superposition")."""

    n_features: int = 5
    n_hidden: int = 2
    density: float = 0.05
    factors: tuple[float, ...] = (1.0, 1.5, 2.0, 3.0, 5.0)
    seeds: int = 6
    steps: int = 6000
    batch: int = 1024
    seed: int = 0

    PRESETS: ClassVar = {
        "ci": dict(seeds=4, steps=3000),
        "book": dict(),
        "paper": dict(factors=(1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0), seeds=16, steps=10_000),
    }

    def __post_init__(self):
        _check_common(self)
        check_fraction("density", self.density)
        if min(self.factors) <= 0:
            raise ValueError(f"importance factors must be positive, got {self.factors}")
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
    return cached("superposition/pentagon", cfg, compute)


def pentagon_claims(res: Arrays) -> dict[str, Any]:
    """How far (degrees) the neighbours of the most important feature have moved away from it,
    beyond the regular pentagon's 72, at the largest importance factor."""
    return {"superposition.perturbed_pentagon_gap": float(res["gap"][-1] - REGULAR_GAP)}


# --- (b) linear vs ReLU output models -----------------------------------------------------------

SPARSITIES = (0.0, 0.7, 0.9, 0.97, 0.99, 0.997, 0.999)


@dataclass(frozen=True)
class DemoConfig(Preset):
    """Linear vs ReLU-output models across sparsity (§2, Figures 2-3).

    Small: n = 20, m = 5, I_i = 0.7^i; large: n = 80, m = 20, I_i = 0.9^i.
    """

    sizes: tuple[tuple[int, int, float], ...] = ((20, 5, 0.7), (80, 20, 0.9))
    sparsities: tuple[float, ...] = SPARSITIES
    seeds: int = 1
    steps: int = 6000
    batch: int = 1024
    seed: int = 0

    PRESETS: ClassVar = {
        "ci": dict(sizes=((20, 5, 0.7),), seeds=2, steps=3000),
        "book": dict(),
        "paper": dict(seeds=5, steps=20_000),
    }

    def __post_init__(self):
        _check_common(self)
        check_fraction("density 1 - sparsity", [1 - s for s in self.sparsities])


def run_demo(cfg: DemoConfig) -> dict[str, Arrays]:
    """Train linear and ReLU models for every size; keys like ``relu_20x5``."""
    out = {}
    for n, m, decay in cfg.sizes:
        for kind in ("linear", "relu"):
            name = f"{kind}_{n}x{m}"

            def compute(kind=kind, n=n, m=m, decay=decay, name=name) -> Arrays:
                importance = decay ** np.arange(n)
                density = 1 - np.array(cfg.sparsities)
                res = train_best(kind, n, m, importance, density, seeds=cfg.seeds,
                                 steps=cfg.steps, batch=cfg.batch, seed=cfg.seed, desc=name)
                return {**res, "sparsity": np.array(cfg.sparsities), "importance": importance}
            out[name] = cached(f"superposition/demo/{name}", cfg, compute)
    return out


def demo_claims(res: dict[str, Arrays], n: int = 20, m: int = 5) -> dict[str, Any]:
    """Linear: exactly the top m features at every sparsity; ReLU: ||W||_F^2 ~ m when dense, and
    at the first sparsity where it represents more than m features, the share of shared features
    that form antipodal pairs."""
    lin, relu = res[f"linear_{n}x{m}"], res[f"relu_{n}x{m}"]
    top_m = np.arange(n) < m
    exact = [bool(np.array_equal(represented(W), top_m)) for W in lin["W"]]
    beyond = [W for W in relu["W"] if represented(W).sum() > m]
    return {
        "superposition.antipodal_first_share": antipodal_share(beyond[0]) if beyond else 0.0,
        "superposition.linear_top_m": float(np.mean(exact)),
        "superposition.dense_relu_frobenius": float((relu["W"][0] ** 2).sum()),
        "superposition.sparse_relu_represented": int(represented(relu["W"][-1]).sum()),
    }


# --- (c) phase diagrams -------------------------------------------------------------------------

@dataclass(frozen=True)
class PhaseConfig(Preset):
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
    seed: int = 0

    PRESETS: ClassVar = {
        "ci": dict(grid=8, seeds=3, steps=2000),
        "book": dict(),
        "paper": dict(grid=40, seeds=10, steps=10_000, batch=1024),
    }

    def __post_init__(self):
        _check_common(self)
        check_positive_int("grid", self.grid)
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


def phase_claims(res: Arrays) -> dict[str, Any]:
    """2 -> 1: share of cells in superposition above the density bound (4/7, reached at r = 1,
    the tip of the analytic superposition wedge), agreement with the analytic phases, and the share
    of cells whose extra feature is caught half-way (a first-order transition leaves few)."""
    s, r = np.meshgrid(res["density"], res["importance"], indexing="ij")
    above = res["density"] > superposition_density_bound(1.0)
    analytic = analytic_phase(2)(s, r)
    return {
        "superposition.phase_superposition_above_bound": float((res["phase"][above] == 1).mean()),
        "superposition.phase_agreement": float((res["phase"] == analytic).mean()),
        "superposition.phase_intermediate_norm": intermediate_norm_share(res["W"]),
    }


def phase_3_2_claims(res: Arrays) -> dict[str, Any]:
    """3 -> 2: share of grid cells whose trained phase is that of the lowest-loss candidate."""
    s, r = np.meshgrid(res["density"], res["importance"], indexing="ij")
    return {"superposition.phase_3_2_agreement": float((res["phase"] == analytic_phase(3)(s, r)).mean())}


def superposition_above_bound(res: Arrays) -> list[dict[str, float]]:
    """The 2 -> 1 cells above the density bound that trained into superposition, each with its
    trained loss beside the lowest of the three analytic candidate losses."""
    rows = []
    bound = superposition_density_bound(1.0)
    for i, j in np.argwhere((res["phase"] == 1) & (res["density"][:, None] > bound)):
        s, r = res["density"][i], res["importance"][j]
        rows.append({"density": float(s), "r": float(r), "trained loss": float(res["loss"][i, j]),
                     "best analytic loss": float(analytic_losses_2_1(s, r).min())})
    return rows


# --- (d) geometry and (f) learning dynamics ----------------------------------------------------

@dataclass(frozen=True)
class GeometryConfig(Preset):
    """Uniform importance, sparsity swept so 1/(1-S) runs from 1 to ``max_inverse_density``
    (§"The geometry of superposition", Figures on dimensions per feature).

    ``book`` trains as the original notebook does: n = 200, m = 20, 10,000 steps at batch 1,024,
    and its initialisation scale (``init="notebook"``, see
    :func:`~interp_repro.superposition.model.init_std`), over 30 sparsities. ``paper`` has the
    paper's n = 400, m = 30.
    """

    n_features: int = 200
    n_hidden: int = 20
    points: int = 30
    max_inverse_density: float = 100.0
    steps: int = 10_000
    batch: int = 1024
    init: str = "notebook"
    seed: int = 0

    PRESETS: ClassVar = {
        "ci": dict(n_features=100, n_hidden=10, points=10, steps=3000, batch=512),
        "book": dict(),
        "paper": dict(n_features=400, n_hidden=30, points=40, steps=20_000),
    }

    def __post_init__(self):
        _check_common(self)
        check_positive_int("points", self.points)
        if self.init not in INITS:
            raise ValueError(f"unknown init {self.init!r}: choose one of {INITS}")
        if not self.max_inverse_density > 1:
            raise ValueError(f"max_inverse_density must exceed 1, got {self.max_inverse_density}")

    @property
    def densities(self) -> np.ndarray:
        return 1 / np.geomspace(1.0, self.max_inverse_density, self.points)


def run_geometry(cfg: GeometryConfig) -> Arrays:
    """One model per density; returns W, D* (``dstar``) and per-feature D_i (``dims``)."""
    def compute() -> Arrays:
        res = train_best("relu", cfg.n_features, cfg.n_hidden, np.ones(cfg.n_features),
                         cfg.densities, seeds=1, steps=cfg.steps, batch=cfg.batch, seed=cfg.seed,
                         init=cfg.init, desc="geometry sweep")
        return {"W": res["W"], "loss": res["loss"], "density": cfg.densities,
                "dstar": dimensions_per_feature(res["W"]), "dims": feature_dimensionality(res["W"])}
    return cached("superposition/geometry", cfg, compute)


PLATEAU_TOL = 0.05
"""D* counts as on a plateau when within this of its level (ours)."""


def _plateau_ratio(inv: np.ndarray, dstar: np.ndarray, level: float) -> float:
    lo, hi = plateau_span(inv, dstar, level, PLATEAU_TOL)
    return 0.0 if np.isnan(lo) else float(hi / lo)


def packed_dims(res: Arrays) -> np.ndarray:
    """The D_i of every feature of the sweep's packed models: features sparse enough to share
    (1/(1-S) >= 2) and D* >= 3/8, the smallest named fraction, so that every fraction is reachable."""
    packed = (1 / res["density"] >= 2) & (res["dstar"] >= FRACTIONS["3/8"])
    return res["dims"][packed].ravel()


def geometry_claims(res: Arrays) -> dict[str, Any]:
    """The widths of the D* = 1 and D* = 1/2 plateaus, how much more than chance the packed
    models' D_i cluster at the named fractions (:func:`packed_dims`), and sum_i D_i / m."""
    inv = 1 / res["density"]
    m = res["W"].shape[-2]
    dims = packed_dims(res)
    return {
        "superposition.dstar_one_plateau": _plateau_ratio(inv, res["dstar"], 1.0),
        "superposition.dstar_half_plateau": _plateau_ratio(inv, res["dstar"], 0.5),
        "superposition.dims_near_fractions": (nearest_fraction_share(dims) / chance_fraction_share()
                                              if dims.size else 0.0),
        "superposition.sum_dims_over_m": float(np.median(res["dims"][inv >= 2].sum(-1) / m)),
    }


@dataclass(frozen=True)
class DynamicsConfig(Preset):
    """One sparse uniform-importance model with snapshots (§"Learning dynamics")."""

    n_features: int = 100
    n_hidden: int = 10
    density: float = 0.1
    steps: int = 20_000
    snapshot_every: int = 100
    batch: int = 1024
    seed: int = 3

    PRESETS: ClassVar = {
        "ci": dict(n_features=50, n_hidden=5, steps=4000, snapshot_every=50),
        "book": dict(),
        "paper": dict(steps=50_000, snapshot_every=200),
    }

    def __post_init__(self):
        _check_common(self)
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


# --- (e) correlated and anticorrelated features -------------------------------------------------

@dataclass(frozen=True)
class CorrelationConfig(Preset):
    """Pairs of correlated or anticorrelated features, uniform importance (§"Non-uniform")."""

    n_pairs: int = 2
    n_hidden: int = 2
    density: float = 0.05
    seeds: int = 8
    steps: int = 6000
    batch: int = 1024
    seed: int = 0

    PRESETS: ClassVar = {
        "ci": dict(seeds=4, steps=3000),
        "book": dict(),
        "paper": dict(seeds=32, steps=20_000),
    }

    def __post_init__(self):
        _check_common(self)
        check_positive_int("n_pairs", self.n_pairs)
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


def correlation_claims(res: dict[str, Arrays]) -> dict[str, Any]:
    """Mean cosine within each pair: ~0 (orthogonal) if correlated, ~-1 (antipodal) if anti."""
    def within(W):
        pairs = [(2 * j, 2 * j + 1) for j in range(W.shape[-1] // 2)]
        return float(pair_cosines(W[0], pairs).mean())
    return {
        "superposition.correlated_pair_abs_cos": abs(within(res["correlated"]["W"])),
        "superposition.anticorrelated_pair_cos": within(res["anticorrelated"]["W"]),
    }


# --- (g) privileged basis -----------------------------------------------------------------------

@dataclass(frozen=True)
class PrivilegedConfig(Preset):
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
    batch: int = 1024
    lr: float = 1e-3
    seed: int = 0

    PRESETS: ClassVar = {
        "ci": dict(densities=(1.0, 0.1, 0.01), seeds=6, steps=3000, lr=1e-2),
        "book": dict(),
        "paper": dict(seeds=200),
    }

    def __post_init__(self):
        _check_common(self)
        check_fraction("densities", self.densities)


def run_privileged(cfg: PrivilegedConfig) -> Arrays:
    """Best-of-seeds hidden-ReLU models at each density."""
    def compute() -> Arrays:
        importance = cfg.importance_decay ** np.arange(cfg.n_features)
        res = train_best("hidden_relu", cfg.n_features, cfg.n_hidden, importance,
                         np.array(cfg.densities), seeds=cfg.seeds, steps=cfg.steps,
                         batch=cfg.batch, seed=cfg.seed, lr=cfg.lr, desc="privileged basis")
        return {**res, "density": np.array(cfg.densities)}
    return cached("superposition/privileged", cfg, compute)


def privileged_claims(res: Arrays) -> dict[str, Any]:
    """Mean top-feature share of live neurons, dense vs sparsest: monosemantic -> polysemantic."""
    return {
        "superposition.privileged_dense_top_share": live_top_share(res["W"][0]),
        "superposition.privileged_sparse_top_share": live_top_share(res["W"][-1]),
    }


# --- (h) computation in superposition: absolute value -------------------------------------------

@dataclass(frozen=True)
class AbsConfig(Preset):
    """y = |x|, x_i uniform on [-1, 1] when present (§"Computation in superposition").

    ``dense``: n = 3 features on m = 6 neurons at density 1. ``sweep``: n = 100, m = 40,
    I_i = 0.8^i over ``densities``.
    """

    dense_size: tuple[int, int] = (3, 6)
    sweep_size: tuple[int, int] = (100, 40)
    importance_decay: float = 0.8
    densities: tuple[float, ...] = (1.0, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001)
    seeds: int = 8
    steps: int = 6000
    batch: int = 1024
    seed: int = 0

    PRESETS: ClassVar = {
        "ci": dict(seeds=4, steps=3000, densities=(1.0, 0.1, 0.01)),
        "book": dict(),
        "paper": dict(seeds=16, steps=20_000),
    }

    def __post_init__(self):
        _check_common(self)
        check_fraction("densities", self.densities)


def run_abs(cfg: AbsConfig) -> dict[str, Arrays]:
    """``dense``: best-of-seeds n=3, m=6 model; ``sweep``: one model per density."""
    def dense() -> Arrays:
        n, m = cfg.dense_size
        return train_best("abs", n, m, np.ones(n), np.array([1.0]), seeds=cfg.seeds,
                          steps=cfg.steps, batch=cfg.batch, seed=cfg.seed, desc="abs, dense")

    def sweep() -> Arrays:
        n, m = cfg.sweep_size
        res = train_best("abs", n, m, cfg.importance_decay ** np.arange(n),
                         np.array(cfg.densities), seeds=1, steps=cfg.steps, batch=cfg.batch,
                         seed=cfg.seed, desc="abs, sparsity sweep")
        return {**res, "density": np.array(cfg.densities)}
    return {"dense": cached("superposition/abs/dense", cfg, dense),
            "sweep": cached("superposition/abs/sweep", cfg, sweep)}


def abs_claims(res: dict[str, Arrays]) -> dict[str, Any]:
    """Dense n = 3: share of features computed by exactly two single-feature neurons of opposite
    sign. Sweep: the mean top-feature share of live neurons, densest and sparsest (one feature per
    neuron when dense, polysemantic when sparse)."""
    sweep = res["sweep"]["W"]
    return {"superposition.abs_two_neurons_per_feature": abs_circuit_share(res["dense"]["W"][0]),
            "superposition.abs_dense_top_share": live_top_share(sweep[0]),
            "superposition.abs_sparse_top_share": live_top_share(sweep[-1])}


def _configs(scale: str) -> dict[str, Any]:
    """Every experiment's config at ``scale``, by experiment name."""
    two, three = phase_configs(scale)
    return {"intro": IntroConfig.preset(scale), "pentagon": PentagonConfig.preset(scale),
            "demo": DemoConfig.preset(scale), "phase_2to1": two,
            "phase_3to2": three, "geometry": GeometryConfig.preset(scale),
            "dynamics": DynamicsConfig.preset(scale), "correlation": CorrelationConfig.preset(scale),
            "privileged": PrivilegedConfig.preset(scale), "abs": AbsConfig.preset(scale)}


_RUNS = {"intro": run_intro, "pentagon": run_pentagon, "demo": run_demo, "phase_2to1": run_phase,
         "phase_3to2": run_phase, "geometry": run_geometry, "dynamics": run_dynamics,
         "correlation": run_correlation, "privileged": run_privileged, "abs": run_abs}


def jobs(scale: str) -> list[Job]:
    """The study's independent cached computations at ``scale``, one per experiment."""
    return [Job(_RUNS[name], (cfg,)) for name, cfg in _configs(scale).items()]


def run_all(scale: str) -> dict[str, Any]:
    """Run every experiment of the study at ``scale`` (cached) and return all headline numbers.

    The experiments are independent, so those not cached yet run side by side first
    (``core.parallel.run_jobs``)."""
    run_jobs(jobs(scale), desc="superposition experiments")
    cfg = _configs(scale)
    claims: dict[str, Any] = {}
    claims |= intro_claims(run_intro(cfg["intro"]))
    claims |= pentagon_claims(run_pentagon(cfg["pentagon"]))
    claims |= demo_claims(run_demo(cfg["demo"]))
    claims |= phase_claims(run_phase(cfg["phase_2to1"]))
    claims |= phase_3_2_claims(run_phase(cfg["phase_3to2"]))
    claims |= geometry_claims(run_geometry(cfg["geometry"]))
    claims |= correlation_claims(run_correlation(cfg["correlation"]))
    claims |= privileged_claims(run_privileged(cfg["privileged"]))
    claims |= abs_claims(run_abs(cfg["abs"]))
    return claims
