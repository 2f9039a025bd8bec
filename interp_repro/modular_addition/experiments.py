"""The experiments of the modular-addition study (Moisescu-Pareja et al. 2025, on Zhong et al. 2023).

One network = one architecture and one seed: a :class:`TrainSpec`. Its weights and curves are cached
(:func:`train_or_load`), and so is its analysis (``measures.analyse``), so re-plotting never retrains.
:func:`run_networks` returns one ``core.Unit`` per network (``trained``: the curves; ``measured``: the
analysis); each ``*_claims`` function turns them into headline numbers.
"""

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any, ClassVar

import numpy as np
import torch

from interp_repro.core import (
    Arrays,
    Unit,
    cached,
    check_choices,
    check_fraction,
    check_nonnegative,
    check_positive,
    check_positive_int,
    default_device,
)
from interp_repro.core.estimate import Estimate
from interp_repro.core.parallel import Job, run_jobs
from interp_repro.core.presets import Preset
from interp_repro.core.seeding import check_seed
from interp_repro.core.table import Experiment, declares, table_claims, table_jobs
from interp_repro.core.validate import check_field_types
from interp_repro.modular_addition import measures, zhong
from interp_repro.modular_addition.data import check_modulus
from interp_repro.modular_addition.model import INITS, ModAddNet
from interp_repro.modular_addition.topology import (
    alpha_persistence,
    count_bars,
    full_rips_persistence,
    persistence,
)
from interp_repro.modular_addition.train import train

ARCHITECTURES = {"uniform": ("attention", 0.0), "learnable": ("attention", 1.0),
                 "mlp_add": ("mlp_add", 1.0), "mlp_concat": ("mlp_concat", 1.0)}
"""The paper's four architectures: name -> (model kind, ``model.KINDS``; attention rate)."""

EXPECTED_MANIFOLD = {"uniform": "disc", "learnable": "disc", "mlp_add": "disc", "mlp_concat": "torus"}
"""The layer-1 manifold the paper finds for each architecture (§5)."""

SETTLE_TOL = 0.05
"""A training-length curve has settled where it stays within this of its last value (ours: the
measures lie in [0, 1], and 0.05 is about the spread of one over seeds at a fixed length)."""

MIN_NETWORKS_FOR_TEST = 4
"""Networks per architecture below which ``measures.distance_test`` has no power worth a claim: with
2 and 2 there are 6 labellings, so its p-value is never below 1/3."""


@dataclass(frozen=True)
class TrainSpec:
    """Everything that determines one trained network (the cache key of its weights)."""

    architecture: str
    p: int
    seed: int
    steps: int
    lr: float
    weight_decay: float
    train_frac: float
    d_model: int
    n_heads: int
    d_mlp: int
    eval_every: int
    init: str = "reference"

    def __post_init__(self):
        check_field_types(self)
        check_choices("architecture", (self.architecture,), ARCHITECTURES)
        check_choices("init", (self.init,), INITS)
        check_modulus(self.p)
        check_seed("seed", self.seed)
        for name in ("steps", "d_model", "n_heads", "d_mlp", "eval_every"):
            check_positive_int(name, getattr(self, name))
        check_fraction("train_frac", self.train_frac)
        check_positive("lr", self.lr)
        check_nonnegative("weight_decay", self.weight_decay)

    def build(self) -> ModAddNet:
        """An untrained single-instance network of this architecture and size."""
        kind, rate = ARCHITECTURES[self.architecture]
        return ModAddNet(1, self.p, kind, torch.Generator(), rate=rate, d_model=self.d_model,
                         n_heads=self.n_heads, d_mlp=self.d_mlp, init=self.init)


def _train(specs: Sequence[TrainSpec], lengths: tuple[int, ...],
           device: str = "cpu") -> list[dict[int, Arrays]]:
    """Train the networks of ``specs``, alike but for their seeds, as one stacked program on
    ``device``, to the longest of ``lengths`` steps; for each, what the cache stores for the network
    of each length: its weights (``param.*``) and its curves up to that step."""
    first = specs[0]
    if any(replace(s, seed=first.seed) != first for s in specs):
        raise ValueError("stacked networks must differ in their seeds only")
    kind, rate = ARCHITECTURES[first.architecture]
    res = train(kind, first.p, [s.seed for s in specs], steps=max(lengths), rate=rate, lr=first.lr,
                weight_decay=first.weight_decay, train_frac=first.train_frac, eval_every=first.eval_every,
                d_model=first.d_model, n_heads=first.n_heads, d_mlp=first.d_mlp, init=first.init,
                checkpoints=lengths, device=device,
                desc=f"{first.architecture} seeds {', '.join(str(s.seed) for s in specs)}")
    curves = {"train_loss": res.train_loss, "test_loss": res.test_loss, "train_acc": res.train_acc,
              "test_acc": res.test_acc}
    out = []
    for i in range(len(specs)):
        arrays = {}
        for n in lengths:
            upto = res.steps <= n
            arrays[n] = ({f"param.{k}": v[i:i + 1] for k, v in res.checkpoints[n].items()}
                         | {"steps": res.steps[upto]} | {k: v[upto, i] for k, v in curves.items()})
        out.append(arrays)
    return out


def train_or_load(spec: TrainSpec) -> tuple[ModAddNet, Arrays]:
    """Train (or load) the network of ``spec`` (cached); returns the model and its curves (steps,
    train/test loss/acc).
    Like every cached computation it runs on one thread: ``run_networks`` runs one network per core
    instead, which does not slow to a crawl when the machine is busy."""
    arrays = cached("modular_addition/train", spec, lambda: _train([spec], (spec.steps,))[0][spec.steps])
    model = spec.build()
    model.load_state_dict({k.removeprefix("param."): torch.as_tensor(v) for k, v in arrays.items()
                           if k.startswith("param.")})
    return model, {k: v for k, v in arrays.items() if not k.startswith("param.")}


def train_lengths(specs: Sequence[TrainSpec], lengths: tuple[int, ...],
                  device: str = "cpu") -> list[list[TrainSpec]]:
    """The networks of ``specs`` (alike but for their seeds) trained for each of ``lengths`` steps:
    trained once, stacked, to the longest, and cached at every length as the network of that many
    steps (it is: warm-up and learning rate do not depend on the run's length, and the curves are
    evaluated at the same steps), so :func:`train_or_load` loads them. Returns, per spec, the specs
    of its lengths."""
    off = [n for n in lengths if n % specs[0].eval_every]
    if off:
        raise ValueError(f"lengths {off} are not multiples of eval_every = {specs[0].eval_every}: a run "
                         "of that length would be evaluated at its last step, a checkpoint not")
    out = [[replace(spec, steps=n) for n in lengths] for spec in specs]
    runs: list[dict[int, Arrays]] = []

    def checkpoint(i: int, n: int) -> Arrays:
        if not runs:  # the first missing network trains them all (on one CPU thread, inside ``cached``)
            runs.extend(_train(specs, lengths, device))
        return runs[i][n]

    for i, trained in enumerate(out):
        for s in trained:
            cached("modular_addition/train", s, lambda i=i, n=s.steps: checkpoint(i, n))
    return out


def trained_model(unit: Unit[TrainSpec]) -> ModAddNet:
    """The trained network of ``unit``, loaded from the cache."""
    return train_or_load(unit.spec)[0]


@dataclass(frozen=True)
class ModAddConfig(Preset):
    """Networks of every architecture in ``architectures`` over ``seeds`` seeds (Zhong et al.'s
    recipe: AdamW lr 1e-3, weight decay 2.0, train fraction 0.8, full batch), trained for ``steps``
    steps; Zhong trains 20,000, ``paper`` does too. The first ``length_seeds`` seeds of each
    architecture are also trained to each of ``lengths`` steps and analysed there: the
    training-length curves from which the chapter chooses the shorter budgets of ``ci`` and ``book``.
    The ``full_rips_clusters`` largest clusters of the first seed's networks are also checked on every
    point (:func:`run_topology_check`).
    """

    architectures: tuple[str, ...] = tuple(ARCHITECTURES)
    p: int = 59
    seeds: int = 8
    steps: int = 1000
    lr: float = 1e-3
    weight_decay: float = 2.0
    train_frac: float = 0.8
    d_model: int = 128
    n_heads: int = 4
    d_mlp: int = 512
    eval_every: int = 25
    init: str = "reference"
    lengths: tuple[int, ...] = (1000, 3000, 10_000)
    length_seeds: int = 1
    min_cluster: int = 4
    max_clusters: int = 3
    n_landmarks: int = 200
    full_rips_clusters: int = 1
    seed: int = 0

    PRESETS: ClassVar = {
        "ci": dict(seeds=2, lengths=(250, 500, 1000), full_rips_clusters=0),
        "book": dict(),
        "paper": dict(seeds=100, steps=20_000, lengths=(1000, 3000, 10_000, 20_000), length_seeds=3,
                      full_rips_clusters=3),
    }

    def __post_init__(self):
        check_field_types(self)
        check_choices("architectures", self.architectures, ARCHITECTURES)
        for name in ("seeds", "length_seeds", "min_cluster", "max_clusters", "n_landmarks"):
            check_positive_int(name, getattr(self, name))
        checked = self.full_rips_clusters
        if isinstance(checked, bool) or not isinstance(checked, int) or not 0 <= checked <= self.max_clusters:
            raise ValueError(f"full_rips_clusters must be an integer from 0 to max_clusters = "
                             f"{self.max_clusters}, got {checked!r}")
        self.spec(self.architectures[0], self.seed)  # validates the shared fields, eval_every among them
        if not self.lengths or list(self.lengths) != sorted(set(self.lengths)):
            raise ValueError(f"lengths must be increasing step counts, got {self.lengths!r}")
        for n in self.lengths:
            check_positive_int("lengths", n)
            if n % self.eval_every:
                raise ValueError(f"lengths must be multiples of eval_every = {self.eval_every}, got {n}")

    def spec(self, architecture: str, seed: int) -> TrainSpec:
        return TrainSpec(architecture, self.p, seed, self.steps, self.lr, self.weight_decay, self.train_frac,
                         self.d_model, self.n_heads, self.d_mlp, self.eval_every, self.init)


def _analysis_key(cfg: ModAddConfig, spec: TrainSpec) -> dict:
    return {"spec": spec, "min_cluster": cfg.min_cluster, "max_clusters": cfg.max_clusters,
            "n_landmarks": cfg.n_landmarks}


def _unit(cfg: ModAddConfig, spec: TrainSpec) -> Unit[TrainSpec]:
    """Train (or load) and analyse (or load) one network."""
    model, curves = train_or_load(spec)
    measured = cached("modular_addition/analysis", _analysis_key(cfg, spec), lambda: measures.analyse(
        model, cfg.min_cluster, cfg.max_clusters, cfg.n_landmarks))
    return Unit(spec, curves, measured)


def _specs(cfg: ModAddConfig) -> list[TrainSpec]:
    return [cfg.spec(arch, s) for arch in cfg.architectures for s in range(cfg.seed, cfg.seed + cfg.seeds)]


def _unit_and_view(cfg: ModAddConfig, spec: TrainSpec) -> None:
    _unit(cfg, spec)
    run_cluster_view(cfg, spec)


def _network_jobs(cfg: ModAddConfig, views: bool = False) -> list[Job]:
    """One job per network; with ``views``, the first seed's also computes the views the manifolds
    chapter draws (the claims never read them)."""
    return [Job(_unit_and_view if views and spec.seed == cfg.seed else _unit, (cfg, spec),
                label=f"{spec.architecture}, seed {spec.seed}") for spec in _specs(cfg)]


STACK = 64
"""Networks per stacked program when they train on a GPU (ours)."""


def _trained_units(cfg: ModAddConfig, specs: tuple[TrainSpec, ...], lengths: tuple[int, ...],
                   device: str = "cpu") -> list[list[Unit[TrainSpec]]]:
    """Networks alike but for their seeds, trained as one program on ``device`` to each of
    ``lengths`` steps (``train_lengths``) and analysed at every length on the CPU: per spec, one Unit
    per length."""
    return [[_unit(cfg, spec) for spec in trained] for trained in train_lengths(specs, lengths, device)]


def _device_jobs(cfg: ModAddConfig, device: str) -> list[Job]:
    """The networks of ``cfg`` stacked on ``device`` (paper scale on a GPU): per architecture, the
    first ``cfg.length_seeds`` seeds trained to every length and to ``cfg.steps``, then the other
    seeds, :data:`STACK` per program."""
    out = []
    for arch in cfg.architectures:
        specs = [cfg.spec(arch, s) for s in range(cfg.seed, cfg.seed + max(cfg.seeds, cfg.length_seeds))]
        head, rest = specs[:cfg.length_seeds], specs[cfg.length_seeds:]
        out.append(Job(_trained_units, (cfg, tuple(head), tuple(sorted({*cfg.lengths, cfg.steps})), device),
                       label=f"{arch}, every length"))
        out += [Job(_trained_units, (cfg, tuple(rest[i:i + STACK]), (cfg.steps,), device),
                    label=f"{arch}, {len(rest[i:i + STACK])} seeds stacked")
                for i in range(0, len(rest), STACK)]
    return out


def _jobs(cfg: ModAddConfig, lengths: bool = True, networks: bool = True, views: bool = False) -> list[Job]:
    """The jobs that train and analyse ``cfg``'s networks: on the CPU one per network (the length
    runs with ``lengths``, the others with ``networks``, the manifolds chapter's views and topology
    checks with ``views``); on a GPU ($INTERP_REPRO_DEVICE, ``--device``) all of them, stacked."""
    device = default_device()
    if device != "cpu":
        return _device_jobs(cfg, device)
    checks = [Job(run_topology_check, (cfg, cfg.spec(arch, cfg.seed)), label=f"{arch}, full Rips check")
              for arch in cfg.architectures
              if views and cfg.full_rips_clusters and arch not in FULL_RIPS_SKIPPED]
    return (_length_jobs(cfg) if lengths else []) + (_network_jobs(cfg, views) if networks else []) + checks


def _length_jobs(cfg: ModAddConfig) -> list[Job]:
    return [Job(_trained_units, (cfg, (cfg.spec(arch, s),), cfg.lengths),
                label=f"{arch}, seed {s}, every length")
            for arch in cfg.architectures for s in range(cfg.seed, cfg.seed + cfg.length_seeds)]


def run_lengths(cfg: ModAddConfig, workers: int | None = None) -> dict[str, list[list[Unit[TrainSpec]]]]:
    """The training-length experiment (issue: Zhong trains 20,000 steps, our budgets are shorter):
    architecture -> for each of the first ``cfg.length_seeds`` seeds, one Unit per length of
    ``cfg.lengths``. The network at a length is the one :func:`run_networks` trains for that many
    steps, so a length equal to ``cfg.steps`` shares its networks."""
    run_jobs(_jobs(cfg, networks=False), desc="training lengths", workers=workers)
    return {arch: [_trained_units(cfg, (cfg.spec(arch, s),), cfg.lengths)[0]
                   for s in range(cfg.seed, cfg.seed + cfg.length_seeds)] for arch in cfg.architectures}


def length_summary(res: dict[str, list[list[Unit[TrainSpec]]]]) -> dict[str, np.ndarray]:
    """Architecture -> (seeds, lengths, measures) array of ``measures.network_summary`` for the
    results of :func:`run_lengths` (measures in the order of ``measures.NETWORK_SUMMARY``)."""
    def row(unit: Unit[TrainSpec]) -> list[float]:
        return list(measures.network_summary(unit, EXPECTED_MANIFOLD[unit.spec.architecture]).values())

    return {arch: np.array([[row(u) for u in units] for units in seeds]) for arch, seeds in res.items()}


def settling(summary: dict[str, np.ndarray], lengths: tuple[int, ...],
             tol: float = SETTLE_TOL) -> dict[str, list[int]]:
    """Architecture -> for each measure, the length from which its median over seeds stays within
    ``tol`` of its value at the longest length (``measures.settled_at``)."""
    return {arch: [measures.settled_at(lengths, np.median(values[:, :, k], axis=0), tol)
                   for k in range(values.shape[2])] for arch, values in summary.items()}


def length_moves(summary: dict[str, np.ndarray]) -> list[tuple[str, str, float, float, bool]]:
    """Which way Zhong's two metrics move between the first and the longest length, for uniform
    attention against his Pizza and learnable attention against his Clock: (architecture, measure,
    median at the first length, median at the longest, whether it ends nearer Zhong's value)."""
    out = []
    for arch, name in (("uniform", "pizza"), ("learnable", "clock")):
        if arch not in summary:
            continue
        for k, measure in enumerate(measures.NETWORK_SUMMARY[:2]):
            first, last = np.median(summary[arch][:, [0, -1], k], axis=0)
            target = measures.ZHONG_ALGORITHMS[name][k]
            nearer = abs(last - target) < abs(first - target)
            out.append((arch, measure, float(first), float(last), bool(nearer)))
    return out


def network_jobs(cfg: ModAddConfig) -> list[Job]:
    """The jobs :func:`run_networks` reads, and so every claim on our networks: one per network (train,
    analyse), without the training-length runs and the manifolds chapter's views."""
    return _jobs(cfg, lengths=False)


def run_networks(cfg: ModAddConfig, workers: int | None = None) -> dict[str, list[Unit[TrainSpec]]]:
    """Train (or load) and analyse every network: architecture -> one Unit per seed.

    Networks missing from the cache are computed side by side (``core.parallel.run_jobs``: one per
    core by default, or on Dask), one network and one torch thread per process; results do not
    depend on where they ran."""
    run_jobs(network_jobs(cfg), desc="networks", workers=workers)
    out: dict[str, list[Unit[TrainSpec]]] = {arch: [] for arch in cfg.architectures}
    for spec in _specs(cfg):
        out[spec.architecture].append(_unit(cfg, spec))
    return out


def run_cluster_view(cfg: ModAddConfig, spec: TrainSpec) -> Arrays:
    """The largest cluster of one network as the manifolds chapter draws it (cached): its 2-D UMAP
    embedding (``umap``, seed 0) and its persistence diagrams on ``cfg.n_landmarks`` landmarks
    (``h0``, ``h1``, ``h2``: :func:`interp_repro.modular_addition.topology.persistence`)."""
    def compute() -> Arrays:
        unit = _unit(cfg, spec)
        cloud = measures.largest_cluster(trained_model(unit), unit.measured)
        diagrams = persistence(cloud, maxdim=2, n_landmarks=cfg.n_landmarks)
        return {"umap": measures.umap_view(cloud, seed=0), **{f"h{k}": d for k, d in enumerate(diagrams)}}

    # h0 holds the one bar of H0 that never dies (death +inf): persistence's diagrams, as drawn
    return cached("modular_addition/view", _analysis_key(cfg, spec), compute, nonfinite=("h0",))


FULL_RIPS_SKIPPED = ("mlp_concat",)
"""Architectures :func:`run_topology_check` leaves out (measured): full Rips up to H2 on the largest
MLP-Concat cluster, a torus of 3,481 points, had not finished after 20 minutes on one core, where the
disc clusters of the other three took 29 to 82 s."""


def run_topology_check(cfg: ModAddConfig, spec: TrainSpec) -> Arrays:
    """How exact the analysis's Betti numbers are, on the ``cfg.full_rips_clusters`` largest analysed
    clusters of one network (cached): ``full``, Rips on every point (``topology.full_rips_persistence``,
    the reference); ``landmarks``, the analysis's Rips on ``cfg.n_landmarks`` landmarks; ``alpha``, the
    alpha complex on the top-4 PCA projection, exact for the projection; ``pca4``, the variance share
    that projection keeps; ``size``, the clusters' neurons; seconds of the full and alpha computations."""
    def compute() -> Arrays:
        unit = _unit(cfg, spec)
        pre = measures.tables(trained_model(unit))[0][0]
        n = cfg.full_rips_clusters
        full, alpha, t_full, t_alpha = [], [], [], []
        for f in unit.measured["cluster_freqs"][:n]:
            cloud = measures.cluster_cloud(pre, np.flatnonzero(unit.measured["freqs"] == f))
            start = time.perf_counter()
            full.append(count_bars(full_rips_persistence(cloud, maxdim=2)))
            t_full.append(time.perf_counter() - start)
            start = time.perf_counter()
            alpha.append(count_bars(alpha_persistence(cloud, maxdim=2, n_components=min(4, cloud.shape[1]))))
            t_alpha.append(time.perf_counter() - start)
        return {"full": np.array(full), "landmarks": unit.measured["betti"][:n], "alpha": np.array(alpha),
                "pca4": unit.measured["pca"][:n].sum(1), "size": unit.measured["cluster_sizes"][:n],
                "seconds_full": np.array(t_full), "seconds_alpha": np.array(t_alpha)}

    return cached("modular_addition/topology_check", _analysis_key(cfg, spec) | {"n": cfg.full_rips_clusters},
                  compute)


ZHONG_METRICS = {"grad_sym": "gradient_symmetricity", "dist_irr": "distance_irrelevance_top_incorrect"}
"""Zhong et al.'s two metrics as his sweep table computes them: the claim id's suffix -> the key of
``measures.analyse`` (distance irrelevance from the top incorrect logit, like for like with his table;
gradient symmetricity over every triple, where his table's carries the noise of random triples)."""

ZHONG_RATES = {"uniform": 0.0, "learnable": 1.0}
"""The attention rate of each attention architecture: where in Zhong's sweep its population lies."""


@declares("modular_addition.min_test_accuracy", "modular_addition.simple_neuron_r2")
def training_claims(res: dict[str, list[Unit[TrainSpec]]]) -> dict[str, Any]:
    """Test accuracy of every network and how well the simple-neuron model fits layer 1 (median over
    the analysed clusters of their neurons' median R^2)."""
    units = [u for v in res.values() for u in v]
    return {
        "modular_addition.min_test_accuracy": float(min(u.trained["test_acc"][-1] for u in units)),
        "modular_addition.simple_neuron_r2": Estimate.median(
            [list(u.measured["r2"]) for u in units], "clusters", of="networks"),
    }


@declares("modular_addition.learnable_dist_irr", "modular_addition.learnable_grad_sym",
           "modular_addition.uniform_dist_irr", "modular_addition.uniform_grad_sym")
def zhong_metric_claims(res: dict[str, list[Unit[TrainSpec]]]) -> dict[str, Any]:
    """Zhong's two metrics as his sweep table computes them (:data:`ZHONG_METRICS`; medians over
    seeds) for the two attention architectures that are run, held to his population at their rate."""
    return {f"modular_addition.{arch}_{suffix}": Estimate.median([u.measured[metric] for u in res[arch]],
                                                                 "networks")
            for arch in ZHONG_RATES if arch in res for suffix, metric in ZHONG_METRICS.items()}


def population_comparison(res: dict[str, list[Unit[TrainSpec]]], draws: int = 10_000,
                          seed: int = 0) -> list[dict[str, Any]]:
    """Our networks of each attention architecture against Zhong's sweep at its attention rate
    (``zhong.population``), one row per architecture and metric of :data:`ZHONG_METRICS`: the number of
    networks on each side, our median, his quartiles and the claim's band (``zhong.BAND``), the
    two-sided Mann-Whitney p-value, and how often the median of that many of his own networks (drawn
    with replacement, ``draws`` times, seeded) lands in the band: the rate at which the claim passes a
    sample of his population."""
    rows = []
    for arch, rate in ZHONG_RATES.items():
        if arch not in res:
            continue
        his_networks = zhong.population(rate)
        for suffix, metric in ZHONG_METRICS.items():
            ours = np.array([float(u.measured[metric]) for u in res[arch]])
            his = his_networks[zhong.POPULATION_METRICS[suffix]].to_numpy()
            low, q1, median, q3, high = zhong.quantiles(rate, suffix, (zhong.BAND[0], 0.25, 0.5, 0.75,
                                                                       zhong.BAND[1]))
            rows.append({"architecture": arch, "metric": suffix, "ours (n)": ours.size,
                         "ours (median)": float(np.median(ours)), "Zhong (n)": his.size,
                         "Zhong (5%)": low, "Zhong (25%)": q1, "Zhong (median)": median, "Zhong (75%)": q3,
                         "Zhong (95%)": high, "Mann-Whitney p": measures.mann_whitney_p(ours, his),
                         "same-population pass rate": measures.median_in_range_rate(
                             his, ours.size, (low, high), draws=draws, seed=seed)})
    return rows


@dataclass(frozen=True)
class ZhongSpec:
    """One of Zhong's shipped networks (``zhong.NETWORKS``): its run id, modulus and attention rate."""

    runid: str
    p: int
    rate: float


def run_zhong_network(cfg: ModAddConfig, runid: str) -> Unit[ZhongSpec]:
    """One of Zhong's networks, loaded (``zhong.load``) and analysed as ours are (cached):
    ``measures.analyse`` with ``cfg``'s cluster and landmark settings, plus the gradient symmetricity
    over his notebook's 100 triples (``gradient_symmetricity_triples``) and the share of all p^2
    pairs it answers right (``accuracy``)."""
    model = zhong.load(zhong.path(runid))

    def compute() -> Arrays:
        analysis = measures.analyse(model, cfg.min_cluster, cfg.max_clusters, cfg.n_landmarks,
                                    triples=zhong.notebook_triples(model.p))
        return analysis | {"accuracy": np.array(measures.task_accuracy(measures.tables(model)[1][0]))}

    key = {"runid": runid, "min_cluster": cfg.min_cluster, "max_clusters": cfg.max_clusters,
           "n_landmarks": cfg.n_landmarks}
    return Unit(ZhongSpec(runid, model.p, model.rate), {}, cached("modular_addition/zhong", key, compute))


def run_zhong(cfg: ModAddConfig, workers: int | None = None) -> list[Unit[ZhongSpec]]:
    """Every shipped network of Zhong's that our model represents (``zhong.NETWORKS``), analysed."""
    run_jobs(_zhong_jobs(cfg), desc="Zhong's networks", workers=workers)
    return [run_zhong_network(cfg, runid) for runid in zhong.NETWORKS]


def _zhong_jobs(cfg: ModAddConfig) -> list[Job]:
    return [Job(run_zhong_network, (cfg, runid), label=f"Zhong's {runid}") for runid in zhong.NETWORKS]


def zhong_learned(units: Sequence[Unit[ZhongSpec]]) -> list[Unit[ZhongSpec]]:
    """Zhong's networks that learned the task (``zhong.MIN_ACCURACY`` on all pairs)."""
    return [u for u in units if u.measured["accuracy"] >= zhong.MIN_ACCURACY]


def zhong_sides(units: Sequence[Unit[ZhongSpec]]) -> dict[str, list[Unit[ZhongSpec]]]:
    """Zhong's networks that learned the task near each attention architecture's rate (within
    ``zhong.POPULATION_WIDTH``): architecture -> networks; one between the two (rate 0.80) is in
    neither."""
    return {arch: [u for u in zhong_learned(units) if abs(u.spec.rate - rate) <= zhong.POPULATION_WIDTH]
            for arch, rate in ZHONG_RATES.items()}


def zhong_table(units: Sequence[Unit[ZhongSpec]]) -> list[dict[str, Any]]:
    """One row per network of Zhong's (:func:`run_zhong`): his two metrics every way we compute them
    (gradient symmetricity over every triple and over his notebook's 100, with the sampling noise of
    100 random triples; distance irrelevance from the correct and from the largest incorrect logit),
    and the manifold paper's measures of its analysed clusters."""
    names = {zhong.MODEL_A: "Model A", zhong.MODEL_B: "Model B"}
    rows = []
    for u in units:
        m = u.measured
        discs = measures.disc_fraction([u])
        rows.append({"run id": u.spec.runid, "example": names.get(u.spec.runid, ""),
                     "attention rate": u.spec.rate, "accuracy (all pairs)": float(m["accuracy"]),
                     "grad. sym. (every triple)": float(m["gradient_symmetricity"]),
                     "grad. sym. (his 100 triples)": float(m["gradient_symmetricity_triples"]),
                     "noise of 100 triples": float(m["gradient_symmetricity_sd"]) / 10,
                     "dist. irr. (correct logit)": float(m["distance_irrelevance"]),
                     "dist. irr. (top incorrect)": float(m["distance_irrelevance_top_incorrect"]),
                     "disc clusters": f"{round(discs * len(m['betti']))} of {len(m['betti'])}",
                     "top-2 PCA share (median)": float(np.median(m["pca"][:, :2].sum(1))),
                     "CKA to the disc": measures.mean_cka([u], "disc"),
                     "PAD on the diagonal": measures.pad_diagonal_share([u]),
                     "logit circles": f"{int(sum(tuple(b) == (1, 1) for b in m['logit_betti']))} of "
                                      f"{len(m['logit_betti'])}"})
    return rows


@declares("modular_addition.zhong_cka_disc", "modular_addition.zhong_disc_pad_on_diagonal",
           "modular_addition.zhong_learnable_disc_fraction",
           "modular_addition.zhong_logit_circle_fraction", "modular_addition.zhong_model_a_dist_irr",
           "modular_addition.zhong_model_a_grad_sym", "modular_addition.zhong_model_b_dist_irr",
           "modular_addition.zhong_model_b_grad_sym", "modular_addition.zhong_uniform_disc_fraction")
def zhong_claims(units: Sequence[Unit[ZhongSpec]]) -> dict[str, Any]:
    """Our measures on Zhong's own networks: his two metrics on Models A and B by his procedure (his
    100 triples, the correct logit), and the manifold paper's layer-1 and logit manifolds on his
    networks that learned the task: near each attention architecture's rate (:func:`zhong_sides`), and
    all of them for the logit manifolds."""
    by_id = {u.spec.runid: u for u in units}
    out: dict[str, Any] = {}
    for name, runid in (("model_a", zhong.MODEL_A), ("model_b", zhong.MODEL_B)):
        measured = by_id[runid].measured
        out[f"modular_addition.zhong_{name}_grad_sym"] = float(measured["gradient_symmetricity_triples"])
        out[f"modular_addition.zhong_{name}_dist_irr"] = float(measured["distance_irrelevance"])
    sides = zhong_sides(units)
    for arch, nets in sides.items():
        out[f"modular_addition.zhong_{arch}_disc_fraction"] = Estimate.share(
            per_network(measures.disc_flags, nets), "clusters", of="networks")
    attention = [u for nets in sides.values() for u in nets]
    out["modular_addition.zhong_cka_disc"] = Estimate.mean(
        per_network(measures.cka_values, attention, "disc"), "clusters", of="networks")
    out["modular_addition.zhong_disc_pad_on_diagonal"] = lowest_pad_share(sides.values())
    learned = zhong_learned(units)
    out["modular_addition.zhong_logit_circle_fraction"] = Estimate.share(
        per_network(measures.betti_flags, learned, (1, 1), key="logit_betti"), "logit manifolds",
        of="networks")
    return out


def per_network(measure: Callable[..., list], units: Sequence[Unit], *args, **kwargs) -> list[list]:
    """``measure`` (one value per analysed cluster of its units) of each network apart: the clusters
    of one network are not independent, so an estimate resamples them a network at a time."""
    return [measure([u], *args, **kwargs) for u in units]


def pad_mmd_ratio(res: dict[str, list[Unit[TrainSpec]]], disc: Sequence[str]) -> float:
    """How much closer the disc architectures' phase alignment distributions are to one another than
    to MLP-Concat's (the paper, §5: the same layer-1 manifold, which MLP-Concat does not learn): the
    largest MMD^2 between two of ``disc`` over the smallest between one of them and MLP-Concat
    (``measures.pad_test``); below 1 when every disc architecture is nearer its kind."""
    within = max(measures.pad_test(res[a], res[b], n_permutations=1)[0] for a, b in combinations(disc, 2))
    across = min(measures.pad_test(res[a], res["mlp_concat"], n_permutations=1)[0] for a in disc)
    return float(within / across)


def lowest_pad_share(groups: Iterable[Sequence[Unit]]) -> Estimate:
    """Of several groups of networks (one per architecture), the lowest mean share of neurons whose
    phase-alignment peak is on the diagonal (``measures.pad_diagonal_shares``), over its networks:
    the paper's statement holds for every disc architecture only if it holds for this one."""
    return min((Estimate.mean(measures.pad_diagonal_shares(nets), "networks") for nets in groups),
               key=lambda estimate: estimate.value)


@declares("modular_addition.concat_cka_torus", "modular_addition.concat_pad_on_diagonal",
           "modular_addition.concat_rsm_torus", "modular_addition.concat_torus_fraction",
           "modular_addition.disc_pad_on_diagonal", "modular_addition.disc_rsm_disc",
           "modular_addition.layer1_cka_circle", "modular_addition.learnable_cka_disc",
           "modular_addition.learnable_disc_fraction", "modular_addition.logit_circle_fraction",
           "modular_addition.mlp_add_cka_disc", "modular_addition.mlp_add_disc_fraction",
           "modular_addition.pad_mmd_disc_over_concat", "modular_addition.seed_mean_bottleneck",
           "modular_addition.seed_permutation_p", "modular_addition.uniform_cka_disc",
           "modular_addition.uniform_disc_fraction")
def manifold_claims(res: dict[str, list[Unit[TrainSpec]]]) -> dict[str, Any]:
    """Cluster and logit manifolds (Betti numbers, PCA, CKA) and the bottleneck-distance statistics
    of the book's seed document, for the architectures that are run."""
    out: dict[str, Any] = {}
    for arch in ("uniform", "learnable", "mlp_add"):
        if arch in res:
            out[f"modular_addition.{arch}_disc_fraction"] = Estimate.share(
                per_network(measures.disc_flags, res[arch]), "clusters", of="networks")
            out[f"modular_addition.{arch}_cka_disc"] = Estimate.mean(
                per_network(measures.cka_values, res[arch], "disc"), "clusters", of="networks")
    if "mlp_concat" in res:
        out["modular_addition.concat_torus_fraction"] = Estimate.share(
            per_network(measures.betti_flags, res["mlp_concat"], (1, 2, 1)), "clusters", of="networks")
        out["modular_addition.concat_cka_torus"] = Estimate.mean(
            per_network(measures.cka_values, res["mlp_concat"], "torus"), "clusters", of="networks")
        out["modular_addition.concat_rsm_torus"] = Estimate.mean(
            per_network(measures.cka_values, res["mlp_concat"], "torus", key="rsm"), "clusters",
            of="networks")
    units = [u for v in res.values() for u in v]
    out["modular_addition.layer1_cka_circle"] = Estimate.mean(
        per_network(measures.cka_values, units, "circle"), "clusters", of="networks")
    disc = [arch for arch in ("uniform", "learnable", "mlp_add") if arch in res]
    if disc:
        out["modular_addition.disc_pad_on_diagonal"] = lowest_pad_share(res[arch] for arch in disc)
        out["modular_addition.disc_rsm_disc"] = min(
            (Estimate.mean(per_network(measures.cka_values, res[arch], "disc", key="rsm"), "clusters",
                           of="networks") for arch in disc),
            key=lambda estimate: estimate.value)
    if "mlp_concat" in res:
        out["modular_addition.concat_pad_on_diagonal"] = Estimate.mean(
            measures.pad_diagonal_shares(res["mlp_concat"]), "networks")
        if len(disc) >= 2:
            out["modular_addition.pad_mmd_disc_over_concat"] = pad_mmd_ratio(res, disc)
    out["modular_addition.logit_circle_fraction"] = Estimate.share(
        per_network(measures.betti_flags, units, (1, 1), key="logit_betti"), "logit manifolds",
        of="networks")
    n_nets = min(len(res.get("uniform", [])), len(res.get("learnable", [])))
    if n_nets >= 2:
        test = measures.distance_test(res)
        out["modular_addition.seed_mean_bottleneck"] = Estimate.pairs(
            "mean", test["across"].reshape(len(res["uniform"]), len(res["learnable"])), "network pairs",
            "networks")
        if n_nets >= MIN_NETWORKS_FOR_TEST:
            out["modular_addition.seed_permutation_p"] = test["p"]
    return out


# ------------------------------------------------------------------ the chapters' tables
# Rows keyed by architecture name; the chapters label and display them.

Networks = dict[str, list[Unit[TrainSpec]]]
"""Architecture -> one analysed network per seed, as :func:`run_networks` returns them."""

NETWORK_METRICS = {"gradient symmetricity": "gradient_symmetricity",
                   "distance irrelevance": "distance_irrelevance",
                   "distance irrelevance (top incorrect)": "distance_irrelevance_top_incorrect"}
"""Zhong's two metrics per network, distance irrelevance both ways: label -> key of ``measures.analyse``."""


def training_table(res: Networks) -> list[dict[str, Any]]:
    """Per architecture: its networks, their lowest final test accuracy and the median first step at
    100% test accuracy (``measures.first_step_at``; NaN when a network never gets there)."""
    rows = []
    for arch, nets in res.items():
        steps = [measures.first_step_at(n.trained) for n in nets]
        rows.append({"architecture": arch, "networks": len(nets),
                     "final test accuracy (min)": float(min(n.trained["test_acc"][-1] for n in nets)),
                     "first step at 100% test (median)": float(np.median(
                         [np.nan if step is None else step for step in steps]))})
    return rows


def metric_spread(res: Networks) -> list[dict[str, Any]]:
    """Per architecture and metric of :data:`NETWORK_METRICS`: the median, least and largest value
    over its networks."""
    rows = []
    for arch, nets in res.items():
        for label, key in NETWORK_METRICS.items():
            values = [float(n.measured[key]) for n in nets]
            rows.append({"architecture": arch, "measure": label, "median": float(np.median(values)),
                         "min": min(values), "max": max(values)})
    return rows


def algorithm_shares(res: Networks) -> dict[str, dict[str, float]]:
    """Architecture -> the share of its networks nearest each of Zhong's two examples
    (``measures.algorithm``, distance irrelevance by the correct logit)."""
    out = {}
    for arch, nets in res.items():
        nearest = [measures.algorithm(float(n.measured["gradient_symmetricity"]),
                                      float(n.measured["distance_irrelevance"])) for n in nets]
        out[arch] = {name: nearest.count(name) / len(nets) for name in measures.ZHONG_ALGORITHMS}
    return out


def length_report(summary: dict[str, np.ndarray], lengths: tuple[int, ...], budget: int) -> dict[str, Any]:
    """What the training-length runs (:func:`length_summary`) show for a scale's ``budget`` of steps:
    ``settled``, :func:`settling`; ``settled_by_budget`` of ``curves`` (architecture by measure), how
    many have settled by the budget; ``final``, architecture -> measure -> median over seeds at the
    longest length; ``moves``, :func:`length_moves`."""
    settled = settling(summary, lengths)
    return {"settled": settled,
            "settled_by_budget": sum(step <= budget for steps in settled.values() for step in steps),
            "curves": sum(len(steps) for steps in settled.values()),
            "final": {arch: dict(zip(measures.NETWORK_SUMMARY, map(float, np.median(values[:, -1], axis=0)),
                                     strict=True)) for arch, values in summary.items()},
            "moves": length_moves(summary)}


def cluster_table(res: Networks) -> list[dict[str, Any]]:
    """Per architecture: the median number of analysed clusters per network, the median size of
    each network's largest cluster, and the median simple-neuron R^2 over all their neurons."""
    return [{"architecture": arch,
             "clusters (median)": float(np.median([n.measured["n_clusters"] for n in nets])),
             "largest cluster (median neurons)": float(np.median(
                 [n.measured["cluster_sizes"][0] for n in nets])),
             "simple-neuron R² (median)": float(np.median(np.concatenate([n.measured["r2"] for n in nets])))}
            for arch, nets in res.items()]


def manifold_table(res: Networks) -> list[dict[str, Any]]:
    """Per architecture, over the analysed clusters of all its networks: the median share of variance
    in the top 2 and top 4 principal components, and the mean CKA with each reference manifold."""
    def shares(nets: list[Unit[TrainSpec]], k: int) -> float:
        return float(np.median([pc[:k].sum() for n in nets for pc in n.measured["pca"]]))

    return [{"architecture": arch, "top-2 PCA share (median)": shares(nets, 2),
             "top-4 PCA share (median)": shares(nets, 4),
             **{f"CKA with {r} (mean)": measures.mean_cka(nets, r) for r in measures.REFERENCES}}
            for arch, nets in res.items()]


def logit_table(res: Networks) -> dict[str, dict[str, float]]:
    """``measures.logit_summary`` per architecture, and over every network (key ``"all"``)."""
    every = [u for nets in res.values() for u in nets]
    by_arch = {arch: measures.logit_summary(nets) for arch, nets in res.items()}
    return by_arch | {"all": measures.logit_summary(every)}


def largest_clusters(res: Networks) -> dict[str, np.ndarray]:
    """Architecture -> the largest cluster's activation cloud of its first network
    (``measures.largest_cluster``)."""
    return {arch: measures.largest_cluster(trained_model(nets[0]), nets[0].measured)
            for arch, nets in res.items()}


def run_cluster_views(cfg: ModAddConfig, res: Networks) -> dict[str, Arrays]:
    """Architecture -> :func:`run_cluster_view` of its first network."""
    return {arch: run_cluster_view(cfg, nets[0].spec) for arch, nets in res.items()}


def run_topology_checks(cfg: ModAddConfig, res: Networks) -> list[dict[str, Any]]:
    """One row per cluster checked by :func:`run_topology_check` on the first seed of each
    architecture run (none when ``cfg.full_rips_clusters`` is 0; :data:`FULL_RIPS_SKIPPED` left out):
    its size, Betti numbers three ways, top-4 PCA share and the seconds of full Rips and alpha."""
    rows = []
    for arch in res:
        if not cfg.full_rips_clusters or arch in FULL_RIPS_SKIPPED:
            continue
        c = run_topology_check(cfg, cfg.spec(arch, cfg.seed))
        rows += [{"architecture": arch, "neurons": int(c["size"][k]), "full Rips": tuple(c["full"][k]),
                  "landmarks": tuple(c["landmarks"][k]), "alpha (top-4 PCA)": tuple(c["alpha"][k]),
                  "top-4 PCA share": float(c["pca4"][k]), "full Rips (s)": float(c["seconds_full"][k]),
                  "alpha (s)": float(c["seconds_alpha"][k])} for k in range(len(c["size"]))]
    return rows


def topology_agreement(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Over the rows of :func:`run_topology_checks`: the clusters, the shares whose landmark and
    alpha Betti numbers equal full Rips's, and the longest full Rips in seconds."""
    if not rows:
        raise ValueError("no topology check was run (full_rips_clusters=0)")
    return {"clusters": len(rows),
            "landmarks": float(np.mean([r["landmarks"] == r["full Rips"] for r in rows])),
            "alpha": float(np.mean([r["alpha (top-4 PCA)"] == r["full Rips"] for r in rows])),
            "longest full Rips (s)": max(r["full Rips (s)"] for r in rows)}


def pad_tests(res: Networks, n_permutations: int = 500, seed: int = 0) -> list[dict[str, Any]]:
    """``measures.pad_test`` for every pair of architectures run, in their order: MMD^2 between their
    phase-alignment samples and its permutation p-value."""
    archs = list(res)
    rows = []
    for i, a in enumerate(archs):
        for b in archs[i + 1:]:
            stat, pval = measures.pad_test(res[a], res[b], n_permutations=n_permutations, seed=seed)
            rows.append({"pair": (a, b), "MMD²": stat, "permutation p": pval})
    return rows


EXPERIMENTS: dict[str, Experiment] = {
    "networks": Experiment(ModAddConfig.preset, run_networks,
                           (training_claims, zhong_metric_claims, manifold_claims),
                           jobs=lambda cfg: _jobs(cfg, views=True)),
    "zhong": Experiment(ModAddConfig.preset, run_zhong, (zhong_claims,), jobs=_zhong_jobs),
}
"""The study's experiments (``core.table``). ``networks``: every network trained and analysed, its
jobs also the training-length runs (:func:`run_lengths`) and the manifolds chapter's views and
topology checks (one job per network on the CPU; on a GPU, stacks of networks: ``_jobs``);
``zhong``: the analysis of each of Zhong's networks."""


def jobs(scale: str) -> list[Job]:
    """The study's independent cached computations at ``scale``, experiment by experiment."""
    return table_jobs(EXPERIMENTS, scale)


def run_all(scale: str) -> dict[str, Any]:
    """Run every experiment of the study at ``scale`` (cached) and return all headline numbers."""
    return table_claims(EXPERIMENTS, scale, desc="modular-addition experiments")
