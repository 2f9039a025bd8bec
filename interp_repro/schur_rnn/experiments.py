"""The experiments of the Schur-RNN study (Draeger 2026, §4), one config and one ``run_*`` each.

A *unit* is one construction of one size trained on one task, with all its seeds stacked in one
batched program (``train.train``). Units are cached on disk (weights, learning curves, held-out
scores), and so are their ablation profiles, so re-plotting never retrains. Each ``*_claims``
function turns the results into the headline numbers that ``claims.toml`` checks.
"""

from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

import numpy as np
import torch

from interp_repro.core import cached, check_fraction, check_positive_int, torch_generator
from interp_repro.core.parallel import Job, run_jobs
from interp_repro.core.presets import Preset
from interp_repro.schur_rnn.model import CONSTRUCTIONS, rollout
from interp_repro.schur_rnn.schur import (
    ABLATION_BLOCKS,
    ablate_T,
    fvu,
    ordered_real_schur,
    split_indices,
)
from interp_repro.schur_rnn.tasks import TASKS, make_batch, replay_accuracy
from interp_repro.schur_rnn.train import COPY_RECIPE, SCHEDULES, flush_denormals, train

Arrays = dict[str, np.ndarray]

SUBSETS: tuple[tuple[str, ...], ...] = ((), ("CC",), ("RR",), ("RR", "CC"), ("CR",), ("CR", "CC"),
                                         ("RR", "CR"), ("RR", "CR", "CC"))
"""The 8 ablation subsets in the order of Draeger (2026), Figure 1: each even index i and i + 1
differ only by T_CC."""

SUBSET_LABELS = ("full", "-T_CC", "-T_RR", "-T_RR -T_CC", "-T_C→R", "-T_C→R -T_CC", "-T_RR -T_C→R",
                 "all three")

PAPER_COPY_ACCURACY = (1.00, 1.00, 0.876, 0.875, 0.639, 0.639, 0.624, 0.624)
"""Mean replay accuracy per subset (order of :data:`SUBSETS`), dense orthogonal N_h = 72
(Draeger 2026, Figure 1)."""

LEARNED_FVU = 0.1
"""A network has learned a neuroscience task when its full-model FVU is at most this (ours: 90% of
the target's variance explained)."""

STABILIZER_EPS = 0.01
"""An ablation counts as an epsilon-stabilizer when its Delta FVU is at most this (ours)."""

PARTS = ("B", "RR", "CR", "CC")
"""The four pieces of T: diagonal blocks B, then N_RR, T_C->R and N_CC."""


def _check_choices(name: str, values: tuple, allowed: tuple) -> None:
    if not isinstance(values, tuple) or not values:
        raise ValueError(f"{name} must be a non-empty tuple, got {values!r}")
    unknown = [v for v in values if v not in allowed]
    if unknown:
        raise ValueError(f"unknown {name} {unknown}: choose from {allowed}")
    if len(set(values)) != len(values):
        raise ValueError(f"{name} has duplicates: {values}")


# --- one trained unit ---------------------------------------------------------------------------

@dataclass(frozen=True)
class TrainSpec:
    """Everything that determines one trained unit (the cache key of its weights)."""

    task: str
    construction: str
    n_hidden: int
    seeds: int
    steps: int
    batch: int
    lr: float
    clip: float
    schedule: str
    warmup: int
    train_replay: int | None
    seed: int

    def __post_init__(self):
        _check_choices("task", (self.task,), TASKS)
        _check_choices("construction", (self.construction,), CONSTRUCTIONS)
        for name in ("n_hidden", "seeds", "steps", "batch"):
            check_positive_int(name, getattr(self, name))
        if self.schedule not in SCHEDULES:
            raise ValueError(f"unknown schedule {self.schedule!r}: choose one of {SCHEDULES}")


def train_unit(spec: TrainSpec) -> Arrays:
    """Train (or load) one unit: weights W_xh, W_hh, W_hy with a leading seed axis, the training
    curve (steps, seeds), the held-out loss (seeds,) and, for the copy task, replay accuracy."""
    def compute() -> Arrays:
        res = train(spec.task, spec.construction, spec.n_hidden, seeds=spec.seeds, steps=spec.steps,
                    seed=spec.seed, batch=spec.batch, lr=spec.lr, clip=spec.clip, schedule=spec.schedule,
                    warmup=spec.warmup, train_replay=spec.train_replay,
                    desc=f"{spec.task}: {spec.construction} N_h={spec.n_hidden} ({spec.seeds} seeds)")
        out = {"W_xh": res.W_xh, "W_hh": res.W_hh, "W_hy": res.W_hy, "curve": res.curve, "loss": res.loss}
        if res.accuracy is not None:
            out["accuracy"] = res.accuracy
        return out
    return cached("schur_rnn/train", spec, compute)


def schur_parts(T: np.ndarray, r: int) -> np.ndarray:
    """Shares of ||T||_F^2 in B, N_RR, T_C->R and N_CC (order :data:`PARTS`); they sum to 1 (ours)."""
    total = np.sum(T ** 2)
    removed = [np.sum((T - ablate_T(T, r, [name])) ** 2) for name in PARTS[1:]]
    return np.array([total - sum(removed), *removed]) / total


def ablated_matrices(W_hh: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For K matrices (K, N, N): the 8 ablated matrices (8, K, N, N) in :data:`SUBSETS` order, the
    removed Schur mass (8, K), |R| (K,) and the mass shares of :func:`schur_parts` (K, 4)."""
    check_fraction("alpha", alpha)
    K, N, _ = W_hh.shape
    out = np.empty((len(SUBSETS), K, N, N))
    mass = np.empty((len(SUBSETS), K))
    r_size = np.empty(K, dtype=np.int64)
    parts = np.empty((K, len(PARTS)))
    for k in range(K):
        Q, T = ordered_real_schur(W_hh[k])
        r = split_indices(T, alpha)
        r_size[k], parts[k] = r, schur_parts(T, r)
        norm = np.linalg.norm(T)
        for i, subset in enumerate(SUBSETS):
            T_ab = ablate_T(T, r, subset)
            out[i, k] = Q @ T_ab @ Q.T
            mass[i, k] = np.linalg.norm(T - T_ab) / norm
    return out, mass, r_size, parts


def _held_out(task: str, batch: int, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return make_batch(task, batch, torch_generator(seed))


@torch.no_grad()
def ablation_profile(weights: Arrays, task: str, alpha: float, *, seed: int, batch: int) -> Arrays:
    """Each of the 8 ablations of every seed, scored on one held-out batch drawn from ``seed``
    (Draeger 2026, §3): FVU (8, K), Delta FVU, removed Schur mass, S_DeltaT (NaN for the full
    model), and for the copy task replay accuracy (8, K); plus |R| (K,) and the mass shares (K, 4).
    Inputs and readout stay fixed; the readout is not refit."""
    check_positive_int("batch", batch)
    matrices, mass, r_size, parts = ablated_matrices(weights["W_hh"], alpha)
    inputs, targets, mask = _held_out(task, batch, seed)
    keep = mask.bool()
    y = targets[keep].numpy()
    K = weights["W_hh"].shape[0]
    fvus = np.empty((len(SUBSETS), K))
    accuracy = np.empty((len(SUBSETS), K))
    for i in range(len(SUBSETS)):
        outputs = rollout(torch.as_tensor(weights["W_xh"]), matrices[i], weights["W_hy"], inputs)
        fvus[i] = [fvu(outputs[k][keep].numpy(), y) for k in range(K)]
        if task == "copy":
            accuracy[i] = replay_accuracy(outputs, targets, mask).numpy()
    delta = fvus - fvus[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        sens = np.where(mass > 0, delta / np.where(mass > 0, mass, 1.0), np.nan)
    out = {"fvu": fvus, "delta_fvu": delta, "mass": mass, "sensitivity": sens, "r": r_size, "parts": parts}
    if task == "copy":
        out["accuracy"] = accuracy
    return out


def eigen_split(W: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues of one matrix and whether each lies in R (|lambda| >= alpha rho(W), §3)."""
    check_fraction("alpha", alpha)
    lam = np.linalg.eigvals(np.asarray(W, dtype=np.float64))
    return lam, np.abs(lam) >= alpha * np.abs(lam).max()


@torch.no_grad()
def example_rollout(weights: Arrays, task: str, subset: tuple[str, ...], alpha: float, *, instance: int = 0,
                    seed: int = 0) -> dict[str, np.ndarray]:
    """One held-out sequence through seed ``instance``'s full and ablated network: inputs (T, N_x),
    targets (T, N_y), mask (T,), full and ablated outputs (T, N_y)."""
    K = weights["W_hh"].shape[0]
    if isinstance(instance, bool) or not isinstance(instance, int) or not 0 <= instance < K:
        raise ValueError(f"instance must be an integer in [0, {K}), got {instance!r}")
    unknown = sorted(set(subset) - set(ABLATION_BLOCKS))
    if isinstance(subset, str) or unknown:
        raise ValueError(f"subset must be a collection of names from {list(ABLATION_BLOCKS)}, got {subset!r}")
    index = SUBSETS.index(tuple(b for b in ("RR", "CR", "CC") if b in subset))
    matrices, _, _, _ = ablated_matrices(weights["W_hh"][instance:instance + 1], alpha)
    inputs, targets, mask = _held_out(task, 1, seed)
    one = {name: weights[name][instance:instance + 1] for name in ("W_xh", "W_hy")}
    full = rollout(torch.as_tensor(one["W_xh"]), matrices[0], one["W_hy"], inputs)
    ablated = rollout(torch.as_tensor(one["W_xh"]), matrices[index], one["W_hy"], inputs)
    return {"inputs": inputs[:, 0].numpy(), "targets": targets[:, 0].numpy(), "mask": mask[:, 0].numpy(),
            "full": full[0, :, 0].numpy(), "ablated": ablated[0, :, 0].numpy()}


@dataclass
class Unit:
    """One trained unit: its spec, weights and scores (:func:`train_unit`) and its ablation profile."""

    spec: TrainSpec
    weights: Arrays
    profile: Arrays


def _profile(spec: TrainSpec, weights: Arrays, alpha: float, eval_batch: int) -> Arrays:
    """The cached :func:`ablation_profile` of a unit, on held-out data from ``spec.seed + 2``."""
    def compute() -> Arrays:
        with flush_denormals():  # as in training: decaying ablated states would crawl through denormals
            return ablation_profile(weights, spec.task, alpha, seed=spec.seed + 2, batch=eval_batch)
    return cached("schur_rnn/profile", {"spec": spec, "alpha": alpha, "batch": eval_batch}, compute)


def _unit(spec: TrainSpec, alpha: float, eval_batch: int) -> Unit:
    weights = train_unit(spec)
    return Unit(spec, weights, _profile(spec, weights, alpha, eval_batch))


@dataclass(frozen=True)
class Recipe:
    """Training settings shared by the units of one experiment (ours; see ``train.train``)."""

    seeds: int = 4
    steps: int = COPY_RECIPE["steps"]
    batch: int = COPY_RECIPE["batch"]
    lr: float = COPY_RECIPE["lr"]
    clip: float = COPY_RECIPE["clip"]
    schedule: str = COPY_RECIPE["schedule"]
    warmup: int = COPY_RECIPE["warmup"]
    alpha: float = 0.9
    eval_batch: int = 512
    seed: int = 0

    def spec(self, task: str, construction: str, n_hidden: int, train_replay: int | None = None) -> TrainSpec:
        return TrainSpec(task, construction, n_hidden, self.seeds, self.steps, self.batch, self.lr,
                         self.clip, self.schedule, self.warmup, train_replay, self.seed)

    def _check(self) -> None:
        check_fraction("alpha", self.alpha)
        check_positive_int("eval_batch", self.eval_batch)
        self.spec("copy", "default", 1)  # validates the shared fields


# --- copy task: Figure 1, Table 1, accuracy against N_h -----------------------------------------

@dataclass(frozen=True)
class CopyConfig(Recipe, Preset):
    """The copy-task experiments: every construction at every size of ``n_hiddens`` (Figure 1),
    dense orthogonal over ``sweep_n_hiddens`` (accuracy against N_h) and the headline unit over
    ``alphas`` (Table 1)."""

    constructions: tuple[str, ...] = CONSTRUCTIONS
    n_hiddens: tuple[int, ...] = (56, 64, 72)
    sweep_n_hiddens: tuple[int, ...] = (48, 56, 64, 72, 80)
    alphas: tuple[float, ...] = (0.8, 0.85, 0.9, 0.95)
    train_replay: int = COPY_RECIPE["train_replay"]
    headline: tuple[str, int] = ("orthogonal", 72)

    PRESETS: ClassVar = {
        # ci: only the headline unit, 1 of book's 12; a Cayley copy unit would cost as much again for a
        # sanity claim that holds by construction (its normality is unit-tested; book trains it)
        "ci": dict(seeds=2, constructions=("orthogonal",), n_hiddens=(72,), sweep_n_hiddens=(72,)),
        "book": dict(),
        "paper": dict(seeds=10),
    }

    def __post_init__(self):
        self._check()
        _check_choices("constructions", self.constructions, CONSTRUCTIONS)
        for name in ("n_hiddens", "sweep_n_hiddens"):
            values = getattr(self, name)
            if not isinstance(values, tuple) or not values:
                raise ValueError(f"{name} must be a non-empty tuple, got {values!r}")
            for n in values:
                check_positive_int(name, n)
        check_fraction("alphas", self.alphas)
        check_positive_int("train_replay", self.train_replay)
        construction, n_hidden = self.headline
        if construction not in self.constructions or n_hidden not in self.n_hiddens:
            raise ValueError(f"headline {self.headline} must be one of the trained units: constructions "
                             f"{self.constructions} x n_hiddens {self.n_hiddens}")


@dataclass
class CopyResults:
    """Units keyed by (construction, N_h); the dense orthogonal sweep keyed by N_h; the headline
    unit's profile at each alpha of Table 1."""

    grid: dict[tuple[str, int], Unit]
    sweep: dict[int, Unit]
    alphas: dict[float, Arrays]
    headline: tuple[str, int]
    config: dict = field(default_factory=dict)


def _copy_specs(cfg: CopyConfig) -> list[TrainSpec]:
    """The copy-task units: the grid, then the sweep sizes the grid lacks."""
    grid = [(c, n) for c in cfg.constructions for n in cfg.n_hiddens]
    extra = [("orthogonal", n) for n in cfg.sweep_n_hiddens if ("orthogonal", n) not in grid]
    return [cfg.spec("copy", c, n, cfg.train_replay) for c, n in grid + extra]


def _unit_jobs(specs: list[TrainSpec], cfg: Recipe) -> list[Job]:
    return [Job(_unit, (spec, cfg.alpha, cfg.eval_batch)) for spec in specs]


def run_copy(cfg: CopyConfig) -> CopyResults:
    """Train (or load) every copy-task unit and profile its 8 ablations; missing units are trained
    side by side (``core.parallel.run_jobs``)."""
    specs = _copy_specs(cfg)
    run_jobs(_unit_jobs(specs, cfg), desc="copy-task units")
    units = {(s.construction, s.n_hidden): _unit(s, cfg.alpha, cfg.eval_batch) for s in specs}
    grid = {(c, n): units[(c, n)] for c in cfg.constructions for n in cfg.n_hiddens}
    sweep = {n: units[("orthogonal", n)] for n in cfg.sweep_n_hiddens}
    head = grid[cfg.headline]
    alphas = {a: _profile(head.spec, head.weights, a, cfg.eval_batch) for a in cfg.alphas}
    return CopyResults(grid, sweep, alphas, cfg.headline, asdict(cfg))


PROFILE_TOL = 0.01
"""Largest accuracy gap between two ablations that differ only by T_CC for the profile to hold."""
PROFILE_DROP = 0.05
"""Smallest accuracy drop below the full model of -T_RR and of -T_C->R for the profile to hold."""


def profile_holds(accuracy: np.ndarray, tol: float = PROFILE_TOL, drop: float = PROFILE_DROP) -> bool:
    """The paper's profile shape for a seed-mean accuracy vector (8,) in :data:`SUBSETS` order: every
    pair that differs only by T_CC within ``tol``; -T_RR and -T_C->R each at least ``drop`` below
    full; every subset with -T_C->R below every subset without it (ours, from Figure 1's reading)."""
    pairs = max(abs(accuracy[i] - accuracy[i + 1]) for i in range(0, 8, 2))
    with_cr = [accuracy[i] for i, s in enumerate(SUBSETS) if "CR" in s]
    without_cr = [accuracy[i] for i, s in enumerate(SUBSETS) if "CR" not in s]
    return bool(pairs <= tol and accuracy[0] - accuracy[2] >= drop and accuracy[0] - accuracy[4] >= drop
                and max(with_cr) < min(without_cr))


def copy_claims(res: CopyResults) -> dict[str, Any]:
    """Headline numbers of the copy task (Draeger 2026, Figure 1 and Table 1)."""
    acc = res.grid[res.headline].profile["accuracy"].mean(axis=1)
    with_cr = [acc[i] for i, s in enumerate(SUBSETS) if "CR" in s]
    without_cr = [acc[i] for i, s in enumerate(SUBSETS) if "CR" not in s]
    cayley = [u.profile["accuracy"] for (c, _), u in res.grid.items() if c == "cayley"]
    claims: dict[str, Any] = {
        "schur_rnn.copy_full_accuracy": float(acc[0]),
        "schur_rnn.copy_cc_pairs_gap": float(max(abs(acc[i] - acc[i + 1]) for i in range(0, 8, 2))),
        "schur_rnn.copy_rr_accuracy": float(acc[2]),
        "schur_rnn.copy_cr_accuracy": float(acc[4]),
        "schur_rnn.copy_all_removed_accuracy": float(acc[7]),
        "schur_rnn.copy_rr_drop": float(acc[0] - acc[2]),
        "schur_rnn.copy_cr_drop": float(acc[0] - acc[4]),
        "schur_rnn.copy_cr_lowest": bool(max(with_cr) < min(without_cr)),
        "schur_rnn.table1_alphas_holding": int(sum(profile_holds(p["accuracy"].mean(axis=1))
                                                   for p in res.alphas.values())),
    }
    if cayley:
        claims["schur_rnn.copy_cayley_max_change"] = float(max(np.abs(a - a[0]).max() for a in cayley))
    return claims


# --- neuroscience tasks -------------------------------------------------------------------------

@dataclass(frozen=True)
class NeuroConfig(Recipe, Preset):
    """The three neuroscience-style tasks, every construction at one size (specs ours, §4)."""

    tasks: tuple[str, ...] = ("flipflop", "sine", "context")
    constructions: tuple[str, ...] = CONSTRUCTIONS
    n_hidden: int = 64
    steps: int = 3000
    batch: int = 64
    eval_batch: int = 256

    PRESETS: ClassVar = {
        "ci": dict(seeds=2, steps=800),
        "book": dict(),
        "paper": dict(seeds=10, steps=10_000),
    }

    def __post_init__(self):
        self._check()
        _check_choices("tasks", self.tasks, tuple(t for t in TASKS if t != "copy"))
        _check_choices("constructions", self.constructions, CONSTRUCTIONS)
        check_positive_int("n_hidden", self.n_hidden)


def _neuro_specs(cfg: NeuroConfig) -> list[TrainSpec]:
    return [cfg.spec(t, c, cfg.n_hidden) for t in cfg.tasks for c in cfg.constructions]


def run_neuro(cfg: NeuroConfig) -> dict[tuple[str, str], Unit]:
    """Train (or load) one unit per (task, construction) and profile its 8 ablations; missing units
    are trained side by side (``core.parallel.run_jobs``)."""
    specs = _neuro_specs(cfg)
    run_jobs(_unit_jobs(specs, cfg), desc="neuroscience units")
    return {(s.task, s.construction): _unit(s, cfg.alpha, cfg.eval_batch) for s in specs}


def stabilizer_sets(profile: Arrays, eps: float = STABILIZER_EPS) -> list[frozenset[int]]:
    """Per seed, the ablations (indices into :data:`SUBSETS`) that remove some Schur mass and change
    FVU by at most ``eps``. An ablation of an empty block (e.g. N_RR when |R| = 1) removes nothing
    and is not counted."""
    check_fraction("eps", eps)
    ok = (profile["delta_fvu"][1:] <= eps) & (profile["mass"][1:] > 0)
    return [frozenset(int(i) + 1 for i in np.flatnonzero(ok[:, k])) for k in range(ok.shape[1])]


def neuro_claims(res: dict[tuple[str, str], Unit]) -> dict[str, Any]:
    """Training quality, Cayley invariance, how the stabilizer sets vary by task, and how far two
    seeds that both learned a task differ in the damage of one ablation."""
    tasks = sorted({t for t, _ in res})
    dense = [c for c in CONSTRUCTIONS if c != "cayley" and (tasks[0], c) in res]
    claims: dict[str, Any] = {}
    medians = [np.median(res[(t, "orthogonal")].profile["fvu"][0]) for t in tasks if (t, "orthogonal") in res]
    if medians:
        claims["schur_rnn.neuro_tasks_learned"] = int(sum(m <= LEARNED_FVU for m in medians))
    cayley = [u.profile["delta_fvu"] for (_, c), u in res.items() if c == "cayley"]
    if cayley:
        claims["schur_rnn.neuro_cayley_max_dfvu"] = float(max(np.abs(d).max() for d in cayley))
    per_task = {t: {s for c in dense for s in stabilizer_sets(res[(t, c)].profile)} for t in tasks}
    claims["schur_rnn.neuro_tasks_distinct_profiles"] = len({frozenset(v) for v in per_task.values()})
    learned = [res[(t, c)].profile for t in tasks for c in dense
               if (res[(t, c)].profile["fvu"][0] <= LEARNED_FVU).all()]
    claims["schur_rnn.neuro_seed_dfvu_spread"] = float(max(
        (np.ptp(p["delta_fvu"], axis=1).max() for p in learned), default=0.0))
    return claims


def seed_dependent_units(res: dict[tuple[str, str], Unit]) -> int:
    """How many (task, dense construction) units have seeds that disagree on their epsilon-stabilizers."""
    return int(sum(len(set(stabilizer_sets(u.profile))) > 1 for (_, c), u in res.items() if c != "cayley"))


def jobs(scale: str) -> list[Job]:
    """The study's independent cached computations at ``scale``: one per unit (train, profile)."""
    copy, neuro = CopyConfig.preset(scale), NeuroConfig.preset(scale)
    return _unit_jobs(_copy_specs(copy), copy) + _unit_jobs(_neuro_specs(neuro), neuro)


def run_all(scale: str) -> dict[str, Any]:
    """Run every experiment of the study at ``scale`` (cached) and return all headline numbers."""
    run_jobs(jobs(scale), desc="units")
    copy, neuro = CopyConfig.preset(scale), NeuroConfig.preset(scale)
    return copy_claims(run_copy(copy)) | neuro_claims(run_neuro(neuro))
