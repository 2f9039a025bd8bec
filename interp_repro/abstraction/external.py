"""Representations the user brings: their file format, the loader that checks it, and the analysis
of Yang, Saxe & Latham (2026) on them, as the abstraction chapters apply it to their own networks.

The format (:data:`FORMAT`) is one NumPy ``.npz`` file, read without pickles:

- ``labels``: (N, 2), each sample's (shape, colour) in {+1, -1}, every one of the four classes present;
- ``layer0``, ``layer1``, ..., ``layerL``: the representations (N, d_l) of the same samples, layer by
  layer, ``layer0`` the input (widths may differ);
- ``Y`` (optional): the targets (N, d_out), for the alignment of each layer's kernel with theirs.

:func:`save` writes it (the round trip uses it); :func:`load` refuses a file that is not it in one
line (:class:`~interp_repro.core.ConfigError`).
"""

import functools
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from interp_repro.abstraction import measures
from interp_repro.abstraction.data import CLASSES
from interp_repro.abstraction.experiments.ablation import AblationConfig, GeluNetConfig
from interp_repro.abstraction.model import block_representations
from interp_repro.abstraction.train import train_gelu_net
from interp_repro.core import ConfigError
from interp_repro.core.device import cpu_threads
from interp_repro.core.external import read_npz, real_array

FORMAT = ("abstraction: an .npz with labels, (N, 2) of (shape, colour) in {+1, -1}, and layer0 ... layerL, "
          "the representations (N, d_l) of those samples layer by layer (layer0 the input); optional Y, "
          "the targets (N, d_out)")
"""The input format in one line, as ``interp-repro analyse --help`` gives it."""

MAX_LAYERS = 1000
"""The most layers a file may hold (``layer0`` ... ``layer999``)."""
_LAYER = re.compile(r"layer(0|[1-9][0-9]{0,2})")


@dataclass(frozen=True)
class Representations:
    """A network's representations of a two-factor data set: ``labels`` (N, 2), ``layers`` from the
    input (each (N, d_l)) and, if known, the targets ``Y`` (N, d_out)."""

    labels: np.ndarray
    layers: tuple[np.ndarray, ...]
    Y: np.ndarray | None = None


@dataclass(frozen=True)
class AbstractionReport:
    """The abstraction chapters' measures on one network's representations, one value per layer."""

    n_samples: int
    widths: list[int]
    alpha_shape: list[float]          # alpha of the shape concept (§"Abstraction score"), per layer
    alpha_colour: list[float]         # the same for colour
    probe_shape: list[float]          # cross-context linear probe accuracy for shape (local GELU ablation)
    probe_colour: list[float]
    whitened_alpha_shape: list[float]  # alpha in the probe's metric (ours)
    alpha_target: float | None        # alpha of the targets' shape concept, if Y is given
    depth_deviation: float | None     # largest gap of arctanh alpha from the line input -> last layer
    kernel_alignment: list[float] | None  # centred alignment of each layer's kernel with the targets'

    def as_dict(self) -> dict:
        return asdict(self)

    def lines(self) -> list[str]:
        """A short report for the terminal."""
        out = [f"{self.n_samples} samples, {len(self.widths)} layers (widths {self.widths})"]
        for i in range(len(self.widths)):
            align = ("" if self.kernel_alignment is None
                     else f", alignment with Y {self.kernel_alignment[i]:.3f}")
            out.append(f"layer {i}: alpha shape {self.alpha_shape[i]:.3f}, colour {self.alpha_colour[i]:.3f};"
                       f" probe shape {self.probe_shape[i]:.3f}, colour {self.probe_colour[i]:.3f}{align}")
        if self.alpha_target is not None:
            out.append(f"targets: alpha shape {self.alpha_target:.3f}")
        if self.depth_deviation is not None:
            out.append(f"arctanh alpha off the straight line through input and last layer by at most "
                       f"{self.depth_deviation:.3f} (the linear theory's depth law: 0)")
        return out


def _labels(labels: np.ndarray, where: str) -> np.ndarray:
    if labels.ndim != 2 or labels.shape[1] != 2 or not labels.shape[0]:
        raise ConfigError(f"{where}: labels must be (N, 2), got shape {labels.shape}")
    if not np.isin(labels, (-1, 1)).all():
        raise ConfigError(f"{where}: labels must hold (shape, colour) values in {{+1, -1}}")
    missing = [c for c in CLASSES if not ((labels[:, 0] == c[0]) & (labels[:, 1] == c[1])).any()]
    if missing:
        raise ConfigError(f"{where}: every (shape, colour) class needs a sample; none for {missing}")
    return labels


def load(path: str | Path) -> Representations:
    """Read and check a file in :data:`FORMAT`; a :class:`ConfigError` in one line otherwise."""
    where = str(path)
    names = tuple(f"layer{i}" for i in range(MAX_LAYERS))
    arrays = read_npz(path, ("labels", "Y", *names), "labels", FORMAT)
    read = {k: real_array(v, k, where) for k, v in arrays.items()}
    labels = _labels(read.pop("labels"), where)
    Y = read.pop("Y", None)
    found = sorted(int(k.removeprefix("layer")) for k in read if _LAYER.fullmatch(k))
    if found != list(range(len(found))) or len(found) < 1:
        raise ConfigError(f"{where}: the layers must be layer0, layer1, ... without a gap, got "
                          f"{[f'layer{i}' for i in found]}")
    layers = tuple(read[f"layer{i}"] for i in found)
    for i, Z in enumerate((*layers, *([] if Y is None else [Y]))):
        name = f"layer{i}" if i < len(layers) else "Y"
        if Z.ndim != 2 or Z.shape[0] != labels.shape[0] or not Z.shape[1]:
            raise ConfigError(f"{where}: {name} must be (N, d) with N = {labels.shape[0]} samples as labels, "
                              f"got shape {Z.shape}")
    return Representations(labels, layers, Y)


def save(network: Representations, path: str | Path) -> Path:
    """Write ``network`` in :data:`FORMAT`."""
    arrays = {"labels": network.labels, **{f"layer{i}": Z for i, Z in enumerate(network.layers)}}
    if network.Y is not None:
        arrays["Y"] = network.Y
    with Path(path).open("wb") as f:  # savez would add ".npz" to a name without it
        np.savez(f, **arrays)
    return Path(path)


def analyse(network: Representations, instance: int = 0) -> AbstractionReport:
    """The chapters' measures on ``network``, layer by layer: alpha for both concepts (the paper's
    abstraction score), the cross-context probe, alpha in the probe's metric, the depth law's
    straight line in arctanh alpha, and each layer kernel's alignment with the targets'. One network
    per file: ``instance`` must be 0."""
    if instance != 0 or isinstance(instance, bool):
        raise ConfigError(f"an abstraction file holds one network: instance must be 0, got {instance!r}")
    labels, layers = network.labels, network.layers
    scores = [measures.concept_scores(Z, labels) for Z in layers]
    alpha = np.array([s["alpha"] for s in scores])
    with np.errstate(invalid="ignore", divide="ignore"):
        usable = len(layers) >= 2 and np.isfinite(np.arctanh(alpha[:, 0])).all()
    return AbstractionReport(
        n_samples=labels.shape[0], widths=[Z.shape[1] for Z in layers],
        alpha_shape=alpha[:, 0].tolist(), alpha_colour=alpha[:, 1].tolist(),
        probe_shape=[s["probe"][0] for s in scores], probe_colour=[s["probe"][1] for s in scores],
        whitened_alpha_shape=[s["walpha"][0] for s in scores],
        alpha_target=None if network.Y is None else float(measures.abstraction_score(network.Y, labels)),
        depth_deviation=measures.depth_profile_deviation(alpha[None, :, 0]) if usable else None,
        kernel_alignment=(None if network.Y is None
                          else [measures.kernel_alignment(Z, network.Y) for Z in layers]))


def exportable(scale: str) -> dict[str, Callable[[], Representations]]:
    """The residual GELU networks of the local-ablation section at ``scale`` (``AblationConfig``), by
    name (``gelu/seed<k>``): each a function that trains the network again, on one thread as the cached
    run did (the chapters keep its scores, not its weights), and returns its held-out samples' labels
    with the input and every block's output."""
    cfg = AblationConfig.preset(scale)
    return {f"gelu/seed{k}": functools.partial(_gelu_network, cfg.net, k)
            for k in range(cfg.seed, cfg.seed + cfg.seeds)}


def _gelu_network(net: GeluNetConfig, seed: int) -> Representations:
    with cpu_threads(1):
        trained = train_gelu_net(**asdict(net), seed=seed)
        blocks = block_representations(trained.model, trained.X_test)
    return Representations(trained.labels_test, (trained.X_test, *blocks))


def figures(network: Representations, report: AbstractionReport, instance: int = 0) -> dict:
    """arctanh of the shape concept's alpha layer by layer (``plots.layer_profiles``), where every
    layer's alpha lies in (-1, 1)."""
    from interp_repro.abstraction import plots

    alpha = np.array(report.alpha_shape)
    if alpha.size < 2 or not (np.abs(alpha) < 1).all():
        return {}
    return {"alpha_by_layer": plots.layer_profiles({alpha.size - 1: alpha})}
