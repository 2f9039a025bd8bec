"""The nonlinear experiments: the kernel maps against Monte Carlo and the attenuation law; finite-width
networks with one nonlinear hidden layer, pre- against post-activations; where ReLU turns
anti-abstract with noisy inputs. Chapter: nonlinear networks."""

import math
from dataclasses import dataclass
from functools import partial
from itertools import product
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy.special import erf

from interp_repro.abstraction.data import check_nu, two_factor_data
from interp_repro.abstraction.experiments.setting import (
    TwoFactorSetting,
    check_data_fields,
    check_training_fields,
)
from interp_repro.abstraction.measures import (
    abstraction_score,
    attenuation_check,
    attenuation_excess,
    attenuation_violations,
    erf_kernel,
    gelu,
    gelu_kernel,
    largest_gap,
    leaky_relu,
    leaky_relu_kernel,
    monte_carlo_kernel,
    random_two_factor_kernels,
    relu,
    relu_kernel,
    theory_for,
)
from interp_repro.abstraction.model import ACTIVATIONS, LEAKY_SLOPE
from interp_repro.abstraction.train import train_nonlinear
from interp_repro.core import (
    Arrays,
    cached,
    check_choices,
    check_nonnegative,
    check_positive,
    check_positive_int,
    check_tuple,
    progress,
)
from interp_repro.core.estimate import Estimate
from interp_repro.core.parallel import Job, run_jobs
from interp_repro.core.presets import Preset
from interp_repro.core.seeding import check_seed
from interp_repro.core.table import declares
from interp_repro.core.validate import check_field_types


def _stored(kind: str, name: str) -> str:
    """The key under which a cache entry (a flat ``.npz`` archive) holds the ``kind`` array of ``name``,
    e.g. ``pre__erf``: only this module reads and writes these keys."""
    return f"{kind}__{name}"


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
        check_field_types(self)
        check_positive_int("n_kernels", self.n_kernels)
        check_positive_int("mc_samples", self.mc_samples)
        check_positive_int("mc_kernels", self.mc_kernels)
        check_seed("seed", self.seed)


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


@declares("abstraction.attenuation_violations_erf", "abstraction.attenuation_violations_leaky_relu",
           "abstraction.attenuation_violations_relu", "abstraction.kernel_mc_max_error")
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
        check_training_fields(self)
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
    theory: np.ndarray | None
    """(T,) alpha(t) of the exact linear theory on the same data from the same initialisation scale
    (infinite width): what a network that follows the linear theory would show. None with
    within-class noise, where the theory's two-factor spectrum does not hold."""


def run_nonlinear(cfg: NonlinearConfig) -> PrePost:
    """Train one network per activation of ``cfg.activations`` on the same data."""
    def compute() -> Arrays:
        data = cfg.data(noise_x=cfg.noise_x)
        out = {}
        for act in cfg.activations:
            run = train_nonlinear(data, act, cfg.width, cfg.kappa, cfg.lr, cfg.steps, cfg.lam,
                                  seed=cfg.seed + 1)
            out[_stored("pre", act)], out[_stored("post", act)] = run.alpha_pre, run.alpha_post
        out["t"] = run.t
        if cfg.noise_x == 0:
            out["theory"] = theory_for(data, cfg.kappa, cfg.lam, run.t)
        return out
    arrays = cached("abstraction/nonlinear", cfg, compute)
    return PrePost(t=arrays["t"], theory=arrays.get("theory"),
                   pre={act: arrays[_stored("pre", act)] for act in cfg.activations},
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
        check_field_types(self)
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
        check_data_fields(self)
        check_positive("kappa", self.kappa)
        check_positive("lr", self.lr)
        check_positive_int("steps", self.steps)


def run_anti_abstraction_row(cfg: AntiAbstractionSweepConfig, i: int) -> Arrays:
    """The networks of the sweep at its ``i``-th nu_x, one job (:func:`anti_abstraction_jobs`):
    ``pre``, ``post`` (len(noise_xs), len(widths), seeds) and the input's own ``alpha_x``."""
    nu_x = cfg.nu_xs[i]

    def compute() -> Arrays:
        shape = (len(cfg.noise_xs), len(cfg.widths), cfg.seeds)
        pre, post, alpha_x = np.empty(shape), np.empty(shape), np.nan
        cells = list(product(enumerate(cfg.noise_xs), range(cfg.seeds)))
        for (j, noise_x), r in progress(cells, f"ReLU anti-abstraction sweep, nu_x = {nu_x}"):
            data = two_factor_data(nu_x, cfg.nu_y, n_per_class=cfg.n_per_class, d_in=cfg.d_in,
                                   d_out=cfg.d_out, seed=cfg.seed + r, noise_x=noise_x, nu_x_max=math.inf)
            alpha_x = abstraction_score(data.X, data.labels)
            for k, width in enumerate(cfg.widths):
                run = train_nonlinear(data, "relu", width, cfg.kappa, cfg.lr, cfg.steps, cfg.lam,
                                      seed=cfg.seed + r + 1)
                pre[j, k, r], post[j, k, r] = run.alpha_pre[-1], run.alpha_post[-1]
        return {"pre": pre, "post": post, "alpha_x": np.array(alpha_x)}
    return cached("abstraction/anti_abstraction_row", {"config": cfg, "row": i}, compute)


def anti_abstraction_jobs(cfg: AntiAbstractionSweepConfig) -> list[Job]:
    """One job per nu_x of the sweep, so that no one job holds the pool's last minutes alone."""
    return [Job(run_anti_abstraction_row, (cfg, i), label=f"nu_x {nu_x}") for i, nu_x in enumerate(cfg.nu_xs)]


def run_anti_abstraction_sweep(cfg: AntiAbstractionSweepConfig) -> Arrays:
    """Train every ReLU network of the sweep (its rows side by side, ``core.parallel.run_jobs``);
    keep alpha at the end of training.

    ``pre``, ``post``: (len(nu_xs), len(noise_xs), len(widths), seeds) shape abstraction of the
    pre- and post-activations. Draw r of a cell uses the data of seed ``seed + r`` (the same draw
    at every width, scaled to each nu_x and noise_x) and the initialisation of seed ``seed + r + 1``,
    as :func:`run_nonlinear` does for r = 0. ``alpha_x``: (len(nu_xs),) the inputs' own alpha,
    (1 - nu_x) / (1 + nu_x) (the class means are exact); ``nu_xs``, ``noise_xs``, ``widths``: the axes.
    """
    run_jobs(anti_abstraction_jobs(cfg), desc="ReLU anti-abstraction sweep")
    rows = [run_anti_abstraction_row(cfg, i) for i in range(len(cfg.nu_xs))]
    return {"pre": np.stack([row["pre"] for row in rows]), "post": np.stack([row["post"] for row in rows]),
            "alpha_x": np.array([float(row["alpha_x"]) for row in rows]), "nu_xs": np.array(cfg.nu_xs),
            "noise_xs": np.array(cfg.noise_xs), "widths": np.array(cfg.widths)}


@declares("abstraction.relu_anti_abstraction")
def anti_abstraction_claims(res: Arrays) -> dict[str, Any]:
    """How far the ReLU pre-activations move towards -1 from where their input starts, with the
    noisiest inputs of the sweep (the paper: towards -1 with very noisy inputs despite a clean target,
    for which the linear theory gives +1): alpha at the end of training minus the input's own alpha_x,
    averaged over every network trained at the largest noise_x (each nu_x, width and seed). The
    statistic is fixed before the data: no cell is picked. Networks are the unit (different widths or
    nu_x give different networks; those of one seed share its data draw, rescaled).
    Pre-activations, because the attenuation law (|alpha_post| <= |alpha_pre|) makes them the first to
    show it."""
    noisiest = int(np.argmax(res["noise_xs"]))
    change = res["pre"][:, noisiest] - res["alpha_x"][:, None, None]
    return {"abstraction.relu_anti_abstraction": Estimate.mean(change.ravel(), "networks")}


def anti_abstraction_levels(res: Arrays) -> dict[str, float]:
    """Where the sweep's seed-mean pre-activation alpha is lowest (``anti_abstraction_pre``), and
    the other numbers there (not claims: the chapter's account of the sweep). ``..._pre_min``,
    ``..._pre_max``: the seeds' range at that cell; ``..._concept_dominant_min``: the lowest
    seed-mean over the cells whose input has nu_x <= 1 (its shape mode at least as strong as its
    interaction mode, alpha_x >= 0: the regime the paper's laws are stated for), left out if the
    sweep has none."""
    mean = res["pre"].mean(-1)
    i, j, k = np.unravel_index(np.argmin(mean), mean.shape)
    levels = {"anti_abstraction_pre": float(mean[i, j, k]),
              "anti_abstraction_nu_x": float(res["nu_xs"][i]),
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


@declares("abstraction.erf_follows_linear_theory", "abstraction.sim_attenuation_end_violations")
def nonlinear_claims(res: PrePost) -> dict[str, Any]:
    """How many activations end training with |alpha_post| > |alpha_pre| + :data:`FINITE_WIDTH_TOL`
    (noise-free data), and how far the erf network's features stray from the exact linear theory over
    the run (the paper: erf is near-linear for small pre-activations, so erf networks follow the
    linear theory)."""
    post_end = np.array([post[-1] for post in res.post.values()])
    pre_end = np.array([res.pre[act][-1] for act in res.post])
    out: dict[str, Any] = {"abstraction.sim_attenuation_end_violations": attenuation_violations(
        post_end, pre_end, FINITE_WIDTH_TOL)}
    if "erf" in res.post and res.theory is not None:
        out["abstraction.erf_follows_linear_theory"] = largest_gap(res.post["erf"], res.theory)
    return out
