"""A toy model the user brings: its file format, the loader that checks it, and the analysis of
Elhage et al. (2022) on it, as the superposition chapters apply it to their own models.

The format (:data:`FORMAT`) is one NumPy ``.npz`` file, read without pickles:

- ``W``: the weights, either the paper's (m, n) matrix (hidden x features) or the official
  notebook's instance tensor (K, n, m), one model per instance;
- ``b`` (optional): the output bias, (n,) or (K, n);
- ``importance`` (optional): each feature's importance, (n,);
- ``density`` (optional): the probability that a feature is present, 1 - S, one number in (0, 1].

:func:`save` writes it (``interp-repro export`` and the round trip use it); :func:`load` refuses a
file that is not it in one line (:class:`~interp_repro.core.ConfigError`).
"""

import functools
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from interp_repro.core import ConfigError
from interp_repro.core.external import read_npz, real_array
from interp_repro.superposition import experiments, measures

FORMAT = ("superposition: an .npz with W, the (m, n) matrix (hidden x features) or the notebook's (K, n, m) "
          "instances; optional b, (n,) or (K, n); importance, (n,); density, one number in (0, 1]")
"""The input format in one line, as ``interp-repro analyse --help`` gives it."""

GEOMETRY = {"digon": "1/2", "triangle": "2/3", "tetrahedron": "3/4", "pentagon": "2/5",
            "square antiprism": "3/8"}
"""The uniform polytopes of §"Geometry" by the per-feature dimensionality D_i of their features."""


@dataclass(frozen=True)
class ToyNetwork:
    """One or more toy models: W as (K, m, n), the paper's m x n per instance (``model.ToyModel``'s
    layout), with its bias (K, n) and, if known, the feature importance (n,) and density."""

    W: np.ndarray
    b: np.ndarray | None = None
    importance: np.ndarray | None = None
    density: float | None = None


@dataclass(frozen=True)
class ToyReport:
    """The superposition chapters' measures on one model (one instance of a :class:`ToyNetwork`)."""

    n_features: int
    n_hidden: int
    dstar: float                   # D* = m / ||W||_F^2 (§"Geometry")
    squared_frobenius: float       # ||W||_F^2: about m for m features with a dimension each
    dims: list[float]              # D_i per feature (§"Geometry")
    norms: list[float]             # ||W_i|| per feature
    superposition: list[float]     # sum over j != i of (W_i_hat . W_j)^2 per feature
    represented: int               # features with ||W_i|| > 0.5
    geometry: dict[str, int]       # learned features whose D_i is nearest each polytope's, within 0.025
    fraction_share: float | None   # share of learned features near a named fraction; None if none learned
    phase: str | None              # the extra (last) feature's phase, for 2 -> 1 and 3 -> 2 models
    analytic_phase: str | None     # the closed form's phase there, given importance and density

    def as_dict(self) -> dict:
        return asdict(self)

    def lines(self) -> list[str]:
        """A short report for the terminal."""
        out = [f"n = {self.n_features} features, m = {self.n_hidden} hidden dimensions: "
               f"D* = {self.dstar:.3f}, ||W||_F^2 = {self.squared_frobenius:.3f}, "
               f"{self.represented} features represented",
               "D_i: " + " ".join(f"{d:.2f}" for d in self.dims)]
        shapes = ", ".join(f"{n} {name}" for name, n in self.geometry.items() if n)
        share = "no feature learned" if self.fraction_share is None else \
            f"{self.fraction_share:.0%} of the learned features near a named fraction"
        out.append(f"geometry: {shapes or 'no feature at a polytope fraction'} ({share})")
        if self.phase is not None:
            closed = f", closed form: {self.analytic_phase}" if self.analytic_phase else \
                " (give importance and density for the closed form's)"
            out.append(f"phase of the extra feature: {self.phase}{closed}")
        return out


def _network(W: np.ndarray, b, importance, density, where: str) -> ToyNetwork:
    if W.ndim == 2:
        W = W[None]  # the paper's (m, n)
    elif W.ndim == 3:
        W = np.ascontiguousarray(W.transpose(0, 2, 1))  # the notebook's (K, n, m), stored as ours
    else:
        raise ConfigError(f"{where}: W must be (m, n) or the notebook's (K, n, m), got shape {W.shape}")
    K, m, n = W.shape
    if not W.size:
        raise ConfigError(f"{where}: W is empty (shape {W.shape})")
    if b is not None:
        if b.shape not in ((n,), (K, n)):
            raise ConfigError(f"{where}: b must be ({n},) or ({K}, {n}) for W of {n} features, got shape "
                              f"{b.shape}")
        b = np.broadcast_to(b, (K, n)).copy()
    if importance is not None and importance.shape != (n,):
        raise ConfigError(f"{where}: importance must be ({n},), one per feature, got shape "
                          f"{importance.shape}")
    if importance is not None and not (importance > 0).all():
        raise ConfigError(f"{where}: every importance must be > 0")
    if density is not None:
        if density.shape != ():
            raise ConfigError(f"{where}: density must be one number, got shape {density.shape}")
        density = float(density)
        if not 0 < density <= 1:
            raise ConfigError(f"{where}: density must be in (0, 1], got {density}")
    return ToyNetwork(W, b, importance, density)


def load(path: str | Path) -> ToyNetwork:
    """Read and check a file in :data:`FORMAT`; a :class:`ConfigError` in one line otherwise."""
    arrays = read_npz(path, ("W", "b", "importance", "density"), "W", FORMAT)
    read = {k: real_array(v, k, str(path)) for k, v in arrays.items()}
    return _network(read["W"], read.get("b"), read.get("importance"), read.get("density"), str(path))


def save(network: ToyNetwork, path: str | Path) -> Path:
    """Write ``network`` in :data:`FORMAT` (W as the notebook's (K, n, m) instances)."""
    arrays = {"W": network.W.transpose(0, 2, 1)}
    arrays |= {k: np.asarray(v) for k, v in (("b", network.b), ("importance", network.importance),
                                             ("density", network.density)) if v is not None}
    with Path(path).open("wb") as f:  # savez would add ".npz" to a name without it
        np.savez(f, **arrays)
    return Path(path)


def _phases(W: np.ndarray, importance, density) -> tuple[str | None, str | None]:
    m, n = W.shape
    if (n, m) not in ((2, 1), (3, 2)):
        return None, None
    phase = measures.PHASES[int(measures.empirical_phase(W))]
    if importance is None or density is None:
        return phase, None
    r = importance[-1] / importance[0]
    return phase, measures.PHASES[int(measures.analytic_phase(n)(density, r))]


def analyse(network: ToyNetwork, instance: int = 0) -> ToyReport:
    """The chapters' measures on instance ``instance`` of ``network`` (§"Demonstrating
    superposition", §"Superposition as a phase change", §"Geometry")."""
    K = network.W.shape[0]
    if isinstance(instance, bool) or not isinstance(instance, int) or not 0 <= instance < K:
        raise ConfigError(f"instance must be an integer in [0, {K}), got {instance!r}")
    W = network.W[instance]
    dims = measures.feature_dimensionality(W)
    learned = dims[dims > 0.1]
    fractions = np.array([measures.FRACTIONS[f] for f in GEOMETRY.values()])
    gap = np.abs(learned[:, None] - fractions[None, :])
    nearest = np.where(gap.min(axis=1) <= 0.025, gap.argmin(axis=1), -1)  # each feature counted once
    near = {name: int(np.sum(nearest == i)) for i, name in enumerate(GEOMETRY)}
    phase, closed = _phases(W, network.importance, network.density)
    return ToyReport(
        n_features=W.shape[1], n_hidden=W.shape[0], dstar=float(measures.dimensions_per_feature(W)),
        squared_frobenius=measures.squared_frobenius(W), dims=dims.tolist(),
        norms=measures.feature_norms(W).tolist(), superposition=measures.superposition(W).tolist(),
        represented=int(measures.represented(W).sum()), geometry=near,
        fraction_share=measures.nearest_fraction_share(dims) if learned.size else None,
        phase=phase, analytic_phase=closed)


def exportable(scale: str) -> dict[str, Callable[[], ToyNetwork]]:
    """The 5 -> 2 models of the book's first figure at ``scale`` (``experiments.run_intro``), one per
    density, by name (``five_two/density<d>``), each a function that trains or loads them (the cache)."""
    cfg = experiments.IntroConfig.preset(scale)
    return {f"five_two/density{d:.4g}": functools.partial(_intro_model, cfg, i)
            for i, d in enumerate(cfg.densities)}


def _intro_model(cfg: experiments.IntroConfig, i: int) -> ToyNetwork:
    res = experiments.run_intro(cfg)
    return ToyNetwork(res["W"][i][None], res["b"][i][None], res["importance"], float(res["density"][i]))


def figures(network: ToyNetwork, report: ToyReport, instance: int = 0) -> dict:
    """The chapters' figure of one model: its feature directions in a 2-d hidden space, else its
    weight matrix (``plots``)."""
    from interp_repro.superposition import plots

    W = network.W[instance]
    title = f"{report.n_features} features, {report.n_hidden} dimensions"
    if report.n_hidden == 2:
        return {"directions": plots.embeddings_2d(W[None], [title], network.importance)}
    return {"weights": plots.weight_matrices(W[None], [title])}
