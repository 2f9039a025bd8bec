"""The experiments of the abstraction study, one config and one ``run_*`` function each.

Each config has a preset per scale (``Config.preset("ci")``); any field can be overridden, which is
how the chapters let a reader change nu_x, nu_y, kappa and depth. Simulations are cached on disk;
the theory is exact and instant, so it is recomputed. Each ``*_claims`` function turns the arrays
into the headline numbers that ``claims.toml`` checks.
"""

import math
from dataclasses import asdict, dataclass, replace
from functools import partial
from itertools import product
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy.special import erf

from interp_repro.abstraction.data import TwoFactorData, check_nu, two_factor_data
from interp_repro.abstraction.measures import (
    abstraction_score,
    alpha_trajectory,
    attenuation_check,
    attenuation_excess,
    attenuation_violations,
    concept_scores,
    deep_terminal,
    default_times,
    depth_profile_deviation,
    erf_kernel,
    gelu,
    gelu_kernel,
    largest_gap,
    layer_profile,
    leaky_relu,
    leaky_relu_kernel,
    max_alpha,
    monte_carlo_kernel,
    noiseless_cells,
    nu_abstraction,
    perfectly_abstract,
    random_two_factor_kernels,
    relu,
    relu_kernel,
    same_direction,
    terminal_abstraction,
    theory_for,
    up_fraction,
)
from interp_repro.abstraction.model import ACTIVATIONS, LEAKY_SLOPE, block_hidden, block_representations
from interp_repro.abstraction.train import train_deep_linear, train_gelu_net, train_linear, train_nonlinear
from interp_repro.core import (
    Arrays,
    cached,
    check_choices,
    check_nonnegative,
    check_nonnegative_int,
    check_positive,
    check_positive_int,
    check_tuple,
    progress,
)
from interp_repro.core.parallel import Job, run_jobs
from interp_repro.core.presets import Preset


def _stored(kind: str, name: str) -> str:
    """The key under which a cache entry (a flat ``.npz`` archive) holds the ``kind`` array of ``name``,
    e.g. ``pre__erf``: only this module reads and writes these keys."""
    return f"{kind}__{name}"


def _check_training(cfg) -> None:
    """The fields of every config that trains a network by gradient descent."""
    check_positive("kappa", cfg.kappa)
    check_positive("lr", cfg.lr)
    check_positive_int("width", cfg.width)
    check_positive_int("steps", cfg.steps)


def _check_data(cfg) -> None:
    """The fields of every config that draws two-factor data: its sizes and the seed."""
    check_positive_int("n_per_class", cfg.n_per_class)
    check_positive_int("d_in", cfg.d_in)
    check_positive_int("d_out", cfg.d_out)
    check_nonnegative_int("seed", cfg.seed)


def _data(cfg, noise_x: float = 0.0) -> TwoFactorData:
    return two_factor_data(cfg.nu_x, cfg.nu_y, n_per_class=cfg.n_per_class, d_in=cfg.d_in,
                           d_out=cfg.d_out, seed=cfg.seed, noise_x=noise_x)


@dataclass(frozen=True)
class TwoFactorSetting:
    """Fields shared by the simulated experiments: the data (nu_x, nu_y, samples per class, input
    and output dimensions), the ridge penalty lam and the seed."""

    nu_x: float = 0.5
    nu_y: float = 0.1
    lam: float = 1.0
    n_per_class: int = 2
    d_in: int = 8
    d_out: int = 6
    seed: int = 0

    def __post_init__(self):
        check_nu("nu_x", self.nu_x)
        check_nu("nu_y", self.nu_y)
        check_positive("lam", self.lam)
        _check_data(self)


# --- two-layer linear network: theory against simulation ---------------------------------------

@dataclass(frozen=True)
class LinearConfig(TwoFactorSetting, Preset):
    """Two-layer linear network Z = W X with a ridge readout kept at its optimum, and with a readout
    trained jointly, on noise-free two-factor data (2 samples per class)."""

    kappa: float = 1.0
    width: int = 512
    lr: float = 0.2
    steps: int = 8000
    joint_lr: float = 0.02
    joint_steps: int = 5000

    PRESETS: ClassVar = {"ci": dict(width=256), "book": dict(), "paper": dict(width=2048, steps=40_000)}

    def __post_init__(self):
        super().__post_init__()
        _check_training(self)
        check_positive("joint_lr", self.joint_lr)
        check_positive_int("joint_steps", self.joint_steps)


def run_linear(cfg: LinearConfig) -> Arrays:
    """Simulate both readouts and evaluate the exact theory at the recorded times.

    The theory starts from the simulation's actual initial kernel (finite width), so the two can be
    compared step for step. ``alpha_inf``: the terminal law; ``alpha_x``, ``alpha_y``: the abstraction
    of the input and of the target.
    """
    def compute() -> Arrays:
        data = _data(cfg)
        ridge = train_linear(data, cfg.width, cfg.kappa, cfg.lr, cfg.steps, cfg.lam, seed=cfg.seed + 1)
        joint = train_linear(data, cfg.width, cfg.kappa, cfg.joint_lr, cfg.joint_steps, cfg.lam,
                             seed=cfg.seed + 1, readout="joint")
        return {"t": ridge.t, "alpha": ridge.alpha, "theory": theory_for(data, cfg.kappa, cfg.lam, ridge.t,
                                                                      init_Q=ridge.Q0),
                "t_joint": joint.t, "alpha_joint": joint.alpha,
                "theory_joint": theory_for(data, cfg.kappa, cfg.lam, joint.t, init_Q=joint.Q0),
                "alpha_inf": np.array(terminal_abstraction(cfg.nu_x, cfg.nu_y)),
                "alpha_x": np.array(nu_abstraction(cfg.nu_x)), "alpha_y": np.array(nu_abstraction(cfg.nu_y))}
    return cached("abstraction/linear", cfg, compute)


def linear_claims(res: Arrays) -> dict[str, Any]:
    """Theory against simulation over the whole run, and the end of the run against the terminal law."""
    return {"abstraction.theory_sim_max_gap": largest_gap(res["alpha"], res["theory"]),
            "abstraction.sim_terminal_gap": largest_gap(res["alpha"][-1], res["alpha_inf"])}


RICH_KAPPA = 0.01
"""The small initialisation scale at which a trained network shows the rich regime (ours)."""


def rich_config(scale: str) -> LinearConfig:
    """The linear network of :class:`LinearConfig` from a small initialisation (kappa =
    :data:`RICH_KAPPA`): the rich regime, trained rather than solved."""
    return LinearConfig.preset(scale, kappa=RICH_KAPPA)


def rich_claims(res: Arrays) -> dict[str, Any]:
    """The highest alpha a network trained from a small initialisation reaches (the paper: near 1,
    in a long metastable phase, before it decays to alpha_inf)."""
    return {"abstraction.rich_trained_max_alpha": float(res["alpha"].max())}


def terminal_grid(n: int = 100) -> Arrays:
    """The terminal law over an n x n grid of (nu_x, nu_y) in [0, 1]^2 (rows nu_x, columns nu_y)."""
    nu = np.linspace(0, 1, check_positive_int("n", n))
    return {"nu": nu, "alpha": terminal_abstraction(nu[:, None], nu[None, :])}


@dataclass(frozen=True)
class TerminalGridConfig(Preset):
    """Two-layer linear networks (ridge readout) trained over a grid of (nu_x, nu_y), every pair of
    ``nus``: the terminal law away from a single point, and "perfect abstraction if and only if the
    input or the target is noiseless" (Yang, Saxe, Latham 2026, terminal law). The default 5 x 5 grid
    spans all of [0, 1]; at nu_x = nu_y = 1 the law gives alpha_inf = 0."""

    nus: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
    lam: float = 1.0
    n_per_class: int = 2
    d_in: int = 8
    d_out: int = 6
    kappa: float = 1.0
    width: int = 512
    lr: float = 0.2
    steps: int = 8000
    seed: int = 0

    PRESETS: ClassVar = {"ci": dict(width=256), "book": dict(),
                         "paper": dict(nus=(0.0, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9, 1.0), width=2048,
                                       steps=40_000)}

    def __post_init__(self):
        check_nu("nus", check_tuple("nus", self.nus))
        check_positive("lam", self.lam)
        _check_data(self)
        _check_training(self)


def run_terminal_grid(cfg: TerminalGridConfig) -> Arrays:
    """``alpha``: each network's alpha at the end of training, ``law``: the terminal law, both
    (len(nus), len(nus)) with rows nu_x and columns nu_y; ``nus``."""
    def compute() -> Arrays:
        nus = np.array(cfg.nus)
        alpha = np.empty((nus.size, nus.size))
        for i, nu_x in enumerate(nus):
            for j, nu_y in enumerate(nus):
                data = two_factor_data(nu_x, nu_y, n_per_class=cfg.n_per_class, d_in=cfg.d_in,
                                       d_out=cfg.d_out, seed=cfg.seed)
                run = train_linear(data, cfg.width, cfg.kappa, cfg.lr, cfg.steps, cfg.lam, seed=cfg.seed + 1)
                alpha[i, j] = run.alpha[-1]
        return {"nus": nus, "alpha": alpha, "law": terminal_abstraction(nus[:, None], nus[None, :])}
    return cached("abstraction/terminal_grid", cfg, compute)


PERFECT_TOL = 0.05
"""A network within this of alpha = 1 counts as perfectly abstract (ours: alpha approaches 1 only
slowly, so a noiseless cell still sits up to 0.025 below it after ``steps``, the most at nu = 1
against a noiseless partner)."""


def terminal_grid_claims(res: Arrays) -> dict[str, Any]:
    """The terminal law on the noisy cells (nu_x nu_y > 0; on the noiseless ones alpha approaches 1
    without reaching it in finite time), and whether exactly the cells with a noiseless input or
    target end within :data:`PERFECT_TOL` of perfect abstraction."""
    noiseless = noiseless_cells(res["nus"])
    perfect = perfectly_abstract(res["alpha"], PERFECT_TOL)
    noisy = ~noiseless
    return {"abstraction.terminal_grid_max_gap": largest_gap(res["alpha"][noisy], res["law"][noisy]),
            "abstraction.perfect_iff_noiseless": bool(np.array_equal(perfect, noiseless))}


# --- initialisation scale ----------------------------------------------------------------------

@dataclass(frozen=True)
class KappaConfig(Preset):
    """Max alpha over training against the init scale kappa, from the exact solution (derived)."""

    nu_x: float = 0.5
    nu_y: float = 0.1
    lam: float = 1.0
    kappa_min: float = 1e-3
    kappa_max: float = 10.0
    points: int = 25
    shown: tuple[float, ...] = (1e-3, 0.1, 1.0, 10.0)

    PRESETS: ClassVar = {"ci": dict(points=9), "book": dict(), "paper": dict(points=60)}

    def __post_init__(self):
        check_nu("nu_x", self.nu_x)
        check_nu("nu_y", self.nu_y)
        check_positive("lam", self.lam)
        check_positive_int("points", self.points)
        for kappa in check_tuple("shown", self.shown):
            check_positive("shown", kappa)
        if not check_positive("kappa_min", self.kappa_min) < check_positive("kappa_max", self.kappa_max):
            raise ValueError(f"need 0 < kappa_min < kappa_max, got {self.kappa_min}, {self.kappa_max}")


def run_kappa(cfg: KappaConfig) -> Arrays:
    """max_t alpha(t) for each kappa, and alpha(t) for the ``shown`` kappas."""
    kappas = np.geomspace(cfg.kappa_min, cfg.kappa_max, cfg.points)
    t = default_times(cfg.lam, n=801)
    return {"kappa": kappas, "max_alpha": max_alpha(cfg.nu_x, cfg.nu_y, kappas, lam=cfg.lam),
            "t": t, "shown": np.array(cfg.shown),
            "trajectories": alpha_trajectory(cfg.nu_x, cfg.nu_y, np.array(cfg.shown)[:, None], t[None],
                                             lam=cfg.lam),
            "alpha_inf": np.array(terminal_abstraction(cfg.nu_x, cfg.nu_y)),
            "alpha_x": np.array(nu_abstraction(cfg.nu_x))}


def kappa_claims(res: Arrays) -> dict[str, Any]:
    """Rich (smallest kappa): the highest alpha reached; lazy (largest): how far it exceeds alpha_inf."""
    return {"abstraction.rich_max_alpha": float(res["max_alpha"][0]),
            "abstraction.lazy_excess": float(res["max_alpha"][-1] - res["alpha_inf"])}


# --- depth -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DepthConfig(TwoFactorSetting, Preset):
    """Deep linear networks with L = 1..max_depth hidden layers and a ridge readout, from a small
    balanced initialisation."""

    kappa: float = 0.3
    max_depth: int = 5
    width: int = 32
    lr: float = 0.2
    steps: int = 2500

    PRESETS: ClassVar = {"ci": dict(max_depth=3), "book": dict(steps=10_000),
                         "paper": dict(width=128, steps=40_000)}

    def __post_init__(self):
        super().__post_init__()
        _check_training(self)
        check_positive_int("max_depth", self.max_depth)


def run_depth(cfg: DepthConfig) -> Arrays:
    """``profile`` (max_depth, max_depth + 1): final alpha of layers 0..L for each L (nan-padded);
    ``last`` (max_depth, T): the last hidden layer's alpha(t); ``terminal``: the derived law per L."""
    def compute() -> Arrays:
        data = _data(cfg)
        depths = range(1, cfg.max_depth + 1)
        runs = [train_deep_linear(data, L, cfg.width, cfg.kappa, cfg.lr, cfg.steps, cfg.lam,
                                  seed=cfg.seed + L) for L in depths]
        profile = np.full((cfg.max_depth, cfg.max_depth + 1), np.nan)
        for L, run in zip(depths, runs, strict=True):
            profile[L - 1, :L + 1] = run.alpha[-1]
        ax, ay = nu_abstraction(cfg.nu_x), nu_abstraction(cfg.nu_y)
        return {"t": runs[-1].t, "profile": profile, "last": np.stack([run.alpha[:, -1] for run in runs]),
                "terminal": np.array([deep_terminal(ax, ay, L) for L in depths]),
                "alpha_x": np.array(ax), "alpha_y": np.array(ay)}
    return cached("abstraction/depth", cfg, compute)


def depth_profiles(res: Arrays) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray]]:
    """For each depth L, the final alpha of layers 0..L (the row of ``profile`` without its NaN
    padding), and the depth law through the input's alpha_x and that last layer's alpha
    (``measures.layer_profile``), both keyed by L."""
    profiles = {L: row[: L + 1] for L, row in enumerate(res["profile"], start=1)}
    theory = {L: layer_profile(res["alpha_x"], p[-1], L) for L, p in profiles.items()}
    return profiles, theory


def depth_claims(res: Arrays) -> dict[str, Any]:
    """The last layer's terminal alpha rises with depth; the layer profile is linear in arctanh."""
    last = res["last"][:, -1]
    return {"abstraction.depth_last_layer_rises": bool(np.all(np.diff(last) > 0)),
            "abstraction.depth_profile_deviation": depth_profile_deviation(res["profile"]),
            "abstraction.depth_terminal_gap": largest_gap(last, res["terminal"])}


# --- nonlinear kernel maps and the attenuation law ------------------------------------------------

@dataclass(frozen=True)
class KernelConfig(Preset):
    """Kernel maps against Monte Carlo, and the attenuation law over random two-factor kernels."""

    n_kernels: int = 10_000
    mc_samples: int = 400_000
    mc_kernels: int = 3
    seed: int = 0

    PRESETS: ClassVar = {"ci": dict(mc_samples=200_000, mc_kernels=2), "book": dict(),
                         "paper": dict(n_kernels=100_000, mc_samples=2_000_000, mc_kernels=10)}

    def __post_init__(self):
        check_positive_int("n_kernels", self.n_kernels)
        check_positive_int("mc_samples", self.mc_samples)
        check_positive_int("mc_kernels", self.mc_kernels)
        check_nonnegative_int("seed", self.seed)


KERNEL_MAPS = {
    "erf": (erf_kernel, erf),
    "relu": (relu_kernel, relu),
    "leaky_relu": (partial(leaky_relu_kernel, slope=LEAKY_SLOPE), partial(leaky_relu, slope=LEAKY_SLOPE)),
    "gelu": (gelu_kernel, gelu),
}
"""Activation name (as in :data:`~interp_repro.abstraction.model.ACTIVATIONS`) -> (closed-form or
quadrature kernel map, the activation itself for Monte Carlo)."""

CLOSED_FORMS = ("erf", "relu", "leaky_relu")
"""The kernel maps with closed forms, on which the attenuation law is checked."""


@dataclass(frozen=True)
class KernelResults:
    """What :func:`run_kernels` computed, by activation name."""

    mc_error: dict[str, float]
    """Largest |kernel map - Monte Carlo| over the test covariances, for every map."""
    abs_alpha_K: dict[str, np.ndarray]
    """|alpha| after the map of every random two-factor kernel, for the :data:`CLOSED_FORMS`."""
    abs_alpha_Q: dict[str, np.ndarray]
    """|alpha| of the same kernels before the map."""


def run_kernels(cfg: KernelConfig) -> KernelResults:
    """Every kernel map against Monte Carlo, and |alpha_K|, |alpha_Q| for the attenuation law."""
    def compute() -> Arrays:
        out = {}
        Qs = random_two_factor_kernels(cfg.mc_kernels, seed=cfg.seed, log10_range=(-1.0, 0.5))
        for i, (name, (kernel_map, phi)) in enumerate(KERNEL_MAPS.items()):
            err = max(largest_gap(kernel_map(Q), monte_carlo_kernel(phi, Q, cfg.mc_samples,
                                                                    seed=cfg.seed + i)) for Q in Qs)
            out[_stored("mc_error", name)] = np.array(err)
            if name in CLOSED_FORMS:
                abs_alpha_K, abs_alpha_Q = attenuation_check(kernel_map, cfg.n_kernels, seed=cfg.seed + 100)
                out[_stored("alpha_K", name)], out[_stored("alpha_Q", name)] = abs_alpha_K, abs_alpha_Q
        return out
    arrays = cached("abstraction/kernels", cfg, compute)
    return KernelResults(mc_error={name: float(arrays[_stored("mc_error", name)]) for name in KERNEL_MAPS},
                         abs_alpha_K={name: arrays[_stored("alpha_K", name)] for name in CLOSED_FORMS},
                         abs_alpha_Q={name: arrays[_stored("alpha_Q", name)] for name in CLOSED_FORMS})


def kernel_claims(res: KernelResults) -> dict[str, Any]:
    """Violations of |alpha_K| <= |alpha_Q| per closed-form map, and the worst Monte Carlo error."""
    claims: dict[str, Any] = {
        f"abstraction.attenuation_violations_{name}": attenuation_violations(res.abs_alpha_K[name],
                                                                              res.abs_alpha_Q[name])
        for name in CLOSED_FORMS}
    claims["abstraction.kernel_mc_max_error"] = max(res.mc_error.values())
    return claims


# --- finite-width nonlinear networks -----------------------------------------------------------

@dataclass(frozen=True)
class NonlinearConfig(TwoFactorSetting, Preset):
    """One hidden layer with erf, ReLU, leaky ReLU or GELU and a ridge readout: abstraction of the
    pre-activations against the post-activations during training. ``noise_x`` > 0 adds within-class
    noise (and then ``n_per_class`` samples per class matter)."""

    activations: tuple[str, ...] = ("erf", "relu", "leaky_relu", "gelu")
    noise_x: float = 0.0
    kappa: float = 1.0
    width: int = 512
    lr: float = 0.2
    steps: int = 2000

    PRESETS: ClassVar = {"ci": dict(width=256, steps=1000), "book": dict(),
                         "paper": dict(width=2048, steps=8000)}

    def __post_init__(self):
        super().__post_init__()
        _check_training(self)
        check_choices("activations", self.activations, ACTIVATIONS)
        check_nonnegative("noise_x", self.noise_x)


@dataclass(frozen=True)
class PrePost:
    """alpha(t) before and after the activation of one-hidden-layer networks, by activation name."""

    t: np.ndarray
    """(T,) gradient-flow times of the records (the same for every activation)."""
    pre: dict[str, np.ndarray]
    """(T,) shape abstraction of the pre-activations."""
    post: dict[str, np.ndarray]
    """(T,) shape abstraction of the post-activations (features)."""


def run_nonlinear(cfg: NonlinearConfig) -> PrePost:
    """Train one network per activation of ``cfg.activations`` on the same data."""
    def compute() -> Arrays:
        data = _data(cfg, noise_x=cfg.noise_x)
        out = {}
        for act in cfg.activations:
            run = train_nonlinear(data, act, cfg.width, cfg.kappa, cfg.lr, cfg.steps, cfg.lam,
                                  seed=cfg.seed + 1)
            out[_stored("pre", act)], out[_stored("post", act)] = run.alpha_pre, run.alpha_post
        out["t"] = run.t
        return out
    arrays = cached("abstraction/nonlinear", cfg, compute)
    return PrePost(t=arrays["t"], pre={act: arrays[_stored("pre", act)] for act in cfg.activations},
                   post={act: arrays[_stored("post", act)] for act in cfg.activations})


FINITE_WIDTH_TOL = 0.05
"""How far a trained finite network's |alpha_post| may exceed |alpha_pre| before it counts against the
attenuation law (ours). erf nearly preserves alpha, and at ci width its end gap |post| - |pre| was
-0.014 with the chapters' seeds and +0.011 with seeds shifted by 1000: finite-width noise of about
0.015, so 0.05 leaves a margin of three times that."""


def anti_abstraction_config(scale: str) -> NonlinearConfig:
    """One setting of very noisy inputs (``nu_x`` = 0.9, within-class noise 1) and a clean target
    (``nu_y`` = 0), erf beside ReLU: the trajectories behind one cell of
    :class:`AntiAbstractionSweepConfig`."""
    return NonlinearConfig.preset(scale, nu_x=0.9, nu_y=0.0, noise_x=1.0, n_per_class=10, d_in=16,
                                  activations=("erf", "relu"))


@dataclass(frozen=True)
class AntiAbstractionSweepConfig(Preset):
    """ReLU networks (one hidden layer, ridge readout) on a clean target (``nu_y`` = 0) at every
    (nu_x, noise_x, width) of ``nu_xs`` x ``noise_xs`` x ``widths``, ``seeds`` draws of data and
    initialisation each: where, if anywhere, the paper's "with very noisy inputs ReLU can converge
    towards alpha ~ -1 even with a clean target" (Yang, Saxe, Latham 2026, nonlinear networks) shows.
    Inputs get noisier two ways: ``nu_xs`` above 1 (allowed here only) make the interaction mode
    outweigh the shape mode (alpha_x < 0), ``noise_xs`` scatter the samples around their class means."""

    nu_xs: tuple[float, ...] = (0.5, 0.9, 2.0, 4.0, 9.0)
    noise_xs: tuple[float, ...] = (0.0, 1.0, 2.0, 4.0)
    widths: tuple[int, ...] = (64, 256, 1024, 2048)
    seeds: int = 3
    nu_y: float = 0.0
    lam: float = 1.0
    n_per_class: int = 10
    d_in: int = 16
    d_out: int = 6
    kappa: float = 1.0
    lr: float = 0.2
    steps: int = 2000
    seed: int = 0

    PRESETS: ClassVar = {"ci": dict(nu_xs=(0.9, 4.0, 9.0), noise_xs=(0.0, 1.0, 4.0), widths=(64, 256),
                                    seeds=2, steps=1000),
                         "book": dict(),
                         "paper": dict(nu_xs=(0.5, 0.9, 1.0, 2.0, 4.0, 9.0, 19.0),
                                       noise_xs=(0.0, 0.5, 1.0, 2.0, 4.0, 8.0),
                                       widths=(64, 256, 1024, 2048, 4096), seeds=8, steps=8000)}

    def __post_init__(self):
        for name in ("nu_xs", "noise_xs", "widths"):
            check_tuple(name, getattr(self, name))
        check_nu("nu_xs", self.nu_xs, upper=math.inf)
        for noise_x in self.noise_xs:
            check_nonnegative("noise_xs", noise_x)
        for width in self.widths:
            check_positive_int("widths", width)
        check_positive_int("seeds", self.seeds)
        check_nu("nu_y", self.nu_y)
        check_positive("lam", self.lam)
        _check_data(self)
        check_positive("kappa", self.kappa)
        check_positive("lr", self.lr)
        check_positive_int("steps", self.steps)


def run_anti_abstraction_sweep(cfg: AntiAbstractionSweepConfig) -> Arrays:
    """Train every ReLU network of the sweep; keep alpha at the end of training.

    ``pre``, ``post``: (len(nu_xs), len(noise_xs), len(widths), seeds) shape abstraction of the
    pre- and post-activations. Draw r of a cell uses the data of seed ``seed + r`` (the same draw
    at every width, scaled to each nu_x and noise_x) and the initialisation of seed ``seed + r + 1``,
    as :func:`run_nonlinear` does for r = 0. ``alpha_x``: (len(nu_xs),) the inputs' own alpha,
    (1 - nu_x) / (1 + nu_x) (the class means are exact); ``nu_xs``, ``noise_xs``, ``widths``: the axes.
    """
    def compute() -> Arrays:
        shape = (len(cfg.nu_xs), len(cfg.noise_xs), len(cfg.widths), cfg.seeds)
        pre, post, alpha_x = np.empty(shape), np.empty(shape), np.empty(len(cfg.nu_xs))
        cells = list(product(enumerate(cfg.nu_xs), enumerate(cfg.noise_xs), range(cfg.seeds)))
        for (i, nu_x), (j, noise_x), r in progress(cells, "ReLU anti-abstraction sweep"):
            data = two_factor_data(nu_x, cfg.nu_y, n_per_class=cfg.n_per_class, d_in=cfg.d_in,
                                   d_out=cfg.d_out, seed=cfg.seed + r, noise_x=noise_x, nu_x_max=math.inf)
            alpha_x[i] = abstraction_score(data.X, data.labels)
            for k, width in enumerate(cfg.widths):
                run = train_nonlinear(data, "relu", width, cfg.kappa, cfg.lr, cfg.steps, cfg.lam,
                                      seed=cfg.seed + r + 1)
                pre[i, j, k, r], post[i, j, k, r] = run.alpha_pre[-1], run.alpha_post[-1]
        return {"pre": pre, "post": post, "alpha_x": alpha_x, "nu_xs": np.array(cfg.nu_xs),
                "noise_xs": np.array(cfg.noise_xs), "widths": np.array(cfg.widths)}
    return cached("abstraction/anti_abstraction_sweep", cfg, compute)


def anti_abstraction_claims(res: Arrays) -> dict[str, Any]:
    """The sweep's most anti-abstract cell: the lowest, over (nu_x, noise_x, width), of the ReLU
    pre-activation alpha at the end of training averaged over the seeds (the paper: towards -1 with
    very noisy inputs despite a clean target). Pre-activations, because the attenuation law
    (|alpha_post| <= |alpha_pre|) makes them the first to show it."""
    return {"abstraction.relu_anti_abstraction": float(res["pre"].mean(-1).min())}


def anti_abstraction_levels(res: Arrays) -> dict[str, float]:
    """Where the sweep's seed-mean pre-activation alpha is lowest, and the other numbers there (not
    claims: the chapter's account of the sweep). ``..._pre_min``, ``..._pre_max``: the seeds' range at
    that cell; ``..._concept_dominant_min``: the lowest seed-mean over the cells whose input has
    nu_x <= 1 (its shape mode at least as strong as its interaction mode, alpha_x >= 0: the regime
    the paper's laws are stated for), left out if the sweep has none."""
    mean = res["pre"].mean(-1)
    i, j, k = np.unravel_index(np.argmin(mean), mean.shape)
    levels = {"anti_abstraction_nu_x": float(res["nu_xs"][i]),
              "anti_abstraction_noise_x": float(res["noise_xs"][j]),
              "anti_abstraction_width": int(res["widths"][k]),
              "anti_abstraction_alpha_x": float(res["alpha_x"][i]),
              "anti_abstraction_pre_min": float(res["pre"][i, j, k].min()),
              "anti_abstraction_pre_max": float(res["pre"][i, j, k].max()),
              "anti_abstraction_post": float(res["post"][i, j, k].mean())}
    concept_dominant = res["nu_xs"] <= 1.0
    if concept_dominant.any():
        levels["anti_abstraction_concept_dominant_min"] = float(mean[concept_dominant].min())
    return levels


def pre_post_table(res: PrePost) -> pd.DataFrame:
    """One row per activation: alpha of the pre-activations and of the post-activations at the end of
    training, and the largest |alpha_post| - |alpha_pre| over training (``measures.attenuation_excess``:
    above 0, the attenuation law failed for a while)."""
    return pd.DataFrame({"pre (end)": [res.pre[act][-1] for act in res.pre],
                         "post (end)": [res.post[act][-1] for act in res.pre],
                         "largest |post| - |pre|": [attenuation_excess(res.post[act], res.pre[act])
                                                    for act in res.pre]},
                        index=pd.Index(list(res.pre), name="activation"))


def nonlinear_claims(res: PrePost) -> dict[str, Any]:
    """How many activations end training with |alpha_post| > |alpha_pre| + :data:`FINITE_WIDTH_TOL`
    (noise-free data)."""
    post_end = np.array([post[-1] for post in res.post.values()])
    pre_end = np.array([res.pre[act][-1] for act in res.post])
    return {"abstraction.sim_attenuation_end_violations": attenuation_violations(post_end, pre_end,
                                                                                  FINITE_WIDTH_TOL)}


# --- GELU ablation -----------------------------------------------------------------------------

@dataclass(frozen=True)
class GeluNetConfig:
    """Data, model and training settings of the GELU ablation's network (defaults: 5 seeds in a few
    seconds); see :func:`~interp_repro.abstraction.train.train_gelu_net`."""

    nu_x: float = 0.5
    """Input inverse SNR lambda_SC / lambda_S of the class means."""
    noise_x: float = 0.3
    """Within-class noise sd per input coordinate (the Bayes 4-way accuracy is then about 0.96)."""
    n_per_class: int = 64
    """Training samples per class; as many again per class are held out for the measurements."""
    d_in: int = 16
    d_model: int = 32
    d_hidden: int = 64
    n_blocks: int = 3
    lr: float = 3e-3
    """Adam learning rate (full batch)."""
    steps: int = 300

    def __post_init__(self):
        check_nu("nu_x", self.nu_x)
        check_nonnegative("noise_x", self.noise_x)
        check_positive_int("n_per_class", self.n_per_class)
        check_positive_int("d_in", self.d_in)
        check_positive_int("d_model", self.d_model)
        check_positive_int("d_hidden", self.d_hidden)
        check_positive_int("n_blocks", self.n_blocks)
        check_positive("lr", self.lr)
        check_positive_int("steps", self.steps)


@dataclass(frozen=True)
class AblationConfig(Preset):
    """A small residual GELU MLP on a two-factor task, every block's GELU replaced by the identity in
    turn; ``net`` holds the data, model and training settings (see :class:`GeluNetConfig`)."""

    net: GeluNetConfig = GeluNetConfig()
    seeds: int = 5
    seed: int = 0

    PRESETS: ClassVar = {"ci": dict(seeds=3), "book": dict(seeds=10), "paper": dict(seeds=50)}

    def __post_init__(self):
        if not isinstance(self.net, GeluNetConfig):
            raise ValueError(f"net must be a GeluNetConfig, got {self.net!r}")
        check_positive_int("seeds", self.seeds)
        check_nonnegative_int("seed", self.seed)


ABLATION_SCORES = ("alpha", "probe", "walpha", "hidden_alpha", "hidden_probe")
"""The scores of :func:`ablation_table`: of each block's output, alpha, the cross-context probe and
the whitened alpha; of its hidden layer (GELU(h) intact, h ablated), alpha and the probe."""


def ablation_table(net: GeluNetConfig, seeds) -> Arrays:
    """Train one network per seed; score each block's output intact and with its own GELU ablated.

    ``<score>_intact``, ``<score>_ablated`` for every score of :data:`ABLATION_SCORES`:
    (n_seeds, n_blocks, 2) over seeds, blocks and concepts (shape, colour); ``test_accuracy``:
    (n_seeds,) 4-way held-out accuracy of the intact networks.
    """
    seeds = tuple(seeds)
    if not seeds:
        raise ValueError("seeds must hold at least one seed")
    arrays = {f"{score}_{state}": np.zeros((len(seeds), net.n_blocks, 2))
              for score in ABLATION_SCORES for state in ("intact", "ablated")}
    accuracy = np.zeros(len(seeds))
    for i, seed in enumerate(progress(seeds, "GELU ablation")):
        trained = train_gelu_net(**asdict(net), seed=seed)
        accuracy[i] = trained.test_accuracy
        intact = block_representations(trained.model, trained.X_test)
        for b in range(net.n_blocks):
            ablated = block_representations(trained.model, trained.X_test, ablate_block=b)[b]
            pre, post = block_hidden(trained.model, trained.X_test, b)
            for state, reps, hidden in (("intact", intact[b], post), ("ablated", ablated, pre)):
                scores = concept_scores(reps, trained.labels_test)
                for score in ("alpha", "probe", "walpha"):
                    arrays[f"{score}_{state}"][i, b] = scores[score]
                scores = concept_scores(hidden, trained.labels_test)
                for score in ("alpha", "probe"):
                    arrays[f"hidden_{score}_{state}"][i, b] = scores[score]
    return arrays | {"test_accuracy": accuracy}


def run_ablation(cfg: AblationConfig) -> Arrays:
    """:func:`ablation_table` over the seeds seed, seed + 1, ..., cached."""
    return cached("abstraction/ablation", cfg,
                  lambda: ablation_table(cfg.net, seeds=range(cfg.seed, cfg.seed + cfg.seeds)))


def ablation_claims(res: Arrays) -> dict[str, Any]:
    """The fraction of (seed, block) pairs whose alpha, and whose probe accuracy, goes up when the
    block's GELU is replaced by the identity: the paper's direction of change."""
    return {"abstraction.gelu_alpha_up_fraction": up_fraction(res["alpha_intact"], res["alpha_ablated"]),
            "abstraction.gelu_probe_up_fraction": up_fraction(res["probe_intact"], res["probe_ablated"])}


def ablation_levels(res: Arrays) -> dict[str, float]:
    """Mean alpha and probe accuracy, intact and ablated, and ``gelu_test_accuracy``, the intact
    networks' mean held-out 4-way accuracy. Not claims: the paper's levels are Gemma's, which ours do
    not compare with (``claims.toml``, not reproduced here)."""
    levels = {f"gelu_{score}_{state}": float(res[f"{score}_{state}"].mean())
              for score in ("alpha", "probe") for state in ("intact", "ablated")}
    return levels | {"gelu_test_accuracy": float(res["test_accuracy"].mean())}


GELU_SETTINGS: dict[str, dict[str, Any]] = {
    "book's network": {},
    "1 block": {"n_blocks": 1},
    "6 blocks": {"n_blocks": 6},
    "4x wider": {"d_model": 128, "d_hidden": 256},
    "noise 0.15": {"noise_x": 0.15},
    "noise 0.6": {"noise_x": 0.6},
    "nu_x 0": {"nu_x": 0.0},
    "1,000 steps": {"steps": 1000},
    "3,000 steps": {"steps": 3000},
}
"""The settings of :class:`GeluSensitivityConfig`: each a change to :class:`GeluNetConfig`'s
defaults (the ablation's own network): depth, width, within-class noise, input nu_x, training time."""

PAPER_PROBE = 0.944
"""Gemma's intact cross-context probe accuracy (Yang, Saxe, Latham 2026, local GELU ablation)."""

LEARNED = 0.9
"""The held-out 4-way accuracy above which a setting's networks count as having learnt the task."""


@dataclass(frozen=True)
class GeluSensitivityConfig(Preset):
    """The local GELU ablation (:func:`ablation_table`) at each setting of ``settings`` (names of
    :data:`GELU_SETTINGS`), ``seeds`` seeds each: how the paper's direction of change (Yang, Saxe,
    Latham 2026, local GELU ablation) depends on our own choices of network, data and training."""

    settings: tuple[str, ...] = tuple(GELU_SETTINGS)
    seeds: int = 8
    seed: int = 0

    PRESETS: ClassVar = {"ci": dict(settings=("book's network", "1 block", "noise 0.6", "nu_x 0"), seeds=2),
                         "book": dict(),
                         "paper": dict(seeds=30)}

    def __post_init__(self):
        check_choices("settings", self.settings, GELU_SETTINGS)
        check_positive_int("seeds", self.seeds)
        check_nonnegative_int("seed", self.seed)


def run_gelu_sensitivity(cfg: GeluSensitivityConfig) -> Arrays:
    """:func:`ablation_table` at every setting over the seeds seed, ..., seed + seeds - 1, summarised
    (cached). Arrays of shape (len(settings),): ``alpha_up``, ``probe_up``, ``walpha_up``,
    ``hidden_alpha_up``, ``hidden_probe_up`` (:func:`up_fraction` of each score); ``probe_intact``
    (mean intact probe accuracy), ``test_accuracy``; ``probe_with_alpha``, ``probe_with_walpha``
    (:func:`same_direction` of the probe's change with alpha's and with the whitened alpha's)."""
    def compute() -> Arrays:
        rows = []
        for name in cfg.settings:
            res = ablation_table(replace(GeluNetConfig(), **GELU_SETTINGS[name]),
                                 seeds=range(cfg.seed, cfg.seed + cfg.seeds))
            row = {f"{score}_up": up_fraction(res[f"{score}_intact"], res[f"{score}_ablated"])
                   for score in ABLATION_SCORES}
            row |= {f"probe_with_{score}": same_direction(res[f"{score}_intact"], res[f"{score}_ablated"],
                                                          res["probe_intact"], res["probe_ablated"])
                    for score in ("alpha", "walpha")}
            rows.append(row | {"probe_intact": res["probe_intact"].mean(),
                               "test_accuracy": res["test_accuracy"].mean()})
        return {key: np.array([row[key] for row in rows]) for key in rows[0]}
    return cached("abstraction/gelu_sensitivity", cfg, compute)


SENSITIVITY_COLUMNS = ("alpha_up", "probe_up", "walpha_up", "hidden_probe_up", "probe_intact",
                       "test_accuracy")
"""The summaries of :func:`run_gelu_sensitivity` that :func:`gelu_sensitivity_table` shows."""


def gelu_sensitivity_table(cfg: GeluSensitivityConfig, res: Arrays) -> pd.DataFrame:
    """The sweep of :func:`run_gelu_sensitivity`, one row per setting of ``cfg``: the fractions of
    (seed, block) pairs in which alpha, the probe, the whitened alpha and the hidden layer's probe go
    up, the intact probe accuracy and the held-out accuracy (:data:`SENSITIVITY_COLUMNS`)."""
    return pd.DataFrame({c: res[c] for c in SENSITIVITY_COLUMNS},
                        index=pd.Index(cfg.settings, name="setting"))


def paper_like_setting(cfg: GeluSensitivityConfig, res: Arrays) -> str:
    """A criterion that looks only at the intact networks, never at the direction of the change:
    among the settings whose networks learn the task (held-out accuracy >= :data:`LEARNED`), the one
    whose intact probe accuracy is closest to Gemma's :data:`PAPER_PROBE`; ValueError if none does."""
    learned = np.flatnonzero(res["test_accuracy"] >= LEARNED)
    if learned.size == 0:
        raise ValueError(f"no setting reaches held-out accuracy {LEARNED}")
    return cfg.settings[learned[np.argmin(np.abs(res["probe_intact"][learned] - PAPER_PROBE))]]


def gelu_sensitivity_levels(cfg: GeluSensitivityConfig, res: Arrays) -> dict[str, Any]:
    """The chapter's numbers from the sweep (not claims): the paper-like setting
    (:func:`paper_like_setting`) and its fractions (block output and hidden layer); the range of the
    probe-up fraction and of the intact probe accuracy over the settings; the agreement of the
    probe's change with alpha's and with the whitened alpha's, averaged over the settings."""
    name = paper_like_setting(cfg, res)
    i = cfg.settings.index(name)
    return {"gelu_like_setting": name, "gelu_like_probe_intact": float(res["probe_intact"][i]),
            "gelu_like_probe_up": float(res["probe_up"][i]), "gelu_like_alpha_up": float(res["alpha_up"][i]),
            "gelu_like_hidden_probe_up": float(res["hidden_probe_up"][i]),
            "gelu_sweep_probe_up_min": float(res["probe_up"].min()),
            "gelu_sweep_probe_up_max": float(res["probe_up"].max()),
            "gelu_sweep_probe_intact_min": float(res["probe_intact"].min()),
            "gelu_sweep_probe_intact_max": float(res["probe_intact"].max()),
            "gelu_sweep_probe_with_alpha": float(res["probe_with_alpha"].mean()),
            "gelu_sweep_probe_with_walpha": float(res["probe_with_walpha"].mean())}


def _configs(scale: str) -> dict[str, Any]:
    """Every experiment's config at ``scale``, by experiment name."""
    return {"linear": LinearConfig.preset(scale), "rich": rich_config(scale),
            "terminal_grid": TerminalGridConfig.preset(scale),
            "kappa": KappaConfig.preset(scale),
            "depth": DepthConfig.preset(scale), "kernels": KernelConfig.preset(scale),
            "nonlinear": NonlinearConfig.preset(scale), "anti_abstraction": anti_abstraction_config(scale),
            "anti_abstraction_sweep": AntiAbstractionSweepConfig.preset(scale),
            "ablation": AblationConfig.preset(scale),
            "gelu_sensitivity": GeluSensitivityConfig.preset(scale)}


def jobs(scale: str) -> list[Job]:
    """The study's independent trained experiments at ``scale`` (the kappa sweep is closed-form)."""
    cfg = _configs(scale)
    return [Job(run_linear, (cfg["linear"],)), Job(run_linear, (cfg["rich"],)),
            Job(run_terminal_grid, (cfg["terminal_grid"],)),
            Job(run_depth, (cfg["depth"],)),
            Job(run_kernels, (cfg["kernels"],)), Job(run_nonlinear, (cfg["nonlinear"],)),
            Job(run_nonlinear, (cfg["anti_abstraction"],)),
            Job(run_anti_abstraction_sweep, (cfg["anti_abstraction_sweep"],)),
            Job(run_ablation, (cfg["ablation"],)),
            Job(run_gelu_sensitivity, (cfg["gelu_sensitivity"],))]


def run_all(scale: str) -> dict[str, Any]:
    """Run every experiment of the study at ``scale`` (cached) and return all headline numbers.

    The trained experiments are independent, so those not cached yet run side by side first
    (``core.parallel.run_jobs``); the kappa sweep is closed-form and runs here."""
    run_jobs(jobs(scale), desc="abstraction experiments")
    cfg = _configs(scale)
    claims: dict[str, Any] = {}
    claims |= linear_claims(run_linear(cfg["linear"]))
    claims |= rich_claims(run_linear(cfg["rich"]))
    claims |= terminal_grid_claims(run_terminal_grid(cfg["terminal_grid"]))
    claims |= kappa_claims(run_kappa(cfg["kappa"]))
    claims |= depth_claims(run_depth(cfg["depth"]))
    claims |= kernel_claims(run_kernels(cfg["kernels"]))
    claims |= nonlinear_claims(run_nonlinear(cfg["nonlinear"]))
    claims |= anti_abstraction_claims(run_anti_abstraction_sweep(cfg["anti_abstraction_sweep"]))
    claims |= ablation_claims(run_ablation(cfg["ablation"]))
    return claims
