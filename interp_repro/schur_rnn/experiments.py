"""The experiments of the Schur-RNN study (Draeger 2026, §4), one config and one ``run_*`` each.

A *unit* is one construction of one size trained on one task, with all its seeds stacked in one
batched program (``train.train``). Each unit is cached on disk twice: what training returned
(weights, learning curves, held-out scores) and its ablation profile (``measures.ablation_profile``),
so re-plotting never retrains. Each ``*_claims`` function reads the results through ``measures``
into the headline numbers that ``claims.toml`` checks.
"""

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from interp_repro.core import (
    Arrays,
    Unit,
    cached,
    check_choices,
    check_fraction,
    check_nonnegative_int,
    check_positive,
    check_positive_int,
    check_probability,
    check_tuple,
    default_device,
)
from interp_repro.core.device import flush_denormals
from interp_repro.core.estimate import Estimate
from interp_repro.core.parallel import Job, run_jobs
from interp_repro.core.presets import Preset
from interp_repro.core.seeding import check_seed
from interp_repro.core.table import Experiment, declares, table_claims, table_jobs
from interp_repro.core.validate import check_field_types
from interp_repro.schur_rnn.data import COPY_REPLAY, TASKS
from interp_repro.schur_rnn.measures import (
    ABLATION_BLOCKS,
    PAPER_LEVEL_TOL,
    STABILIZER_EPS,
    SUBSET_LABELS,
    ablation_profile,
    accuracy_drop,
    cc_pairs_gap,
    cr_lowest,
    distinct_stabilizer_profiles,
    every_seed_learned,
    example_rollout,
    largest_change,
    profile_holds,
    seed_dependent_flags,
    seed_dependent_units,
    seed_spread,
    seeds_within,
    shared_split_interval,
    stabilizer_sets,
    subset_index,
    target_variance,
    task_learned,
)
from interp_repro.schur_rnn.model import CONSTRUCTION_LABELS, CONSTRUCTIONS
from interp_repro.schur_rnn.train import (
    COPY_RECIPE,
    NEURO_RECIPE,
    RECIPE_PROFILES,
    SCHEDULES,
    full_replay_steps,
    train,
)

PAPER_COPY_ACCURACY = (1.00, 1.00, 0.876, 0.875, 0.639, 0.639, 0.624, 0.624)
"""Mean replay accuracy per subset (order of ``measures.SUBSETS``), dense orthogonal N_h = 72
(Draeger 2026, Figure 1)."""


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
    full_replay_share: float = 0.0

    def __post_init__(self):
        check_field_types(self)
        check_choices("task", (self.task,), TASKS)
        check_choices("construction", (self.construction,), CONSTRUCTIONS)
        for name in ("n_hidden", "seeds", "steps", "batch"):
            check_positive_int(name, getattr(self, name))
        check_choices("schedule", (self.schedule,), SCHEDULES)
        check_positive("lr", self.lr)
        check_positive("clip", self.clip)
        check_nonnegative_int("warmup", self.warmup)
        check_seed("seed", self.seed)
        if self.train_replay is not None:
            check_positive_int("train_replay", self.train_replay)
        if check_probability("full_replay_share", self.full_replay_share) and self.train_replay is None:
            raise ValueError(f"full_replay_share={self.full_replay_share!r} needs a shorter train_replay to "
                             "switch from")


def replay_schedule(spec: TrainSpec) -> str:
    """How a copy unit trained: on the short replay throughout, or with its last steps on the full
    replay that is scored."""
    if not spec.full_replay_share:
        return f"{spec.train_replay}-step replay"
    return (f"{spec.train_replay}-step replay, last {full_replay_steps(spec.steps, spec.full_replay_share)} "
            f"steps on {COPY_REPLAY}")


def train_or_load(spec: TrainSpec) -> Arrays:
    """Train (or load) the unit of ``spec`` (cached): weights W_xh, W_hh, W_hy with a leading seed
    axis, the training curve (steps, seeds), the held-out loss (seeds,) and, for the copy task, replay
    accuracy."""
    def compute() -> Arrays:
        res = train(spec.task, spec.construction, spec.n_hidden, seeds=spec.seeds, steps=spec.steps,
                    seed=spec.seed, batch=spec.batch, lr=spec.lr, clip=spec.clip, schedule=spec.schedule,
                    warmup=spec.warmup, train_replay=spec.train_replay,
                    full_replay_share=spec.full_replay_share, device=default_device(),
                    desc=f"{spec.task}: {spec.construction} N_h={spec.n_hidden} ({spec.seeds} seeds)")
        out = {"W_xh": res.W_xh, "W_hh": res.W_hh, "W_hy": res.W_hy, "curve": res.curve, "loss": res.loss}
        if res.accuracy is not None:
            out["accuracy"] = res.accuracy
        return out
    return cached("schur_rnn/train", spec, compute)


def profile_unit(spec: TrainSpec, trained: Arrays, alpha: float, eval_batch: int) -> Arrays:
    """The cached ``measures.ablation_profile`` of a unit at split ``alpha``, on held-out data from
    ``spec.seed + 2`` (the sequences training scored)."""
    def compute() -> Arrays:
        with flush_denormals():  # as in training: decaying ablated states would crawl through denormals
            return ablation_profile(trained, spec.task, alpha, seed=spec.seed + 2, batch=eval_batch)
    # sensitivity is NaN where an ablation removes no Schur mass (the full model): Delta FVU / 0
    return cached("schur_rnn/profile", {"spec": spec, "alpha": alpha, "eval_batch": eval_batch}, compute,
                  nonfinite=("sensitivity",))


def run_unit(spec: TrainSpec, alpha: float, eval_batch: int) -> Unit[TrainSpec]:
    """Train (or load) one unit and profile its 8 ablations at split ``alpha``."""
    trained = train_or_load(spec)
    return Unit(spec, trained, profile_unit(spec, trained, alpha, eval_batch))


@dataclass(frozen=True)
class UnitSettings:
    """What the units of one experiment share (ours): how they train (``train.train``; the defaults
    are ``train.COPY_RECIPE``), their seeds, and the split ``alpha`` and batch of their profiles."""

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

    def spec(self, task: str, construction: str, n_hidden: int, train_replay: int | None = None,
             full_replay_share: float = 0.0, seeds: int | None = None) -> TrainSpec:
        """The unit ``(task, construction, n_hidden)`` with these settings (``seeds`` overrides theirs)."""
        return TrainSpec(task, construction, n_hidden, self.seeds if seeds is None else seeds, self.steps,
                         self.batch, self.lr, self.clip, self.schedule, self.warmup, train_replay, self.seed,
                         full_replay_share)

    def __post_init__(self):
        check_field_types(self)
        check_fraction("alpha", self.alpha)
        check_positive_int("eval_batch", self.eval_batch)
        self.spec("copy", "default", 1)  # validates the shared fields


# --- copy task: Figure 1, Table 1, accuracy against N_h -----------------------------------------

FULL_REPLAY_FOR = ("headline", "all")
"""Which copy units end their training on the full replay (:attr:`CopyConfig.full_replay_for`)."""


@dataclass(frozen=True)
class CopyConfig(UnitSettings, Preset):
    """The copy-task experiments: every construction at every size of ``n_hiddens`` (Figure 1),
    dense orthogonal over ``sweep_n_hiddens`` (accuracy against N_h) and the headline unit over
    ``alphas`` (Table 1).

    The headline unit, which every copy claim but the Cayley sanity check reads (Figure 1 and
    Table 1), trains ``headline_seeds`` seeds with ``COPY_RECIPE``: the last ``full_replay_share`` of
    its steps on the full 128-step replay that is scored. With ``full_replay_for="headline"`` the other
    units train ``seeds`` seeds on the ``train_replay`` steps alone, at about 60% of the cost per seed
    (ours, to fit the study's time budget; the costs are in ``train.COPY_RECIPE``); ``"all"`` trains
    every unit as the headline one.
    """

    constructions: tuple[str, ...] = CONSTRUCTIONS
    n_hiddens: tuple[int, ...] = (56, 64, 72)
    sweep_n_hiddens: tuple[int, ...] = (48, 56, 64, 72, 80)
    alphas: tuple[float, ...] = (0.8, 0.85, 0.9, 0.95)
    train_replay: int = COPY_RECIPE["train_replay"]
    full_replay_share: float = COPY_RECIPE["full_replay_share"]
    full_replay_for: str = "headline"
    headline: tuple[str, int] = ("orthogonal", 72)
    headline_seeds: int = 10

    PRESETS: ClassVar = {
        # ci: only the headline unit, 1 of book's 14, with 4 seeds so that its seed means sit steadily
        # on one side of the claims' bands; a Cayley copy unit would cost as much again for a sanity
        # claim that holds by construction (its normality is unit-tested; book trains it)
        "ci": dict(headline_seeds=4, constructions=("orthogonal",), n_hiddens=(72,),
                   sweep_n_hiddens=(72,)),
        "book": dict(),
        "paper": dict(seeds=10, headline_seeds=20, full_replay_for="all"),
    }

    def __post_init__(self):
        super().__post_init__()
        check_choices("constructions", self.constructions, CONSTRUCTIONS)
        for name in ("n_hiddens", "sweep_n_hiddens"):
            for n in check_tuple(name, getattr(self, name)):
                check_positive_int(name, n)
        check_fraction("alphas", self.alphas)
        check_positive_int("train_replay", self.train_replay)
        check_probability("full_replay_share", self.full_replay_share)
        check_choices("full_replay_for", (self.full_replay_for,), FULL_REPLAY_FOR)
        check_positive_int("headline_seeds", self.headline_seeds)
        construction, n_hidden = check_tuple("headline", self.headline, 2)
        if construction not in self.constructions or n_hidden not in self.n_hiddens:
            raise ValueError(f"headline {self.headline} must be one of the trained units: constructions "
                             f"{self.constructions} x n_hiddens {self.n_hiddens}")

    def specs(self) -> list[TrainSpec]:
        """The copy-task units: the grid, then the sweep sizes the grid lacks."""
        grid = [(c, n) for c in self.constructions for n in self.n_hiddens]
        extra = [("orthogonal", n) for n in self.sweep_n_hiddens if ("orthogonal", n) not in grid]
        return [self._copy_spec(c, n) for c, n in grid + extra]

    def _copy_spec(self, construction: str, n_hidden: int) -> TrainSpec:
        if (construction, n_hidden) == self.headline:
            return self.spec("copy", construction, n_hidden, self.train_replay, self.full_replay_share,
                             self.headline_seeds)
        share = self.full_replay_share if self.full_replay_for == "all" else 0.0
        return self.spec("copy", construction, n_hidden, self.train_replay, share)


@dataclass
class CopyResults:
    """Units keyed by (construction, N_h); the dense orthogonal sweep keyed by N_h; the headline
    unit's profile at each alpha of Table 1."""

    grid: dict[tuple[str, int], Unit[TrainSpec]]
    sweep: dict[int, Unit[TrainSpec]]
    alphas: dict[float, Arrays]
    headline: tuple[str, int]


def run_copy(cfg: CopyConfig) -> CopyResults:
    """Train (or load) every copy-task unit and profile its 8 ablations; missing units are trained
    side by side (``core.parallel.run_jobs``)."""
    run_jobs(_unit_jobs(cfg), desc="copy-task units")
    units = {(s.construction, s.n_hidden): run_unit(s, cfg.alpha, cfg.eval_batch) for s in cfg.specs()}
    grid = {(c, n): units[(c, n)] for c in cfg.constructions for n in cfg.n_hiddens}
    sweep = {n: units[("orthogonal", n)] for n in cfg.sweep_n_hiddens}
    head = grid[cfg.headline]
    alphas = {a: profile_unit(head.spec, head.trained, a, cfg.eval_batch) for a in cfg.alphas}
    return CopyResults(grid, sweep, alphas, cfg.headline)


@declares("schur_rnn.copy_all_removed_accuracy", "schur_rnn.copy_cayley_max_change",
           "schur_rnn.copy_cc_pairs_gap", "schur_rnn.copy_cr_accuracy", "schur_rnn.copy_cr_drop",
           "schur_rnn.copy_cr_lowest", "schur_rnn.copy_full_accuracy", "schur_rnn.copy_rr_accuracy",
           "schur_rnn.copy_rr_drop", "schur_rnn.table1_alphas_holding")
def copy_claims(res: CopyResults) -> dict[str, Any]:
    """Headline numbers of the copy task (Draeger 2026, Figure 1 and Table 1)."""
    per_seed = res.grid[res.headline].measured["accuracy"]  # (8 ablations, seeds)
    acc = per_seed.mean(axis=1)
    cayley = [u.measured["accuracy"] for (c, _), u in res.grid.items() if c == "cayley"]

    def over_seeds(values: np.ndarray) -> Estimate:
        return Estimate.mean(values, "seeds")

    claims: dict[str, Any] = {
        "schur_rnn.copy_full_accuracy": over_seeds(per_seed[subset_index(())]),
        "schur_rnn.copy_cc_pairs_gap": cc_pairs_gap(acc),
        "schur_rnn.copy_rr_accuracy": over_seeds(per_seed[subset_index({"RR"})]),
        "schur_rnn.copy_cr_accuracy": over_seeds(per_seed[subset_index({"CR"})]),
        "schur_rnn.copy_all_removed_accuracy": over_seeds(per_seed[subset_index(ABLATION_BLOCKS)]),
        "schur_rnn.copy_rr_drop": over_seeds([accuracy_drop(a, {"RR"}) for a in per_seed.T]),
        "schur_rnn.copy_cr_drop": over_seeds([accuracy_drop(a, {"CR"}) for a in per_seed.T]),
        "schur_rnn.copy_cr_lowest": cr_lowest(acc),
        "schur_rnn.table1_alphas_holding": int(sum(profile_holds(p["accuracy"].mean(axis=1))
                                                   for p in res.alphas.values())),
    }
    if cayley:
        claims["schur_rnn.copy_cayley_max_change"] = max(largest_change(a) for a in cayley)
    return claims


COPY_SEED_LEVELS = {"full": (), "cc": ("CC",), "rr": ("RR",), "cr": ("CR",), "all": ABLATION_BLOCKS}
"""The ablations whose seed counts the copy chapter states (:func:`copy_seed_levels`), by the suffix of
their glued name."""

OTHER_CONSTRUCTIONS = ("default", "normal")
"""The dense constructions whose eigenvalues fall inside the alpha rho circle (the copy chapter's
eigenvalue figure), read by :func:`best_other_accuracy`."""


def copy_units_table(res: CopyResults) -> pd.DataFrame:
    """The copy-task units of the grid, one row per (construction, N_h): the full model's replay
    accuracy (mean and minimum over seeds), the number of seeds and how the unit trained
    (:func:`replay_schedule`)."""
    return pd.DataFrame(
        [{"construction": CONSTRUCTION_LABELS[c], "N_h": n,
          "replay accuracy (mean)": u.measured["accuracy"][0].mean(),
          "min over seeds": u.measured["accuracy"][0].min(), "seeds": u.spec.seeds,
          "trained on": replay_schedule(u.spec)}
         for (c, n), u in res.grid.items()])


def recipe_table() -> pd.DataFrame:
    """The paper's copy-task profile beside two of our training recipes' (``train.RECIPE_PROFILES``):
    held-out replay accuracy of the full model and without T_RR, T_C->R and all three blocks."""
    columns = ["full", "-T_RR", "-T_C->R", "all three removed"]
    paper = [PAPER_COPY_ACCURACY[subset_index(s)] for s in ((), {"RR"}, {"CR"}, ABLATION_BLOCKS)]
    rows = {"the paper (Figure 1)": paper, **RECIPE_PROFILES}
    return pd.DataFrame.from_dict(rows, orient="index", columns=columns).rename_axis("training")


def best_other_accuracy(res: CopyResults) -> float | None:
    """The best seed-mean replay accuracy of the full model over the grid's units of
    :data:`OTHER_CONSTRUCTIONS` (the largest "replay accuracy (mean)" of their rows in
    :func:`copy_units_table`); None when none was trained."""
    means = [u.measured["accuracy"][0].mean() for (c, _), u in res.grid.items() if c in OTHER_CONSTRUCTIONS]
    return float(max(means)) if means else None


def headline_ablation_table(res: CopyResults) -> pd.DataFrame:
    """The headline unit's 8 ablations in ``measures.SUBSETS`` order (Figure 1): the paper's mean
    replay accuracy, ours (mean, minimum and maximum over seeds), how many seeds land within
    ``measures.PAPER_LEVEL_TOL`` of the paper's level (``measures.seeds_within``, as "n of K") and the
    Schur mass removed (mean over seeds)."""
    head = res.grid[res.headline]
    acc = head.measured["accuracy"]
    within = seeds_within(acc, PAPER_COPY_ACCURACY)
    return pd.DataFrame({"ablation": SUBSET_LABELS, "paper": PAPER_COPY_ACCURACY,
                         "ours (mean)": acc.mean(axis=1), "ours (min)": acc.min(axis=1),
                         "ours (max)": acc.max(axis=1),
                         f"seeds within {PAPER_LEVEL_TOL:g}": [f"{n} of {acc.shape[1]}" for n in within],
                         "Schur mass removed": head.measured["mass"].mean(axis=1)})


def copy_seed_levels(res: CopyResults) -> dict[str, int]:
    """The copy chapter's seed counts (not claims): ``copy_headline_seeds``, the number of headline
    seeds, and for each ablation of :data:`COPY_SEED_LEVELS` ``copy_within_<name>``, how many of them
    land within ``measures.PAPER_LEVEL_TOL`` of the paper's level (``measures.seeds_within``)."""
    acc = res.grid[res.headline].measured["accuracy"]
    within = seeds_within(acc, PAPER_COPY_ACCURACY)
    return {"copy_headline_seeds": acc.shape[1],
            **{f"copy_within_{name}": int(within[subset_index(blocks)])
               for name, blocks in COPY_SEED_LEVELS.items()}}


def table1(res: CopyResults) -> pd.DataFrame:
    """The Table 1 analogue for the headline unit, one column per split threshold alpha: the seed-mean
    replay accuracy of every ablation (rows ``measures.SUBSET_LABELS``), then |R| (mean over seeds, a
    complex pair counting twice) and whether the profile keeps its shape (``measures.profile_holds``)."""
    table = pd.DataFrame({f"alpha = {a}": p["accuracy"].mean(axis=1) for a, p in res.alphas.items()},
                         index=list(SUBSET_LABELS))
    profiles = res.alphas.values()
    table.loc["|R| (mean)"] = [p["r"].mean() for p in profiles]
    table.loc["profile shape holds"] = [profile_holds(p["accuracy"].mean(axis=1)) for p in profiles]
    return table


def split_levels(res: CopyResults, alpha: float) -> dict[str, float | str]:
    """Why Table 1 hardly depends on alpha (the copy chapter's numbers, not claims): ``split_lo`` and
    ``split_hi``, the thresholds between which every headline seed splits its eigenvalues as ``alpha``
    does (``measures.shared_split_interval``), and ``split_r``, the distinct sizes |R| of those seeds
    at ``alpha`` in increasing order ("64" or "62, 64"). ``alpha`` must be the split the unit was
    profiled at (``CopyConfig.alpha``)."""
    head = res.grid[res.headline]
    lo, hi = shared_split_interval(head.trained["W_hh"], alpha)
    sizes = sorted(set(head.measured["r"].tolist()))
    return {"split_lo": lo, "split_hi": hi, "split_r": ", ".join(map(str, sizes))}


# --- neuroscience tasks -------------------------------------------------------------------------

PAPER_NEURO_FVU = {"flipflop": 0.0048, "sine": 0.0036, "context": 0.0104}
"""Full-model FVU on held-out data of the paper's dense orthogonal networks, N_h = 64 (Draeger 2026,
§4, as a summary of the paper reports them; its task specs are not available, ours are in ``data``)."""


@dataclass(frozen=True)
class NeuroConfig(UnitSettings, Preset):
    """The three neuroscience-style tasks, every construction at N_h = 64 (Draeger 2026, §4; task
    specs ours), trained with ``train.NEURO_RECIPE``: the paper's Adam lr 1e-3 and batch 64, our cosine
    schedule and length.

    The ``headline`` construction, dense orthogonal as in the paper, trains ``headline_seeds`` seeds;
    the others ``seeds`` (ours, to fit the study's time budget).
    """

    tasks: tuple[str, ...] = ("flipflop", "sine", "context")
    constructions: tuple[str, ...] = CONSTRUCTIONS
    n_hidden: int = 64
    seeds: int = 2
    headline: str = "orthogonal"
    headline_seeds: int = 4
    steps: int = NEURO_RECIPE["steps"]
    batch: int = NEURO_RECIPE["batch"]
    lr: float = NEURO_RECIPE["lr"]
    clip: float = NEURO_RECIPE["clip"]
    schedule: str = NEURO_RECIPE["schedule"]
    warmup: int = NEURO_RECIPE["warmup"]
    eval_batch: int = 256

    PRESETS: ClassVar = {
        # ci: the paper's construction alone, 2 seeds on a schedule of 6,000 steps (3,000 leave the
        # context task's median seed near the FVU claims' band edge); Cayley normality is unit-tested
        "ci": dict(constructions=("orthogonal",), headline_seeds=2, steps=6000),
        "book": dict(),
        "paper": dict(seeds=10, headline_seeds=10, steps=20_000),
    }

    def __post_init__(self):
        super().__post_init__()
        check_choices("tasks", self.tasks, (t for t in TASKS if t != "copy"))
        check_choices("constructions", self.constructions, CONSTRUCTIONS)
        check_positive_int("n_hidden", self.n_hidden)
        check_positive_int("headline_seeds", self.headline_seeds)
        if self.headline not in self.constructions:
            raise ValueError(f"headline {self.headline!r} must be one of the constructions "
                             f"{self.constructions}")

    def specs(self) -> list[TrainSpec]:
        """One unit per (task, construction)."""
        return [self.spec(t, c, self.n_hidden, seeds=self.headline_seeds if c == self.headline else None)
                for t in self.tasks for c in self.constructions]


NeuroUnits = dict[tuple[str, str], Unit[TrainSpec]]
"""The neuroscience units by (task, construction), as :func:`run_neuro` returns them."""


def run_neuro(cfg: NeuroConfig) -> NeuroUnits:
    """Train (or load) one unit per (task, construction) and profile its 8 ablations; missing units
    are trained side by side (``core.parallel.run_jobs``)."""
    run_jobs(_unit_jobs(cfg), desc="neuroscience units")
    return {(s.task, s.construction): run_unit(s, cfg.alpha, cfg.eval_batch) for s in cfg.specs()}


@declares("schur_rnn.neuro_cayley_max_dfvu", "schur_rnn.neuro_cc_costly_share",
           "schur_rnn.neuro_fvu_context", "schur_rnn.neuro_fvu_flipflop", "schur_rnn.neuro_fvu_sine",
           "schur_rnn.neuro_seed_dependent_share", "schur_rnn.neuro_tasks_distinct_profiles",
           "schur_rnn.neuro_tasks_learned")
def neuro_claims(res: NeuroUnits) -> dict[str, Any]:
    """Training quality (the dense orthogonal networks' full-model FVU per task, median seed, as the
    paper reports it), Cayley invariance, how the stabilizer sets vary by task and by seed, and, over
    the dense seeds that learned their task, how often removing T_CC alone (free on the copy task)
    costs more than epsilon."""
    tasks = sorted({t for t, _ in res})
    dense = [c for c in CONSTRUCTIONS if c != "cayley" and (tasks[0], c) in res]
    claims: dict[str, Any] = {}
    orthogonal = {t: res[(t, "orthogonal")].measured for t in tasks if (t, "orthogonal") in res}
    if orthogonal:
        claims["schur_rnn.neuro_tasks_learned"] = sum(task_learned(p["fvu"][0]) for p in orthogonal.values())
    for task, profile in orthogonal.items():
        claims[f"schur_rnn.neuro_fvu_{task}"] = Estimate.median(profile["fvu"][0], "seeds")
    cayley = [u.measured["delta_fvu"] for (_, c), u in res.items() if c == "cayley"]
    if cayley:
        claims["schur_rnn.neuro_cayley_max_dfvu"] = max(largest_change(d) for d in cayley)
    claims["schur_rnn.neuro_tasks_distinct_profiles"] = distinct_stabilizer_profiles(
        {t: [res[(t, c)].measured for c in dense] for t in tasks})
    learned = learned_dense_profiles(res)
    if learned:
        claims["schur_rnn.neuro_seed_dependent_share"] = Estimate.share(seed_dependent_flags(learned),
                                                                        "units")
        cc = subset_index({"CC"})  # the block the copy task can lose (Figure 1)
        claims["schur_rnn.neuro_cc_costly_share"] = Estimate.share(
            [cc not in seed for p in learned for seed in stabilizer_sets(p)], "seeds")
    return claims


def learned_dense_profiles(res: NeuroUnits) -> list[Arrays]:
    """The profiles of the dense (not Cayley) units whose every seed learned its task."""
    return [u.measured for (_, c), u in res.items()
            if c != "cayley" and every_seed_learned(u.measured["fvu"][0])]


def target_variances(cfg: NeuroConfig) -> dict[str, float]:
    """Per task of ``cfg``, the variance of the target on the held-out batch that the profiles score
    (``measures.target_variance`` at seed ``cfg.seed + 2``, ``cfg.eval_batch`` trials): what turns a
    training MSE into an FVU."""
    return {t: target_variance(t, seed=cfg.seed + 2, batch=cfg.eval_batch) for t in cfg.tasks}


def neuro_fvu_table(res: NeuroUnits) -> pd.DataFrame:
    """How well each unit learned, one row per (task, construction): seeds, the full model's FVU
    (median and worst seed), the paper's FVU (dense orthogonal only), |R| (mean over seeds) and the
    coupling's share of ||T||_F^2 (1 minus the diagonal blocks' share, mean over seeds)."""
    return pd.DataFrame(
        [{"task": t, "construction": CONSTRUCTION_LABELS[c], "seeds": u.spec.seeds,
          "FVU (median)": np.median(u.measured["fvu"][0]), "FVU (worst seed)": u.measured["fvu"][0].max(),
          "paper's FVU": PAPER_NEURO_FVU[t] if c == "orthogonal" else None,
          "|R| (mean)": u.measured["r"].mean(),
          "coupling share of ||T||²": 1 - u.measured["parts"][:, 0].mean()}
         for (t, c), u in res.items()])


def stabilizer_table(res: NeuroUnits, eps: float = STABILIZER_EPS) -> pd.DataFrame:
    """Each seed's epsilon-stabilizers (``measures.stabilizer_sets`` with ``eps``) by their labels,
    "none" for none: one row per (task, construction), one column per seed."""
    rows = [{"task": t, "construction": CONSTRUCTION_LABELS[c], "seed": k,
             "epsilon-stabilizers": ", ".join(SUBSET_LABELS[i] for i in sorted(s)) or "none"}
            for (t, c), u in res.items() for k, s in enumerate(stabilizer_sets(u.measured, eps))]
    return pd.DataFrame(rows).pivot_table(index=["task", "construction"], columns="seed",
                                          values="epsilon-stabilizers", aggfunc="first")


def neuro_levels(res: NeuroUnits) -> dict[str, int | float | str]:
    """The neuroscience chapter's counts over the dense (not Cayley) units (not claims):
    ``seed_dependent_units`` (``measures.seed_dependent_units``); ``neuro_seed_dfvu_spread``, the
    largest difference between two seeds' Delta FVU for one ablation over the units whose every seed
    learned (``measures.seed_spread``); and ``flipflop_rr_free``, ``flipflop_cc_free``: of the dense
    flip-flop seeds, how many have the removal of N_RR alone, and of N_CC alone, among their
    epsilon-stabilizers ("n of m")."""
    dense = [u.measured for (_, c), u in res.items() if c != "cayley"]
    flipflop = [s for (t, c), u in res.items() if t == "flipflop" and c != "cayley"
                for s in stabilizer_sets(u.measured)]
    free = {block: sum(subset_index({block}) in s for s in flipflop) for block in ("RR", "CC")}
    spread = max((seed_spread(p["delta_fvu"]) for p in learned_dense_profiles(res)), default=0.0)
    return {"seed_dependent_units": seed_dependent_units(dense), "neuro_seed_dfvu_spread": spread,
            **{f"flipflop_{block.lower()}_free": f"{n} of {len(flipflop)}" for block, n in free.items()}}


def neuro_rollouts(res: NeuroUnits, alpha: float) -> dict[str, dict[str, np.ndarray]]:
    """Per task with a dense orthogonal unit, one held-out trial through its first seed, full and
    with all three coupling blocks removed at split ``alpha`` (``measures.example_rollout``)."""
    return {t: example_rollout(u.trained, t, ABLATION_BLOCKS, alpha) for (t, c), u in res.items()
            if c == "orthogonal"}


def _unit_jobs(cfg: CopyConfig | NeuroConfig) -> list[Job]:
    """One job per unit of ``cfg``: train it and profile it at ``cfg.alpha``. Units with more seeds
    (the headline copy unit, the longest job) come first, since ``run_jobs`` starts jobs in order."""
    specs = sorted(cfg.specs(), key=lambda spec: -spec.seeds)
    return [Job(run_unit, (spec, cfg.alpha, cfg.eval_batch), label=f"{spec.task}, {spec.construction}")
            for spec in specs]


EXPERIMENTS: dict[str, Experiment] = {
    "copy": Experiment(CopyConfig.preset, run_copy, (copy_claims,), jobs=_unit_jobs),
    "neuro": Experiment(NeuroConfig.preset, run_neuro, (neuro_claims,), jobs=_unit_jobs),
}
"""The study's experiments (``core.table``), each one job per unit."""


def jobs(scale: str) -> list[Job]:
    """The study's independent cached computations at ``scale``: one per unit (train, profile)."""
    return table_jobs(EXPERIMENTS, scale)


def run_all(scale: str) -> dict[str, Any]:
    """Run every experiment of the study at ``scale`` (cached) and return all headline numbers."""
    return table_claims(EXPERIMENTS, scale, desc="Schur-RNN experiments")
