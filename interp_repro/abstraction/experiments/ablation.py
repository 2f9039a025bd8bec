"""The local GELU ablation: a small residual GELU network, each block's GELU replaced by the identity
in turn, and how its outcome depends on our choices of network, data and training. Chapter: nonlinear
networks."""

from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from interp_repro.abstraction.data import check_nu
from interp_repro.abstraction.measures import (
    concept_scores,
    same_direction,
    up_flags,
    up_fraction,
)
from interp_repro.abstraction.model import block_hidden, block_representations
from interp_repro.abstraction.train import train_gelu_net
from interp_repro.core import (
    Arrays,
    cached,
    check_choices,
    check_nonnegative,
    check_positive,
    check_positive_int,
    progress,
)
from interp_repro.core.estimate import Estimate
from interp_repro.core.presets import Preset
from interp_repro.core.seeding import check_seed
from interp_repro.core.table import declares
from interp_repro.core.validate import check_field_types


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
        check_field_types(self)
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
        check_field_types(self)
        check_positive_int("seeds", self.seeds)
        check_seed("seed", self.seed)


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


@declares("abstraction.gelu_alpha_up_fraction", "abstraction.gelu_probe_up_fraction")
def ablation_claims(res: Arrays) -> dict[str, Any]:
    """The fraction of (seed, block) pairs whose alpha, and whose probe accuracy, goes up when the
    block's GELU is replaced by the identity: the paper's direction of change. The blocks of one seed
    share its network, so the interval resamples seeds, each with its blocks."""
    out = {}
    for score in ("alpha", "probe"):
        intact = res[f"{score}_intact"]
        flags = np.reshape(up_flags(intact, res[f"{score}_ablated"]), (intact.shape[0], -1))
        out[f"abstraction.gelu_{score}_up_fraction"] = Estimate.share(
            [list(row) for row in flags], "(seed, block) pairs", of="seeds")
    return out


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
        check_field_types(self)
        check_choices("settings", self.settings, GELU_SETTINGS)
        check_positive_int("seeds", self.seeds)
        check_seed("seed", self.seed)


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
