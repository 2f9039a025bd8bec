"""Zhong et al.'s (2023) own artifacts, shipped in ``zhong_release/`` (MIT licence; its README says
where each file came from): their trained one-layer networks, loaded into our :class:`ModAddNet`, the
random triples their notebook draws for gradient symmetricity, and their sweep table of about 2,400
one-layer networks as the population our networks are compared with.

Zhong's Pizza and Clock values (gradient symmetricity ~0.99 and ~0.33, distance irrelevance ~0.17 and
~0.85) are each one network: "Model A" (attention rate 0) and "Model B" (rate 1) of his
``code/eval-main.ipynb``. His sweep table holds many networks at every attention rate, trained as long
as his (20,000 full-batch steps).
"""

import json
import random
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from interp_repro.core import check_probability, torch_generator
from interp_repro.modular_addition.model import ModAddNet

RELEASE = Path(__file__).with_name("zhong_release")
"""The folder of shipped files."""

MODEL_A, MODEL_B = "p99zdpze5l", "l8k1hzciux"
"""The run ids of Zhong's Model A (uniform attention, his Pizza) and Model B (learnable, his Clock)."""

NETWORKS = (MODEL_A, "n9n7h3p965", "2k4ohj6bhd", "q9rsl94xlv", MODEL_B)
"""The shipped networks our model represents (one layer, ReLU, width 128), by attention rate."""

MODELS = {"pizza": MODEL_A, "clock": MODEL_B}
"""Zhong's example of each algorithm."""

NOTEBOOK = {MODEL_A: (0.9936651682853699, 0.17173645661473538), MODEL_B: (0.3336, 0.8483)}
"""(gradient symmetricity, distance irrelevance) of Models A and B as Zhong's procedure
(``code/eval-main.ipynb``: his 100 triples, the correct logit) gives them: Model A's as his notebook's
saved outputs print them, Model B's to the four decimals of that notebook run on Model B."""

POPULATION_WIDTH = 0.05
"""His sweep draws attention rates uniformly from [0, 1]: the networks within this of a rate stand for
that rate (ours; 121 networks near 0 and 110 near 1)."""

_CONFIG = {"C", "funcs", "n_heads", "d_model", "attn_coeff"}
"""The keys of his config that :func:`load` reads (``n_layers``, ``act_fn``, ``diff_vocab``, ``eqn_sign``
and ``d_head`` too, where present)."""

_STATE = {"embed.W_E", "pos_embed.W_pos", "unembed.W_U", "blocks.0.attn.W_K", "blocks.0.attn.W_Q",
          "blocks.0.attn.W_V", "blocks.0.attn.W_O", "blocks.0.attn.mask", "blocks.0.mlp.W_in",
          "blocks.0.mlp.b_in", "blocks.0.mlp.W_out", "blocks.0.mlp.b_out"}


def path(runid: str) -> Path:
    """The shipped save file of run ``runid``."""
    found = RELEASE / f"model_{runid}.pt"
    if not found.is_file():
        shipped = sorted(p.stem.removeprefix("model_") for p in RELEASE.glob("model_*.pt"))
        raise ValueError(f"no shipped network of Zhong's has run id {runid!r}: choose one of {shipped}")
    return found


def config(save_file: str | Path) -> dict:
    """The config JSON beside one of Zhong's save files (``config_<runid>.json`` for ``model_<runid>.pt``)."""
    save_file = Path(save_file)
    runid = save_file.stem.removeprefix("model_")
    beside = save_file.with_name(f"config_{runid}.json")
    if not save_file.is_file() or not beside.is_file():
        raise ValueError(f"{save_file} needs to be a save file of Zhong's with its config_{runid}.json "
                         "beside it")
    try:
        cfg = json.loads(beside.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"{beside} is not a JSON config: {err}") from None
    missing = sorted(_CONFIG - set(cfg)) if isinstance(cfg, dict) else sorted(_CONFIG)
    if missing:
        raise ValueError(f"{beside} is not a config of Zhong's: it lacks {missing}")
    return cfg


def _refusal(cfg: dict) -> str | None:
    """Why our model cannot represent a network of this config, or None."""
    p = cfg.get("C")
    if cfg.get("funcs") != f"lambda x: (x[0]+x[1])%{p}":
        return f"it learns {cfg.get('funcs')!r}, not (a + b) mod p"
    if cfg.get("n_layers", 1) != 1:
        return f"it has {cfg['n_layers']} layers; ours has one"
    if cfg.get("act_fn") != "ReLU":
        return f"its activation is {cfg.get('act_fn')!r}; ours is ReLU"
    if cfg.get("diff_vocab") or cfg.get("eqn_sign"):
        return "it gives b its own vocabulary or reads an '=' token; ours reads [a, b] from one vocabulary"
    if cfg.get("d_model", 0) % cfg.get("n_heads", 1) or cfg.get("d_head", cfg["d_model"] // cfg["n_heads"]) \
            != cfg["d_model"] // cfg["n_heads"]:
        return f"its head width times {cfg['n_heads']} heads is not its width {cfg['d_model']}"
    return None


def load(save_file: str | Path) -> ModAddNet:
    """One of Zhong's save files (a ``state_dict`` of his ``Transformer``, with its config JSON beside
    it) as a single-instance :class:`ModAddNet` with his attention rate, or a ``ValueError`` that says
    in one line why our model cannot represent it (several layers, GELU, separate vocabularies).

    His layout stores every matrix transposed to ours: ``W_E`` (d, p), ``W_Q/K/V`` (heads, d_head, d),
    ``W_O`` (d, heads * d_head), the MLP's ``W_in`` (d_mlp, d) and ``W_out`` (d, d_mlp). His attention
    mask is stored but never applied, and at the last position it would mask nothing: our model reads
    that position only."""
    cfg = config(save_file)
    why = _refusal(cfg)
    if why:
        raise ValueError(f"{Path(save_file).name}: our model cannot represent this network: {why}")
    state = torch.load(save_file, map_location="cpu", weights_only=True)
    if set(state) != _STATE:
        raise ValueError(f"{Path(save_file).name}: not a one-layer network of Zhong's (parameters "
                         f"{sorted(set(state) ^ _STATE)} differ)")
    d, h = cfg["d_model"], cfg["n_heads"]
    check_probability("the attention rate", cfg["attn_coeff"])
    model = ModAddNet(1, cfg["C"], "attention", torch_generator(0), rate=float(cfg["attn_coeff"]), d_model=d,
                      n_heads=h, d_mlp=state["blocks.0.mlp.W_in"].shape[0])
    attn, mlp = "blocks.0.attn.", "blocks.0.mlp."
    try:
        ours = {"W_E": state["embed.W_E"].T, "W_pos": state["pos_embed.W_pos"],
                **{f"W_{x}": state[f"{attn}W_{x}"].transpose(1, 2) for x in "QKV"},
                "W_O": state[f"{attn}W_O"].T.reshape(h, d // h, d), "W_out": state[f"{mlp}W_out"].T,
                "b_out": state[f"{mlp}b_out"][None], "W_in": state[f"{mlp}W_in"].T,
                "b_in": state[f"{mlp}b_in"][None], "W_U": state["unembed.W_U"]}
        model.load_state_dict({k: v[None].contiguous() for k, v in ours.items()})
    except RuntimeError as err:
        raise ValueError(f"{Path(save_file).name}: its weights do not fit its config: "
                         f"{str(err).splitlines()[-1].strip()}") from None
    return model


def notebook_triples(p: int, n: int = 100, seed: int = 42) -> np.ndarray:
    """The (a, b, c) triples of Zhong's gradient symmetricity (``code/eval-main.ipynb``): every triple
    in lexicographic order, shuffled by Python's ``random.Random(seed)``, the first ``n``; (n, 3).
    Python's generator gives the same shuffle on every machine."""
    every = [(a, b, c) for a in range(p) for b in range(p) for c in range(p)]
    random.Random(seed).shuffle(every)
    return np.array(every[:n])


def sweep() -> pd.DataFrame:
    """Zhong's sweep table, as shipped: one row per one-layer width-128 ReLU network (README)."""
    return pd.read_csv(RELEASE / "sweep_1l_fixedwidth.csv")


MIN_ACCURACY = 0.99
"""A network of Zhong's stands beside ours when it answers at least this share of the pairs it is
tested on (as every one of ours does: the claim ``min_test_accuracy``); one shipped network (rate
0.033) answers 58% of all pairs."""


def population(rate: float, width: float = POPULATION_WIDTH) -> pd.DataFrame:
    """The networks of Zhong's sweep whose attention rate lies within ``width`` of ``rate`` and that
    generalise (validation accuracy at least :data:`MIN_ACCURACY`)."""
    check_probability("rate", rate)
    table = sweep()
    near = (table["attn_coeff"] - rate).abs() <= width
    return table[near & (table["validation_accuracy"] >= MIN_ACCURACY)].reset_index(drop=True)


POPULATION_METRICS = {"grad_sym": "gradient_sim", "dist_irr": "distance_irrelevance"}
"""A claim id's suffix -> the column of Zhong's sweep table holding that metric."""


BAND = (0.05, 0.95)
"""The quantiles of his population that bound a claim: the central 90% of his networks at a rate. The
median of even two networks drawn from his population lands there 98% of the time (of eight, always):
a claim differs only where our networks lie outside where nine in ten of his do."""


MEDIAN_LEVEL = 0.95
"""The share of medians of n of his networks that a population band for a median of n holds."""


def median_band(rate: float, metric: str, n: int, draws: int = 10_000, seed: int = 0) -> tuple[float, float]:
    """Where the median of ``n`` networks drawn from his population at ``rate`` lands (the central
    :data:`MEDIAN_LEVEL` of ``draws`` such medians, drawn with replacement, seeded): the band for our
    median of ``n`` networks, like for like. A band for one network (:data:`BAND`) is too wide for a
    median of many, and would pass a median his population almost never gives."""
    check_probability("rate", rate)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"a median of n networks needs a positive integer n, got {n!r:.40}")
    values = population(rate)[POPULATION_METRICS[metric]].to_numpy()
    medians = np.median(np.random.default_rng(seed).choice(values, size=(draws, n)), axis=1)
    tail = 50 * (1 - MEDIAN_LEVEL)
    low, high = np.percentile(medians, [tail, 100 - tail])
    return float(low), float(high)


def quantiles(rate: float, metric: str, qs: tuple[float, ...]) -> tuple[float, ...]:
    """The quantiles ``qs`` of ``metric`` (a key of :data:`POPULATION_METRICS`) over
    :func:`population` at ``rate`` (linear interpolation, pandas' default)."""
    column = population(rate)[POPULATION_METRICS[metric]]
    return tuple(float(column.quantile(q)) for q in qs)
