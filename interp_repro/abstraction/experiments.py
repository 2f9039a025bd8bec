"""The experiments of the abstraction study, one config and one ``run_*`` function each.

Each config has a preset per scale (``Config.preset("ci")``); any field can be overridden, which is
how the chapters let a reader change nu_x, nu_y, kappa and depth. Simulations are cached on disk;
the theory is exact and instant, so it is recomputed. Each ``*_claims`` function turns the arrays
into the headline numbers that ``claims.toml`` checks.
"""

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from scipy.special import erf

from interp_repro.abstraction.ablation import GeluNetConfig, ablation_table
from interp_repro.abstraction.data import TwoFactorData, check_nu, two_factor_data
from interp_repro.abstraction.kernels import (
    attenuation_check,
    erf_kernel,
    gelu,
    gelu_kernel,
    leaky_relu_kernel,
    monte_carlo_kernel,
    random_two_factor_kernels,
    relu_kernel,
)
from interp_repro.abstraction.networks import (
    LEAKY_SLOPE,
    theory_for,
    train_deep_linear,
    train_linear,
    train_nonlinear,
)
from interp_repro.abstraction.theory import (
    alpha_trajectory,
    deep_terminal,
    default_times,
    max_alpha,
    nu_abstraction,
    terminal_abstraction,
)
from interp_repro.core import cached, check_positive_int
from interp_repro.core.parallel import Job, run_jobs
from interp_repro.core.presets import Preset

Arrays = dict[str, np.ndarray]


def _check_data_fields(cfg) -> None:
    check_nu("nu_x", cfg.nu_x)
    check_nu("nu_y", cfg.nu_y)
    for name in ("n_per_class", "width", "steps"):
        if hasattr(cfg, name):
            check_positive_int(name, getattr(cfg, name))
    for name in ("kappa", "lr", "lam"):
        if hasattr(cfg, name) and not getattr(cfg, name) > 0:
            raise ValueError(f"{name} must be > 0, got {getattr(cfg, name)!r}")


def _data(cfg) -> TwoFactorData:
    return two_factor_data(cfg.nu_x, cfg.nu_y, n_per_class=cfg.n_per_class, d_in=cfg.d_in,
                           d_out=cfg.d_out, seed=cfg.seed)


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

    PRESETS: ClassVar = {
        "ci": dict(width=256),
        "book": dict(),
        "paper": dict(width=2048, steps=40_000),
    }

    def __post_init__(self):
        _check_data_fields(self)


def run_linear(cfg: LinearConfig) -> Arrays:
    """Simulate both readouts and evaluate the exact theory at the recorded times.

    The theory starts from the simulation's actual initial kernel (finite width), so the two can be
    compared step for step. ``t_inf``: the terminal law alpha_inf = (1 - sqrt(nu_x nu_y)) / (1 + ...).
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
    return {
        "abstraction.theory_sim_max_gap": float(np.abs(res["alpha"] - res["theory"]).max()),
        "abstraction.sim_terminal_gap": float(abs(res["alpha"][-1] - res["alpha_inf"])),
    }


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
    input or the target is noiseless" (Yang, Saxe, Latham 2026, terminal law)."""

    nus: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75)
    lam: float = 1.0
    n_per_class: int = 2
    d_in: int = 8
    d_out: int = 6
    kappa: float = 1.0
    width: int = 512
    lr: float = 0.2
    steps: int = 8000
    seed: int = 0

    PRESETS: ClassVar = {"ci": dict(nus=(0.0, 0.25, 0.75), width=256), "book": dict(),
                         "paper": dict(nus=(0.0, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9), width=2048,
                                       steps=40_000)}

    def __post_init__(self):
        if not self.nus:
            raise ValueError("nus must hold at least one value")
        check_nu("nus", self.nus)
        for name in ("n_per_class", "width", "steps"):
            check_positive_int(name, getattr(self, name))
        for name in ("kappa", "lr", "lam"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)!r}")


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
slowly, so a noiseless cell still sits about 0.02 below it after ``steps``)."""


def terminal_grid_claims(res: Arrays) -> dict[str, Any]:
    """The terminal law on the noisy cells (nu_x nu_y > 0; on the noiseless ones alpha approaches 1
    without reaching it in finite time), and whether exactly the cells with a noiseless input or
    target end within :data:`PERFECT_TOL` of perfect abstraction."""
    noiseless = (res["nus"][:, None] == 0) | (res["nus"][None, :] == 0)
    return {
        "abstraction.terminal_grid_max_gap": float(np.abs(res["alpha"] - res["law"])[~noiseless].max()),
        "abstraction.perfect_iff_noiseless": bool(np.array_equal(res["alpha"] >= 1 - PERFECT_TOL, noiseless)),
    }


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
        _check_data_fields(self)
        check_positive_int("points", self.points)
        if not 0 < self.kappa_min < self.kappa_max:
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
        _check_data_fields(self)
        check_positive_int("max_depth", self.max_depth)


def run_depth(cfg: DepthConfig) -> Arrays:
    """``profile`` (max_depth, max_depth + 1): final alpha of layers 0..L for each L (nan-padded);
    ``last`` (max_depth, T): the last hidden layer's alpha(t); ``terminal``: the derived law per L."""
    def compute() -> Arrays:
        data = _data(cfg)
        D = cfg.max_depth
        profile = np.full((D, D + 1), np.nan)
        last = []
        for L in range(1, D + 1):
            run = train_deep_linear(data, L, cfg.width, cfg.kappa, cfg.lr, cfg.steps, cfg.lam,
                                    seed=cfg.seed + L)
            profile[L - 1, :L + 1] = run.alpha[-1]
            last.append(run.alpha[:, -1])
            t = run.t
        ax, ay = nu_abstraction(cfg.nu_x), nu_abstraction(cfg.nu_y)
        return {"t": t, "profile": profile, "last": np.stack(last),
                "terminal": np.array([deep_terminal(ax, ay, L) for L in range(1, D + 1)]),
                "alpha_x": np.array(ax), "alpha_y": np.array(ay)}
    return cached("abstraction/depth", cfg, compute)


def depth_profile_deviation(profile: np.ndarray) -> float:
    """Largest gap between arctanh alpha^(l) and the straight line through its two ends, over all L."""
    worst = 0.0
    for row in profile:
        a = np.arctanh(row[~np.isnan(row)])
        L = a.size - 1
        line = a[0] + (a[-1] - a[0]) * np.arange(L + 1) / L
        worst = max(worst, float(np.abs(a - line).max()))
    return worst


def depth_claims(res: Arrays) -> dict[str, Any]:
    """The last layer's terminal alpha rises with depth; the layer profile is linear in arctanh."""
    last = res["last"][:, -1]
    return {"abstraction.depth_last_layer_rises": bool(np.all(np.diff(last) > 0)),
            "abstraction.depth_profile_deviation": depth_profile_deviation(res["profile"]),
            "abstraction.depth_terminal_gap": float(np.abs(last - res["terminal"]).max())}


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
        for name in ("n_kernels", "mc_samples", "mc_kernels"):
            check_positive_int(name, getattr(self, name))


KERNEL_MAPS = {
    "erf": (erf_kernel, erf),
    "ReLU": (relu_kernel, lambda z: np.maximum(z, 0.0)),
    f"leaky ReLU ({LEAKY_SLOPE})": (lambda Q: leaky_relu_kernel(Q, LEAKY_SLOPE),
                                    lambda z: np.where(z > 0, z, LEAKY_SLOPE * z)),
    "GELU": (gelu_kernel, gelu),
}
"""Name -> (closed-form or quadrature kernel map, the activation itself for Monte Carlo)."""


def run_kernels(cfg: KernelConfig) -> Arrays:
    """Largest |map - Monte Carlo| per kernel map, and |alpha_K|, |alpha_Q| for the attenuation law
    (erf, ReLU, leaky ReLU: the maps with closed forms)."""
    def compute() -> Arrays:
        out = {}
        Qs = random_two_factor_kernels(cfg.mc_kernels, seed=cfg.seed, log10_range=(-1.0, 0.5))
        for i, (name, (kmap, phi)) in enumerate(KERNEL_MAPS.items()):
            err = max(float(np.abs(kmap(Q) - monte_carlo_kernel(phi, Q, cfg.mc_samples,
                                                                 seed=cfg.seed + i)).max()) for Q in Qs)
            out[f"mc_error/{name}"] = np.array(err)
            if name != "GELU":
                aK, aQ = attenuation_check(kmap, cfg.n_kernels, seed=cfg.seed + 100)
                out[f"alpha_K/{name}"], out[f"alpha_Q/{name}"] = aK, aQ
        return {k.replace("/", "__"): v for k, v in out.items()}
    return cached("abstraction/kernels", cfg, compute)


def attenuation_results(res: Arrays) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{kernel name: (|alpha_K|, |alpha_Q|)} from :func:`run_kernels`' arrays."""
    return {k.removeprefix("alpha_K__"): (v, res[k.replace("alpha_K", "alpha_Q")])
            for k, v in res.items() if k.startswith("alpha_K__")}


def kernel_claims(res: Arrays) -> dict[str, Any]:
    """Violations of |alpha_K| <= |alpha_Q| per closed-form map, and the worst Monte Carlo error."""
    claims = {}
    ids = {"erf": "erf", "ReLU": "relu", f"leaky ReLU ({LEAKY_SLOPE})": "leaky_relu"}
    for name, (aK, aQ) in attenuation_results(res).items():
        claims[f"abstraction.attenuation_violations_{ids[name]}"] = int((aK > aQ + 1e-9).sum())
    claims["abstraction.kernel_mc_max_error"] = max(float(v) for k, v in res.items()
                                                    if k.startswith("mc_error__"))
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
        _check_data_fields(self)


def run_nonlinear(cfg: NonlinearConfig) -> Arrays:
    """``pre/<act>`` and ``post/<act>``: alpha(t) before and after the activation; ``t``."""
    def compute() -> Arrays:
        data = two_factor_data(cfg.nu_x, cfg.nu_y, n_per_class=cfg.n_per_class, d_in=cfg.d_in,
                               d_out=cfg.d_out, seed=cfg.seed, noise_x=cfg.noise_x)
        out = {}
        for act in cfg.activations:
            run = train_nonlinear(data, act, cfg.width, cfg.kappa, cfg.lr, cfg.steps, cfg.lam,
                                  seed=cfg.seed + 1)
            out[f"pre__{act}"], out[f"post__{act}"], out["t"] = run.alpha_pre, run.alpha_post, run.t
        return out
    return cached("abstraction/nonlinear", cfg, compute)


FINITE_WIDTH_TOL = 0.05
"""How far a trained finite network's |alpha_post| may exceed |alpha_pre| before it counts against the
attenuation law (ours). erf nearly preserves alpha, and at ci width its end gap |post| - |pre| was
-0.014 with the chapters' seeds and +0.011 with seeds shifted by 1000: finite-width noise of about
0.015, so 0.05 leaves a margin of three times that."""


def anti_abstraction_config(scale: str) -> NonlinearConfig:
    """The paper's setting for ReLU anti-abstraction: very noisy inputs (``nu_x`` = 0.9, within-class
    noise 1), a clean target (``nu_y`` = 0), erf beside ReLU."""
    return NonlinearConfig.preset(scale, nu_x=0.9, nu_y=0.0, noise_x=1.0, n_per_class=10, d_in=16,
                                  activations=("erf", "relu"))


def anti_abstraction_claims(res: Arrays) -> dict[str, Any]:
    """The ReLU layer's pre-activation alpha at the end of training in the anti-abstraction setting
    (the paper: towards -1 despite a clean target). Pre-activations, because the attenuation law
    (|alpha_post| <= |alpha_pre|) makes them the first to show it."""
    return {"abstraction.relu_anti_abstraction": float(res["pre__relu"][-1])}


def nonlinear_claims(res: Arrays, activations: tuple[str, ...]) -> dict[str, Any]:
    """How many activations end training with |alpha_post| > |alpha_pre| + :data:`FINITE_WIDTH_TOL`
    (noise-free data)."""
    ends = [abs(res[f"post__{a}"][-1]) > abs(res[f"pre__{a}"][-1]) + FINITE_WIDTH_TOL for a in activations]
    return {"abstraction.sim_attenuation_end_violations": int(sum(ends))}


# --- GELU ablation -----------------------------------------------------------------------------

@dataclass(frozen=True)
class AblationConfig(Preset):
    """A small residual GELU MLP on a two-factor task, every block's GELU replaced by the identity in
    turn; ``net`` holds the data, model and training settings (see :class:`GeluNetConfig`)."""

    net: GeluNetConfig = GeluNetConfig()
    seeds: int = 5
    seed: int = 0

    PRESETS: ClassVar = {"ci": dict(seeds=3), "book": dict(seeds=10), "paper": dict(seeds=50)}

    def __post_init__(self):
        check_positive_int("seeds", self.seeds)


def run_ablation(cfg: AblationConfig) -> Arrays:
    """Per (seed, block, concept): alpha and cross-context probe accuracy, intact and ablated."""
    def compute() -> Arrays:
        table = ablation_table(cfg.net, seeds=range(cfg.seed, cfg.seed + cfg.seeds))
        return {"alpha_intact": table.alpha_intact, "alpha_ablated": table.alpha_ablated,
                "probe_intact": table.probe_intact, "probe_ablated": table.probe_ablated,
                "test_accuracy": table.test_accuracy}
    return cached("abstraction/ablation", cfg, compute)


def ablation_claims(res: Arrays) -> dict[str, Any]:
    """The fraction of (seed, block) pairs whose alpha, and whose probe accuracy, goes up when the
    block's GELU is replaced by the identity: the paper's direction of change."""
    a_up = res["alpha_ablated"].mean(-1) > res["alpha_intact"].mean(-1)
    p_up = res["probe_ablated"].mean(-1) > res["probe_intact"].mean(-1)
    return {"abstraction.gelu_alpha_up_fraction": float(a_up.mean()),
            "abstraction.gelu_probe_up_fraction": float(p_up.mean())}


def ablation_levels(res: Arrays) -> dict[str, float]:
    """Mean alpha and probe accuracy, intact and ablated. Not claims: the paper's levels are
    Gemma's, which ours do not compare with (``claims.toml``, not reproduced here)."""
    return {f"gelu_{score}_{state}": float(res[f"{score}_{state}"].mean())
            for score in ("alpha", "probe") for state in ("intact", "ablated")}


def _configs(scale: str) -> dict[str, Any]:
    """Every experiment's config at ``scale``, by experiment name."""
    return {"linear": LinearConfig.preset(scale), "rich": rich_config(scale),
            "terminal_grid": TerminalGridConfig.preset(scale),
            "kappa": KappaConfig.preset(scale),
            "depth": DepthConfig.preset(scale), "kernels": KernelConfig.preset(scale),
            "nonlinear": NonlinearConfig.preset(scale), "anti_abstraction": anti_abstraction_config(scale),
            "ablation": AblationConfig.preset(scale)}


def jobs(scale: str) -> list[Job]:
    """The study's independent trained experiments at ``scale`` (the kappa sweep is closed-form)."""
    cfg = _configs(scale)
    return [Job(run_linear, (cfg["linear"],)), Job(run_linear, (cfg["rich"],)),
            Job(run_terminal_grid, (cfg["terminal_grid"],)),
            Job(run_depth, (cfg["depth"],)),
            Job(run_kernels, (cfg["kernels"],)), Job(run_nonlinear, (cfg["nonlinear"],)),
            Job(run_nonlinear, (cfg["anti_abstraction"],)), Job(run_ablation, (cfg["ablation"],))]


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
    claims |= nonlinear_claims(run_nonlinear(cfg["nonlinear"]), cfg["nonlinear"].activations)
    claims |= anti_abstraction_claims(run_nonlinear(cfg["anti_abstraction"]))
    claims |= ablation_claims(run_ablation(cfg["ablation"]))
    return claims
