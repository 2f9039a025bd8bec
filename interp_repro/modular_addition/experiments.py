"""The experiments of the modular-addition study (Moisescu-Pareja et al. 2025, on Zhong et al. 2023).

One network = one architecture and one seed. Its weights and curves are cached, and so is its
analysis (key frequencies, clusters, PCA, Betti numbers, CKA, simple-neuron fits, Zhong's metrics,
PAD samples, the H1 diagram of its largest cluster), so re-plotting never retrains. ``summarize``
pools the analyses over networks; each ``*_claims`` function turns them into headline numbers.
"""

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import torch

from interp_repro.core import cached, check_fraction, check_positive_int
from interp_repro.core.parallel import Job, run_jobs
from interp_repro.core.presets import Preset
from interp_repro.modular_addition import analysis as an
from interp_repro.modular_addition.data import check_modulus
from interp_repro.modular_addition.model import ModAddNet
from interp_repro.modular_addition.probes import gradient_symmetricity, tables
from interp_repro.modular_addition.train import train
from interp_repro.topology import betti_numbers, bottleneck, persistence

Arrays = dict[str, np.ndarray]

ARCHITECTURES = {"uniform": ("attention", 0.0), "learnable": ("attention", 1.0),
                 "mlp_add": ("mlp_add", 1.0), "mlp_concat": ("mlp_concat", 1.0)}
"""The paper's four architectures: name -> (model architecture, attention rate)."""

LABELS = {"uniform": "Attention 0.0 (uniform)", "learnable": "Attention 1.0 (learnable)",
          "mlp_add": "MLP-Add", "mlp_concat": "MLP-Concat"}

REFERENCES = ("disc", "torus", "circle")
"""The theorem's reference manifolds (§4), in the order of the CKA columns."""

DISC_PCA_SHARE = 0.9
"""A cluster counts as a disc when its Betti vector is (1, 0, 0) and its top-2 PCA share is at least
this (the issue's criterion; the paper reports >= 95% for most disc clusters)."""


@dataclass(frozen=True)
class NetSpec:
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

    def __post_init__(self):
        if self.architecture not in ARCHITECTURES:
            raise ValueError(f"unknown architecture {self.architecture!r}: "
                             f"choose one of {list(ARCHITECTURES)}")
        check_modulus(self.p)
        for name in ("steps", "d_model", "n_heads", "d_mlp", "eval_every"):
            check_positive_int(name, getattr(self, name))
        check_fraction("train_frac", self.train_frac)
        for name in ("lr", "weight_decay"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
                raise ValueError(f"{name} must be a non-negative number, got {value!r}")

    def build(self) -> ModAddNet:
        kind, rate = ARCHITECTURES[self.architecture]
        return ModAddNet(1, self.p, kind, torch.Generator(), rate=rate, d_model=self.d_model,
                         n_heads=self.n_heads, d_mlp=self.d_mlp)


def train_network(spec: NetSpec) -> tuple[ModAddNet, Arrays]:
    """Train (or load) one network; returns the model and its curves (steps, train/test loss/acc).
    Like every cached computation it runs on one thread: ``run_networks`` runs one network per core
    instead, which does not slow to a crawl when the machine is busy."""
    def compute() -> Arrays:
        kind, rate = ARCHITECTURES[spec.architecture]
        res = train(kind, spec.p, [spec.seed], steps=spec.steps, rate=rate, lr=spec.lr,
                    weight_decay=spec.weight_decay, train_frac=spec.train_frac, eval_every=spec.eval_every,
                    d_model=spec.d_model, n_heads=spec.n_heads, d_mlp=spec.d_mlp,
                    desc=f"{spec.architecture} seed {spec.seed}")
        out = {f"param.{k}": v.detach().numpy() for k, v in res.model.state_dict().items()}
        curves = {"steps": res.steps, "train_loss": res.train_loss, "test_loss": res.test_loss,
                  "train_acc": res.train_acc, "test_acc": res.test_acc}
        return out | {k: v if k == "steps" else v[:, 0] for k, v in curves.items()}
    arrays = cached("modular_addition/train", spec, compute)
    model = spec.build()
    model.load_state_dict({k[6:]: torch.as_tensor(v) for k, v in arrays.items() if k.startswith("param.")})
    return model, {k: v for k, v in arrays.items() if not k.startswith("param.")}


def logit_cloud(logits: np.ndarray, f: int) -> np.ndarray:
    """The logit manifold at frequency f (the paper, §5): each input pair's logit vector projected on
    (cos 2 pi f c / p, sin 2 pi f c / p) over the classes c, shape (p^2, 2) (projection ours)."""
    p = logits.shape[-1]
    c = 2 * np.pi * f * np.arange(p) / p
    return logits.reshape(p * p, p) @ np.stack([np.cos(c), np.sin(c)], axis=1)


def embedding_spectrum(W_E: np.ndarray) -> np.ndarray:
    """Norm of the embedding's DFT over tokens at each frequency 1..p//2, shape (p//2,)."""
    p = W_E.shape[0]
    power = np.abs(np.fft.fft(W_E, axis=0)) ** 2
    return np.sqrt(power[1: p // 2 + 1].sum(axis=1))


def analyse(model: ModAddNet, min_cluster: int, max_clusters: int, n_landmarks: int) -> Arrays:
    """The per-network analysis of the paper (§3-5) for a single-instance model. Clusters with at least
    ``min_cluster`` neurons count; the ``max_clusters`` largest get topology, PCA and CKA."""
    pre, logits = (x[0] for x in tables(model))
    p = model.p
    freqs = an.key_frequencies(pre)
    groups = an.clusters(freqs, min_size=min_cluster)
    if not groups:
        raise ValueError(f"no key-frequency cluster has {min_cluster} or more neurons; lower min_cluster")
    order = sorted(groups, key=lambda f: (-groups[f].size, f))[:max_clusters]
    fit = an.simple_neuron_fit(pre, freqs)
    refs = {name: getattr(an, f"reference_{name}") for name in REFERENCES}
    pca, betti, cka, logit_betti, r2 = [], [], [], [], []
    for f in order:
        cloud = an.cluster_cloud(pre, groups[f])
        ratios = an.pca_variance(cloud)
        pca.append(np.pad(ratios, (0, max(0, 4 - ratios.size)))[:4])
        betti.append(betti_numbers(cloud, maxdim=2, n_landmarks=n_landmarks))
        cka.append([an.linear_cka(cloud, refs[name](p, f)) for name in REFERENCES])
        logit_betti.append(betti_numbers(logit_cloud(logits, f), maxdim=1, n_landmarks=n_landmarks))
        r2.append(np.median(fit["r2"][groups[f]]))
    largest = an.cluster_cloud(pre, groups[order[0]])
    pair = np.arange(p * p)
    correct = logits.reshape(p * p, p)[pair, (pair // p + pair % p) % p]
    return {
        "freqs": freqs, "cluster_freqs": np.array(order),
        "cluster_sizes": np.array([groups[f].size for f in order]), "n_clusters": np.array(len(groups)),
        "pca": np.array(pca), "betti": np.array(betti), "cka": np.array(cka),
        "logit_betti": np.array(logit_betti), "r2": np.array(r2),
        "phi_L": fit["phi_L"], "phi_R": fit["phi_R"],
        "pad": an.phase_alignment(pre), "h1": persistence(largest, maxdim=1, n_landmarks=n_landmarks)[1],
        "grad_sym": gradient_symmetricity(model, seed=0)[0],
        "dist_irr": np.array(an.distance_irrelevance(correct.reshape(p, p))),
        "embed_spectrum": embedding_spectrum(model.W_E[0].detach().numpy()),
    }


@dataclass(frozen=True)
class ModAddConfig(Preset):
    """Networks of every architecture in ``architectures`` over ``seeds`` seeds (Zhong et al.'s
    recipe: AdamW lr 1e-3, weight decay 2.0, train fraction 0.8, full batch; step budget ours)."""

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
    min_cluster: int = 4
    max_clusters: int = 3
    n_landmarks: int = 200
    seed: int = 0

    PRESETS: ClassVar = {
        "ci": dict(seeds=2),
        "book": dict(),
        "paper": dict(seeds=100, steps=3000),
    }

    def __post_init__(self):
        if not isinstance(self.architectures, tuple) or not self.architectures:
            raise ValueError(f"architectures must be a non-empty tuple, got {self.architectures!r}")
        for name in ("seeds", "min_cluster", "max_clusters", "n_landmarks"):
            check_positive_int(name, getattr(self, name))
        for arch in self.architectures:
            self.spec(arch, self.seed)  # validates the names and the shared fields

    def spec(self, architecture: str, seed: int) -> NetSpec:
        return NetSpec(architecture, self.p, seed, self.steps, self.lr, self.weight_decay, self.train_frac,
                       self.d_model, self.n_heads, self.d_mlp, self.eval_every)


@dataclass
class Network:
    """One trained network: its spec, curves and analysis (the model is rebuilt on demand)."""

    spec: NetSpec
    curves: Arrays
    stats: Arrays

    def model(self) -> ModAddNet:
        return train_network(self.spec)[0]


def _analysis_key(cfg: ModAddConfig, spec: NetSpec) -> dict:
    return {"spec": spec, "min_cluster": cfg.min_cluster, "max_clusters": cfg.max_clusters,
            "n_landmarks": cfg.n_landmarks}


def _network(cfg: ModAddConfig, spec: NetSpec) -> Network:
    """Train (or load) and analyse (or load) one network."""
    model, curves = train_network(spec)
    stats = cached("modular_addition/analysis", _analysis_key(cfg, spec), lambda: analyse(
        model, cfg.min_cluster, cfg.max_clusters, cfg.n_landmarks))
    return Network(spec, curves, stats)


def _specs(cfg: ModAddConfig) -> list[NetSpec]:
    return [cfg.spec(arch, s) for arch in cfg.architectures for s in range(cfg.seed, cfg.seed + cfg.seeds)]


def _network_and_view(cfg: ModAddConfig, spec: NetSpec) -> None:
    _network(cfg, spec)
    cluster_view(cfg, spec)


def _network_jobs(cfg: ModAddConfig, views: bool = False) -> list[Job]:
    """One job per network; with ``views``, the first seed's also computes the views the manifolds
    chapter draws (the claims never read them)."""
    return [Job(_network_and_view if views and spec.seed == cfg.seed else _network, (cfg, spec))
            for spec in _specs(cfg)]


def run_networks(cfg: ModAddConfig, workers: int | None = None) -> dict[str, list[Network]]:
    """Train (or load) and analyse every network: architecture -> one Network per seed.

    Networks missing from the cache are computed side by side (``core.parallel.run_jobs``: one per
    core by default, or on Dask), one network and one torch thread per process; results do not
    depend on where they ran."""
    run_jobs(_network_jobs(cfg), desc="networks", workers=workers)
    out: dict[str, list[Network]] = {arch: [] for arch in cfg.architectures}
    for spec in _specs(cfg):
        out[spec.architecture].append(_network(cfg, spec))
    return out


def largest_cluster(net: Network) -> np.ndarray:
    """The point cloud (p^2, n_neurons) of a network's largest cluster, recomputed from its weights."""
    pre, _ = tables(net.model())
    return an.cluster_cloud(pre[0], np.flatnonzero(net.stats["freqs"] == net.stats["cluster_freqs"][0]))


def umap_view(points: np.ndarray, seed: int = 0) -> np.ndarray:
    """A 2-D UMAP embedding (McInnes et al. 2018) of a point cloud, seeded; 15 neighbours (the
    library's default). A view, not a measurement: UMAP keeps neighbourhoods, not distances."""
    from umap import UMAP  # imported here: it compiles with numba on first use (about 10 s)

    return UMAP(n_components=2, random_state=seed, n_jobs=1).fit_transform(points)


def cluster_view(cfg: ModAddConfig, spec: NetSpec) -> Arrays:
    """The largest cluster of one network as the manifolds chapter draws it (cached): its 2-D UMAP
    embedding (``umap``, seed 0) and its persistence diagrams on ``cfg.n_landmarks`` landmarks
    (``h0``, ``h1``, ``h2``: :func:`interp_repro.topology.persistence`)."""
    def compute() -> Arrays:
        cloud = largest_cluster(_network(cfg, spec))
        diagrams = persistence(cloud, maxdim=2, n_landmarks=cfg.n_landmarks)
        return {"umap": umap_view(cloud, seed=0), **{f"h{k}": d for k, d in enumerate(diagrams)}}

    return cached("modular_addition/view", _analysis_key(cfg, spec), compute)


def disc_fraction(nets: list[Network]) -> float:
    """Share of analysed clusters that are discs: Betti (1, 0, 0) and top-2 PCA share >= DISC_PCA_SHARE."""
    ok = [bool(tuple(b) == (1, 0, 0) and pc[:2].sum() >= DISC_PCA_SHARE)
          for n in nets for b, pc in zip(n.stats["betti"], n.stats["pca"], strict=True)]
    return float(np.mean(ok))


def betti_fraction(nets: list[Network], vector: tuple[int, ...], key: str = "betti") -> float:
    """Share of analysed clusters (or logit manifolds, ``key="logit_betti"``) with this Betti vector."""
    return float(np.mean([tuple(b) == vector for n in nets for b in n.stats[key]]))


def pad_diagonal_share(nets: list[Network]) -> float:
    """Share of neurons whose phase-alignment peak lies on the diagonal a = b (torus distance 0),
    averaged over networks: aligned phases (phi_L = phi_R) put every peak there (the paper, §5)."""
    return float(np.mean([np.mean(an.torus_distance(n.stats["pad"], n.spec.p) == 0) for n in nets]))


def pad_test(a: list[Network], b: list[Network], n_permutations: int = 1000,
             seed: int = 0) -> tuple[float, float]:
    """MMD^2 and permutation p-value between two architectures' phase alignment samples, embedded on
    the torus (the paper, §5); bandwidth 1 in the embedding (ours)."""
    p = a[0].spec.p
    x = an.torus_embedding(np.concatenate([n.stats["pad"] for n in a]), p)
    y = an.torus_embedding(np.concatenate([n.stats["pad"] for n in b]), p)
    return an.mmd_permutation_test(x, y, 1.0, n_permutations=n_permutations, seed=seed)


MIN_NETWORKS_FOR_TEST = 4
"""Networks per architecture below which :func:`distance_test` has no power worth a claim: with 2
and 2 there are 6 labellings, so its p-value is never below 1/3."""


def _network_distances(nets: list[Network]) -> np.ndarray:
    """Bottleneck distances between the H1 diagrams of the largest clusters of ``nets``, (n, n)."""
    n = len(nets)
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            out[i, j] = out[j, i] = bottleneck(nets[i].stats["h1"], nets[j].stats["h1"])
    return out


def distance_test(res: dict[str, list[Network]], a: str = "uniform", b: str = "learnable",
                  n_permutations: int = 10_000, seed: int = 0) -> dict[str, Any]:
    """The seed's comparison of H1 diagrams (the seed's extension, not the paper): bottleneck distances
    within an architecture (a with a, b with b) and across (a with b), and a permutation test over
    networks of "across is larger than within" (statistic: mean across minus mean within).

    Pairwise distances that share a network are not independent samples, so the test relabels whole
    networks between the two architectures: every labelling when there are at most
    ``n_permutations``, else ``n_permutations`` random ones (seeded). Returns the within and across
    distances, the mean across distance, the p-value and the number of labellings."""
    from itertools import combinations
    from math import comb

    if min(len(res[a]), len(res[b])) < 2:
        raise ValueError(f"the distance test needs at least 2 networks of {a} and of {b} (within-"
                         f"architecture distances), got {len(res[a])} and {len(res[b])}: "
                         "raise the config's seeds")
    n_a, nets = len(res[a]), res[a] + res[b]
    dist = _network_distances(nets)
    rows, cols = np.triu_indices(len(nets), 1)
    pairs = dist[rows, cols]

    def statistic(in_a: np.ndarray) -> float:
        same = in_a[rows] == in_a[cols]
        return float(pairs[~same].mean() - pairs[same].mean())

    observed = np.arange(len(nets)) < n_a
    if comb(len(nets), n_a) <= n_permutations:
        labellings = [np.isin(np.arange(len(nets)), c) for c in combinations(range(len(nets)), n_a)]
        stats = np.array([statistic(m) for m in labellings])
        p = float(np.mean(stats >= statistic(observed) - 1e-12))
    else:
        rng = np.random.default_rng(seed)
        labellings = [rng.permutation(observed) for _ in range(n_permutations)]
        stats = np.array([statistic(m) for m in labellings])
        p = float((1 + np.sum(stats >= statistic(observed) - 1e-12)) / (1 + n_permutations))
    same = observed[rows] == observed[cols]
    return {"within": pairs[same], "across": pairs[~same], "mean_across": float(pairs[~same].mean()),
            "p": p, "labellings": len(labellings)}


def training_claims(res: dict[str, list[Network]]) -> dict[str, Any]:
    """Test accuracy of every network, how well the simple-neuron model fits layer 1 (median over
    the analysed clusters of their neurons' median R^2) and Zhong's two metrics (medians over seeds)
    for the two attention architectures that are run."""
    nets = [n for v in res.values() for n in v]
    out: dict[str, Any] = {
        "modular_addition.min_test_accuracy": float(min(n.curves["test_acc"][-1] for n in nets)),
        "modular_addition.simple_neuron_r2": float(np.median(np.concatenate([n.stats["r2"] for n in nets]))),
    }
    for arch in ("uniform", "learnable"):
        for metric in ("grad_sym", "dist_irr"):
            if arch in res:
                values = [n.stats[metric] for n in res[arch]]
                out[f"modular_addition.{arch}_{metric}"] = float(np.median(values))
    return out


def manifold_claims(res: dict[str, list[Network]]) -> dict[str, Any]:
    """Cluster and logit manifolds (Betti numbers, PCA, CKA) and the seed's distance statistics, for
    the architectures that are run."""
    out: dict[str, Any] = {}
    for arch in ("uniform", "learnable", "mlp_add"):
        if arch in res:
            out[f"modular_addition.{arch}_disc_fraction"] = disc_fraction(res[arch])
            out[f"modular_addition.{arch}_cka_disc"] = float(np.mean(
                [c[0] for n in res[arch] for c in n.stats["cka"]]))
    if "mlp_concat" in res:
        out["modular_addition.concat_torus_fraction"] = betti_fraction(res["mlp_concat"], (1, 2, 1))
        out["modular_addition.concat_cka_torus"] = float(np.mean(
            [c[1] for n in res["mlp_concat"] for c in n.stats["cka"]]))
    out["modular_addition.layer1_cka_circle"] = float(np.mean(
        [c[REFERENCES.index("circle")] for v in res.values() for n in v for c in n.stats["cka"]]))
    disc = [arch for arch in ("uniform", "learnable", "mlp_add") if arch in res]
    if disc:
        out["modular_addition.disc_pad_on_diagonal"] = min(pad_diagonal_share(res[arch]) for arch in disc)
    if "mlp_concat" in res:
        out["modular_addition.concat_pad_on_diagonal"] = pad_diagonal_share(res["mlp_concat"])
    out["modular_addition.logit_circle_fraction"] = float(np.mean(
        [tuple(b) == (1, 1) for v in res.values() for n in v for b in n.stats["logit_betti"]]))
    n_nets = min(len(res.get("uniform", [])), len(res.get("learnable", [])))
    if n_nets >= 2:
        test = distance_test(res)
        out["modular_addition.seed_mean_bottleneck"] = test["mean_across"]
        if n_nets >= MIN_NETWORKS_FOR_TEST:
            out["modular_addition.seed_permutation_p"] = test["p"]
    return out


def jobs(scale: str) -> list[Job]:
    """The study's independent cached computations at ``scale``: one per network (train, analyse),
    with the manifolds chapter's views."""
    return _network_jobs(ModAddConfig.preset(scale), views=True)


def run_all(scale: str) -> dict[str, Any]:
    """Run every experiment of the study at ``scale`` (cached) and return all headline numbers."""
    res = run_networks(ModAddConfig.preset(scale))
    return training_claims(res) | manifold_claims(res)
