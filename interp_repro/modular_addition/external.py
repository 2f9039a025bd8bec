"""A modular-addition network the user brings: its file format, the loader that checks it, and the
paper's per-network analysis on it (Moisescu-Pareja et al. 2025, §3-5; Zhong et al. 2023, §4), as the
chapters apply it to their own networks and to Zhong's.

The format (:data:`FORMAT`) is two files side by side:

- ``NAME.pt``: the ``state_dict`` of a :class:`~interp_repro.modular_addition.model.ModAddNet`
  (tensors only; loaded with ``weights_only``), every tensor with a leading instance axis K;
- ``NAME.json``: its settings, ``{"p": 59, "kind": "attention", "rate": 1.0, "d_model": 128,
  "n_heads": 4, "d_mlp": 512}`` (``kind`` one of ``model.KINDS``; ``rate``, the attention rate, for
  ``attention`` only; the widths default to ours).

One of Zhong's save files (``model_<runid>.pt`` with ``config_<runid>.json`` beside it) is read as
well (``zhong.load``). :func:`save` writes the format; :func:`load` refuses a file that is not it in
one line (:class:`~interp_repro.core.ConfigError`).
"""

import functools
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from interp_repro.core import ConfigError, torch_generator
from interp_repro.modular_addition import measures, zhong
from interp_repro.modular_addition.experiments import ModAddConfig, train_or_load
from interp_repro.modular_addition.model import KINDS, ModAddNet

FORMAT = ("modular_addition: NAME.pt, a state_dict of our ModAddNet (leading instance axis K), with "
          "NAME.json beside it: p, kind (attention, mlp_add or mlp_concat), rate (attention), d_model, "
          "n_heads, d_mlp; or one of Zhong's model_RUNID.pt with its config_RUNID.json")
"""The input format in one line, as ``interp-repro analyse --help`` gives it."""

SETTINGS = {"p", "kind", "rate", "d_model", "n_heads", "d_mlp"}

_ANALYSIS = ModAddConfig()
"""The chapters' analysis settings (clusters and landmarks; the same at every scale)."""


@dataclass(frozen=True)
class ModAddReport:
    """The paper's measures on one network (what ``measures.analyse`` computes, read out)."""

    p: int
    kind: str
    rate: float | None                 # the attention rate (attention networks only)
    accuracy: float                    # share of all p^2 pairs answered right
    frequencies: dict[int, int]        # key frequency -> neurons (every cluster, largest first)
    clusters: list[dict]               # the analysed clusters: frequency, size, Betti, PCA, CKA, RSM, logits
    gradient_symmetricity: float       # Zhong's, exact, over every triple
    gradient_symmetricity_triples: float  # over his notebook's 100 triples, as his table computes it
    distance_irrelevance: float        # the paper's definition (correct logit)
    distance_irrelevance_top_incorrect: float  # as Zhong's sweep table computes it
    algorithm: str                     # the nearer of Zhong's Clock and Pizza in his two metrics
    population: dict | None            # percentiles in Zhong's networks at this attention rate
    pad_on_diagonal: float             # share of neurons whose phase-alignment peak is on a = b

    def as_dict(self) -> dict:
        out = asdict(self)
        out["frequencies"] = {str(f): n for f, n in self.frequencies.items()}  # JSON keys are strings
        return out

    def lines(self) -> list[str]:
        """A short report for the terminal."""
        arch = f"attention, rate {self.rate:g}" if self.kind == "attention" else self.kind
        out = [f"p = {self.p}, {arch}: accuracy {self.accuracy:.4f} on all pairs",
               "key frequencies (neurons): " + ", ".join(f"{f} ({n})" for f, n in self.frequencies.items()),
               f"gradient symmetricity {self.gradient_symmetricity:.4f} (Zhong's 100 triples "
               f"{self.gradient_symmetricity_triples:.4f}); distance irrelevance "
               f"{self.distance_irrelevance:.4f} (top incorrect logit "
               f"{self.distance_irrelevance_top_incorrect:.4f}); nearer Zhong's {self.algorithm}"]
        if self.population:
            pop = self.population
            out.append(f"in Zhong's {pop['networks']} networks at rate {self.rate:g} "
                       f"+- {zhong.POPULATION_WIDTH}: gradient symmetricity at percentile "
                       f"{pop['gradient_symmetricity']:.0f}, distance irrelevance at "
                       f"{pop['distance_irrelevance']:.0f}")
        for c in self.clusters:
            out.append(f"cluster f = {c['frequency']} ({c['size']} neurons): Betti {tuple(c['betti'])}, "
                       f"top-2 PCA {c['pca2']:.3f}, {c['shape']}; CKA disc {c['cka']['disc']:.3f}, torus "
                       f"{c['cka']['torus']:.3f}; logit circle Betti {tuple(c['logit_betti'])}")
        out.append(f"phase alignment on the diagonal: {self.pad_on_diagonal:.3f} of the neurons")
        return out


def _settings(path: Path) -> dict:
    try:
        settings = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ConfigError(f"{path}: not a JSON file of settings ({FORMAT}): {err}") from None
    if not isinstance(settings, dict):
        raise ConfigError(f"{path}: the settings are a JSON object ({FORMAT})")
    if unknown := sorted(set(settings) - SETTINGS):
        raise ConfigError(f"{path}: unknown settings {unknown} ({FORMAT})")
    if missing := sorted({"p", "kind"} - set(settings)):
        raise ConfigError(f"{path}: missing settings {missing} ({FORMAT})")
    if settings["kind"] not in KINDS:
        raise ConfigError(f"{path}: kind must be one of {', '.join(KINDS)}, got {settings['kind']!r}")
    if "rate" in settings and settings["kind"] != "attention":
        raise ConfigError(f"{path}: rate is the attention rate; a {settings['kind']} network has none")
    for key in ("p", "d_model", "n_heads", "d_mlp"):
        if key in settings and (isinstance(settings[key], bool) or not isinstance(settings[key], int)):
            raise ConfigError(f"{path}: {key} must be an integer, got {settings[key]!r}")
    rate = settings.get("rate", 0.0)
    if isinstance(rate, bool) or not isinstance(rate, int | float):
        raise ConfigError(f"{path}: rate must be a number in [0, 1], got {settings['rate']!r}")
    return settings


def load(path: str | Path) -> ModAddNet:
    """Read and check a network in :data:`FORMAT`; a :class:`ConfigError` in one line otherwise."""
    path = Path(path)
    runid = path.stem.removeprefix("model_")
    if path.stem.startswith("model_") and path.with_name(f"config_{runid}.json").is_file():
        try:
            return zhong.load(path)
        except (ValueError, RuntimeError, OSError) as err:  # torch's unpickler raises its own
            raise ConfigError(f"{path}: {str(err).splitlines()[0]}") from None
    beside = path.with_suffix(".json")
    if not beside.is_file():
        raise ConfigError(f"{path}: no settings file {beside.name} beside it ({FORMAT})")
    settings = _settings(beside)
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # noqa: BLE001 (torch raises RuntimeError, pickle and zip errors alike)
        raise ConfigError(f"{path}: not a torch state_dict file ({FORMAT}): "
                          f"{str(err).splitlines()[0]}") from None
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ConfigError(f"{path}: a state_dict maps parameter names to tensors ({FORMAT})")
    if "W_E" not in state or state["W_E"].ndim != 3:
        raise ConfigError(f"{path}: W_E must be a (K, p, d_model) tensor ({FORMAT})")
    bad = [name for name, v in state.items() if not v.is_floating_point() or not torch.isfinite(v).all()]
    if bad:
        raise ConfigError(f"{path}: {', '.join(sorted(bad))} must hold finite floats (NaN, infinity or "
                          "integers found)")
    kind = settings["kind"]
    try:
        widths = {k: settings[k] for k in ("rate", "d_model", "n_heads", "d_mlp") if k in settings}
        model = ModAddNet(state["W_E"].shape[0], settings["p"], kind, torch_generator(0), **widths)
        model.load_state_dict(state)
    except (ValueError, RuntimeError) as err:
        lines = [line.strip() for line in str(err).splitlines() if line.strip()]
        raise ConfigError(f"{path}: the weights do not fit the settings in {beside.name}: "
                          f"{'; '.join(lines[1:3] or lines)}") from None
    return model


def save(model: ModAddNet, path: str | Path) -> Path:
    """Write ``model`` in :data:`FORMAT`: ``path`` (.pt) and its settings beside it (.json)."""
    path = Path(path)
    torch.save(model.state_dict(), path)
    settings = {"p": model.p, "kind": model.kind, "d_model": model.W_E.shape[2],
                "d_mlp": model.W_in.shape[2]}
    if model.kind == "attention":
        settings |= {"rate": model.rate, "n_heads": model.W_Q.shape[1]}
    path.with_suffix(".json").write_text(json.dumps(settings, indent=1))
    return path


def single(model: ModAddNet, instance: int) -> ModAddNet:
    """Instance ``instance`` of ``model`` as a network of its own (K = 1)."""
    K = model.n_instances
    if isinstance(instance, bool) or not isinstance(instance, int) or not 0 <= instance < K:
        raise ConfigError(f"instance must be an integer in [0, {K}), got {instance!r}")
    if K == 1:
        return model
    one = ModAddNet(1, model.p, model.kind, torch_generator(0), rate=model.rate, d_model=model.W_E.shape[2],
                    n_heads=model.W_Q.shape[1] if model.kind == "attention" else 1, d_mlp=model.W_in.shape[2])
    one.load_state_dict({k: v[instance:instance + 1].clone() for k, v in model.state_dict().items()})
    return one


def _percentile(values, value: float) -> float:
    """The share of ``values`` at or below ``value``, in percent."""
    return float(100 * np.mean(np.asarray(values) <= value))


def analyse(model: ModAddNet, instance: int = 0) -> ModAddReport:
    """The chapters' analysis (``measures.analyse`` with their cluster and landmark settings, and
    Zhong's 100 triples) on instance ``instance`` of ``model``, with its accuracy, the nearer of
    Zhong's two algorithms and, for an attention network, its percentiles among his networks at its
    attention rate (``zhong.population``; his table's conventions: 100 triples, top incorrect logit)."""
    net = single(model, instance)
    m = measures.analyse(net, _ANALYSIS.min_cluster, _ANALYSIS.max_clusters, _ANALYSIS.n_landmarks,
                         triples=zhong.notebook_triples(net.p))
    grad, dist = float(m["gradient_symmetricity"]), float(m["distance_irrelevance"])
    grad_triples = float(m["gradient_symmetricity_triples"])
    dist_top = float(m["distance_irrelevance_top_incorrect"])
    population = None
    if net.kind == "attention":
        table = zhong.population(net.rate)
        if len(table):
            column = {name: table[zhong.POPULATION_METRICS[key]] for name, key in
                      (("gradient_symmetricity", "grad_sym"), ("distance_irrelevance", "dist_irr"))}
            population = {"networks": len(table),
                          "gradient_symmetricity": _percentile(column["gradient_symmetricity"], grad_triples),
                          "distance_irrelevance": _percentile(column["distance_irrelevance"], dist_top)}
    freqs, counts = np.unique(m["freqs"], return_counts=True)
    order = np.lexsort((freqs, -counts))
    clusters = []
    for i, f in enumerate(m["cluster_freqs"]):
        betti, pca2 = tuple(int(b) for b in m["betti"][i]), float(m["pca"][i][:2].sum())
        shape = "disc" if betti == (1, 0, 0) and pca2 >= measures.DISC_PCA_SHARE else \
            "torus" if betti == (1, 2, 1) else "neither disc nor torus"
        clusters.append({"frequency": int(f), "size": int(m["cluster_sizes"][i]), "betti": list(betti),
                         "pca2": pca2, "shape": shape,
                         "cka": dict(zip(measures.REFERENCES, m["cka"][i].tolist(), strict=True)),
                         "rsm": dict(zip(measures.REFERENCES, m["rsm"][i].tolist(), strict=True)),
                         "logit_betti": [int(b) for b in m["logit_betti"][i]],
                         "logit_pizza": float(m["logit_pizza"][i]), "simple_neuron_r2": float(m["r2"][i])})
    pad = float(np.mean(measures.torus_distance(m["phase_alignment"], net.p) == 0))
    return ModAddReport(
        p=net.p, kind=net.kind, rate=net.rate if net.kind == "attention" else None,
        accuracy=measures.task_accuracy(measures.tables(net)[1][0]),
        frequencies={int(freqs[i]): int(counts[i]) for i in order}, clusters=clusters,
        gradient_symmetricity=grad, gradient_symmetricity_triples=grad_triples, distance_irrelevance=dist,
        distance_irrelevance_top_incorrect=dist_top, algorithm=measures.algorithm(grad, dist),
        population=population, pad_on_diagonal=pad)


def exportable(scale: str) -> dict[str, Callable[[], ModAddNet]]:
    """The networks the chapters train at ``scale``, by name (``<architecture>/seed<seed>``), each a
    function that trains or loads it (the cache)."""
    cfg = ModAddConfig.preset(scale)
    specs = {f"{arch}/seed{seed}": cfg.spec(arch, seed)
             for arch in cfg.architectures for seed in range(cfg.seed, cfg.seed + cfg.seeds)}
    return {name: functools.partial(_trained, spec) for name, spec in specs.items()}


def _trained(spec) -> ModAddNet:
    return train_or_load(spec)[0]


def figures(network: ModAddNet, report: ModAddReport, instance: int = 0) -> dict:
    """For an attention network: where it lies on the plane of Zhong's two metrics among his networks
    at its attention rate (``plots.population_position``); none for an MLP, which his sweep lacks."""
    from interp_repro.modular_addition import plots

    if report.rate is None:
        return {}
    point = (report.gradient_symmetricity_triples, report.distance_irrelevance_top_incorrect)
    return {"zhong_plane": plots.population_position({f"this network (p = {report.p})": point}, report.rate)}
