"""The linear networks' experiments: the two-layer network, theory against simulation and from a small
initialisation (the rich regime); the terminal law over a grid of (nu_x, nu_y); the initialisation
scale, from the exact solution; depth. Chapter: linear theory."""

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from interp_repro.abstraction.data import check_nu, two_factor_data
from interp_repro.abstraction.experiments.setting import (
    TwoFactorSetting,
    check_data_fields,
    check_training_fields,
)
from interp_repro.abstraction.measures import (
    alpha_trajectory,
    deep_terminal,
    default_times,
    depth_profile_deviation,
    largest_gap,
    layer_profile,
    max_alpha,
    noiseless_cells,
    nu_abstraction,
    perfectly_abstract,
    terminal_abstraction,
    theory_for,
)
from interp_repro.abstraction.train import train_deep_linear, train_linear
from interp_repro.core import (
    Arrays,
    cached,
    check_positive,
    check_positive_int,
    check_tuple,
)
from interp_repro.core.presets import Preset
from interp_repro.core.table import declares
from interp_repro.core.validate import check_field_types

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
        check_training_fields(self)
        check_positive("joint_lr", self.joint_lr)
        check_positive_int("joint_steps", self.joint_steps)


def run_linear(cfg: LinearConfig) -> Arrays:
    """Simulate both readouts and evaluate the exact theory at the recorded times.

    The theory starts from the simulation's actual initial kernel (finite width), so the two can be
    compared step for step. ``alpha_inf``: the terminal law; ``alpha_x``, ``alpha_y``: the abstraction
    of the input and of the target.
    """
    def compute() -> Arrays:
        data = cfg.data()
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


@declares("abstraction.intermediate_overshoot", "abstraction.sim_terminal_gap",
           "abstraction.theory_sim_max_gap")
def linear_claims(res: Arrays) -> dict[str, Any]:
    """Theory against simulation over the whole run, the end of the run against the terminal law, and
    how far alpha overshoots the terminal law on the way (kappa = 1 sits between the rich and the lazy
    regime: alpha rises above alpha_inf, then decays to it)."""
    return {"abstraction.theory_sim_max_gap": largest_gap(res["alpha"], res["theory"]),
            "abstraction.sim_terminal_gap": largest_gap(res["alpha"][-1], res["alpha_inf"]),
            "abstraction.intermediate_overshoot": float(res["alpha"].max() - res["alpha_inf"])}


RICH_KAPPA = 0.01
"""The small initialisation scale at which a trained network shows the rich regime (ours)."""


def rich_config(scale: str) -> LinearConfig:
    """The linear network of :class:`LinearConfig` from a small initialisation (kappa =
    :data:`RICH_KAPPA`): the rich regime, trained rather than solved."""
    return LinearConfig.preset(scale, kappa=RICH_KAPPA)


@declares("abstraction.rich_terminal_gap", "abstraction.rich_trained_max_alpha")
def rich_claims(res: Arrays) -> dict[str, Any]:
    """The highest alpha a network trained from a small initialisation reaches (the paper: near 1,
    in a long metastable phase, before it decays to alpha_inf), and how far from the terminal law it
    ends (the paper: the terminal alpha does not depend on the initialisation)."""
    return {"abstraction.rich_trained_max_alpha": float(res["alpha"].max()),
            "abstraction.rich_terminal_gap": largest_gap(res["alpha"][-1], res["alpha_inf"])}


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
        check_field_types(self)
        check_nu("nus", check_tuple("nus", self.nus))
        check_positive("lam", self.lam)
        check_data_fields(self)
        check_training_fields(self)


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


@declares("abstraction.perfect_iff_noiseless", "abstraction.terminal_grid_max_gap")
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
        check_field_types(self)
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


@declares("abstraction.lazy_excess", "abstraction.rich_max_alpha")
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
        check_training_fields(self)
        check_positive_int("max_depth", self.max_depth)


def run_depth(cfg: DepthConfig) -> Arrays:
    """``profile`` (max_depth, max_depth + 1): final alpha of layers 0..L for each L (nan-padded);
    ``last`` (max_depth, T): the last hidden layer's alpha(t); ``terminal``: the derived law per L."""
    def compute() -> Arrays:
        data = cfg.data()
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
    # profile's row L is NaN-padded after layer L: depth_profiles and depth_profile_deviation strip it
    return cached("abstraction/depth", cfg, compute, nonfinite=("profile",))


def depth_profiles(res: Arrays) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray]]:
    """For each depth L, the final alpha of layers 0..L (the row of ``profile`` without its NaN
    padding), and the depth law through the input's alpha_x and that last layer's alpha
    (``measures.layer_profile``), both keyed by L."""
    profiles = {L: row[: L + 1] for L, row in enumerate(res["profile"], start=1)}
    theory = {L: layer_profile(res["alpha_x"], p[-1], L) for L, p in profiles.items()}
    return profiles, theory


@declares("abstraction.depth_last_layer_rises", "abstraction.depth_profile_deviation",
           "abstraction.depth_terminal_gap")
def depth_claims(res: Arrays) -> dict[str, Any]:
    """The last layer's terminal alpha rises with depth; the layer profile is linear in arctanh."""
    last = res["last"][:, -1]
    return {"abstraction.depth_last_layer_rises": bool(np.all(np.diff(last) > 0)),
            "abstraction.depth_profile_deviation": depth_profile_deviation(res["profile"]),
            "abstraction.depth_terminal_gap": largest_gap(last, res["terminal"])}
