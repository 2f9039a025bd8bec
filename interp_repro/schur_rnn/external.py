"""A tanh RNN the user brings: its file format, the loader that checks it, and the analysis of
Draeger (2026, §3) on it, as the Schur chapters apply it to their own networks.

The format (:data:`FORMAT`) is one NumPy ``.npz`` file, read without pickles:

- ``W_hh``: the recurrent matrix, (N_h, N_h), or (K, N_h, N_h) for K networks;
- ``W_xh`` and ``W_hy`` (optional, together): the input (N_h, N_x) and output (N_y, N_h) weights of
  h_t = tanh(W_xh x_t + W_hh h_{t-1}), y_t = W_hy h_t, with the same leading K if W_hh has one;
- ``task`` (optional): the task it was trained on, if it is one of ours (``data.TASKS``), for the
  ablation scores on held-out data;
- ``alpha`` (optional, default 0.9): the split threshold; ``eval_seed`` (default 2) and
  ``eval_batch`` (default 512): the held-out batch the ablations are scored on.

:func:`save` writes it; :func:`load` refuses a file that is not it in one line
(:class:`~interp_repro.core.ConfigError`).
"""

import functools
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from interp_repro.core import ConfigError
from interp_repro.core.device import flush_denormals
from interp_repro.core.external import read_npz, real_array
from interp_repro.schur_rnn import experiments, measures
from interp_repro.schur_rnn.data import TASKS, task_dims

FORMAT = ("schur_rnn: an .npz with W_hh, (N_h, N_h) or (K, N_h, N_h); optional W_xh (N_h, N_x) and W_hy "
          f"(N_y, N_h) together; task, one of {', '.join(TASKS)}; alpha; eval_seed; eval_batch")
"""The input format in one line, as ``interp-repro analyse --help`` gives it."""

KEYS = ("W_hh", "W_xh", "W_hy", "task", "alpha", "eval_seed", "eval_batch")


@dataclass(frozen=True)
class RecurrentWeights:
    """K tanh RNNs (Draeger 2026, eq. 1-2): W_hh (K, N_h, N_h), and W_xh, W_hy with the same K where
    known; the task they were trained on, if one of ours, and the held-out batch to score them on."""

    W_hh: np.ndarray
    W_xh: np.ndarray | None = None
    W_hy: np.ndarray | None = None
    task: str | None = None
    alpha: float = 0.9
    eval_seed: int = 2
    eval_batch: int = 512


@dataclass(frozen=True)
class SchurReport:
    """The ordered real Schur form of one network's W_hh and, for one of our tasks, its 8 ablations."""

    n_hidden: int
    alpha: float
    rho: float                     # the spectral radius
    moduli: list[float]            # |lambda| of each diagonal block, in the form's order (non-increasing)
    block_sizes: list[int]         # 1 or 2 for each diagonal block, same order
    r: int                         # |R|: the rows of the blocks with |lambda| >= alpha rho
    shares: dict[str, float]       # shares of ||T||_F^2 in B, N_RR, T_C->R and N_CC
    norms: dict[str, float]        # Frobenius norms of the same four parts
    task: str | None
    ablations: dict[str, dict[str, float]] | None  # per subset: fvu, delta_fvu, mass (and accuracy: copy)

    def as_dict(self) -> dict:
        return asdict(self)

    def lines(self) -> list[str]:
        """A short report for the terminal."""
        pairs = sum(size == 2 for size in self.block_sizes)
        out = [f"N_h = {self.n_hidden}: rho = {self.rho:.4f}, {len(self.block_sizes)} diagonal blocks "
               f"({pairs} complex pairs); |R| = {self.r} at alpha = {self.alpha}",
               "||T||_F^2 shares: " + ", ".join(f"{k} {v:.3f}" for k, v in self.shares.items()),
               "norms: " + ", ".join(f"{k} {v:.3f}" for k, v in self.norms.items())]
        if self.ablations is None:
            out.append("no ablation scores: give W_xh, W_hy and one of our tasks")
        else:
            score = "accuracy" if self.task == "copy" else "fvu"
            out.append(f"ablations on {self.task} ({score}): " + ", ".join(
                f"{label} {values[score]:.3f}" for label, values in self.ablations.items()))
        return out


def _scalar(data, key: str, where: str, kind: type):
    value = real_array(data[key], key, where)
    if value.shape != () or (kind is int and value != int(value)):
        raise ConfigError(f"{where}: {key} must be one {kind.__name__}, got {data[key]!r}")
    return kind(value)


def _stacked(W, name: str, K: int, rows: int | None, cols: int | None, where: str) -> np.ndarray:
    W = W[None] if W.ndim == 2 else W
    if W.ndim != 3 or W.shape[0] != K or (rows is not None and W.shape[1] != rows) \
            or (cols is not None and W.shape[2] != cols) or not W.size:
        want = f"({rows or 'N'}, {cols or 'N'})" + (f" or ({K}, ...)" if K > 1 else "")
        raise ConfigError(f"{where}: {name} must be {want}, got shape {W.shape}")
    return W


def load(path: str | Path) -> RecurrentWeights:
    """Read and check a file in :data:`FORMAT`; a :class:`ConfigError` in one line otherwise."""
    where = str(path)
    data = read_npz(path, KEYS, "W_hh", FORMAT)
    if ("W_xh" in data) != ("W_hy" in data):
        raise ConfigError(f"{where}: W_xh and W_hy come together (the ablations need both)")
    W_hh = real_array(data["W_hh"], "W_hh", where)
    if W_hh.ndim not in (2, 3) or W_hh.shape[-1] != W_hh.shape[-2] or not W_hh.size:
        raise ConfigError(f"{where}: W_hh must be square, (N_h, N_h) or (K, N_h, N_h), got shape "
                          f"{W_hh.shape}")
    W_hh = W_hh[None] if W_hh.ndim == 2 else W_hh
    K, n = W_hh.shape[:2]
    task = None
    if "task" in data:
        task = str(data["task"]) if data["task"].dtype.kind == "U" and data["task"].shape == () else None
        if task not in TASKS:
            raise ConfigError(f"{where}: task must be one of {', '.join(TASKS)}, got {data['task']!r}")
    W_xh = W_hy = None
    if "W_xh" in data:
        n_x, n_y = task_dims(task) if task else (None, None)
        W_xh = _stacked(real_array(data["W_xh"], "W_xh", where), "W_xh", K, n, n_x, where)
        W_hy = _stacked(real_array(data["W_hy"], "W_hy", where), "W_hy", K, n_y, n, where)
    settings = {key: _scalar(data, key, where, kind) for key, kind in
                (("alpha", float), ("eval_seed", int), ("eval_batch", int)) if key in data}
    if not 0 < settings.get("alpha", 0.9) <= 1:
        raise ConfigError(f"{where}: alpha must be in (0, 1], got {settings['alpha']}")
    if settings.get("eval_seed", 0) < 0 or settings.get("eval_batch", 1) < 1:
        raise ConfigError(f"{where}: eval_seed must be >= 0 and eval_batch >= 1")
    return RecurrentWeights(W_hh, W_xh, W_hy, task, **settings)


def save(network: RecurrentWeights, path: str | Path) -> Path:
    """Write ``network`` in :data:`FORMAT`."""
    arrays = {k: np.asarray(getattr(network, k)) for k in KEYS if getattr(network, k) is not None}
    with Path(path).open("wb") as f:  # savez would add ".npz" to a name without it
        np.savez(f, **arrays)
    return Path(path)


def analyse(network: RecurrentWeights, instance: int = 0) -> SchurReport:
    """The ordered real Schur form of network ``instance``'s W_hh, its R/C split at ``alpha`` and the
    mass of each part (§3); with W_xh, W_hy and one of our tasks, the 8 ablations scored on the
    held-out batch (``measures.ablation_profile``, as the chapters score their units)."""
    K = network.W_hh.shape[0]
    if isinstance(instance, bool) or not isinstance(instance, int) or not 0 <= instance < K:
        raise ConfigError(f"instance must be an integer in [0, {K}), got {instance!r}")
    W = network.W_hh[instance]
    _, T = measures.ordered_real_schur(W)
    r = measures.split_indices(T, network.alpha)
    blocks = measures.schur_blocks(T)
    moduli = measures.block_moduli(T).tolist()
    shares = measures.schur_parts(T, r)
    ablations = None
    if network.task is not None and network.W_xh is not None:
        one = {"W_hh": network.W_hh[instance:instance + 1], "W_xh": network.W_xh[instance:instance + 1],
               "W_hy": network.W_hy[instance:instance + 1]}
        with flush_denormals():  # as the chapters profile their units (experiments.profile_unit)
            profile = measures.ablation_profile(one, network.task, network.alpha, seed=network.eval_seed,
                                                batch=network.eval_batch)
        scores = ("fvu", "delta_fvu", "mass") + (("accuracy",) if network.task == "copy" else ())
        ablations = {label: {s: float(profile[s][i, 0]) for s in scores}
                     for i, label in enumerate(measures.SUBSET_LABELS)}
    return SchurReport(
        n_hidden=W.shape[0], alpha=network.alpha, rho=max(moduli), moduli=moduli,
        block_sizes=[size for _, size in blocks], r=r,
        shares=dict(zip(measures.PARTS, shares.tolist(), strict=True)),
        norms=dict(zip(measures.PARTS, np.sqrt(shares * np.sum(T ** 2)).tolist(), strict=True)),
        task=network.task, ablations=ablations)


def exportable(scale: str) -> dict[str, Callable[[], RecurrentWeights]]:
    """The units the chapters train at ``scale``, by name (``copy/<construction>/<N_h>`` and
    ``<task>/<construction>``), each a function that trains or loads it (the cache) with the held-out
    batch its profile is scored on."""
    copy, neuro = experiments.CopyConfig.preset(scale), experiments.NeuroConfig.preset(scale)
    units = {f"copy/{s.construction}/{s.n_hidden}": (s, copy) for s in copy.specs()}
    units |= {f"{s.task}/{s.construction}": (s, neuro) for s in neuro.specs()}
    return {name: functools.partial(_unit, spec, cfg) for name, (spec, cfg) in units.items()}


def _unit(spec: experiments.TrainSpec, cfg: experiments.UnitSettings) -> RecurrentWeights:
    w = experiments.train_or_load(spec)
    return RecurrentWeights(w["W_hh"], w["W_xh"], w["W_hy"], spec.task, cfg.alpha, spec.seed + 2,
                            cfg.eval_batch)


def figures(network: RecurrentWeights, report: SchurReport, instance: int = 0) -> dict:
    """For a copy-task network: its replay accuracy under each ablation against the paper's
    (``plots.seed_strip``); none for another task or none."""
    from interp_repro.schur_rnn import plots
    from interp_repro.schur_rnn.experiments import PAPER_COPY_ACCURACY

    if report.ablations is None or network.task != "copy":
        return {}
    accuracy = np.array([[scores["accuracy"]] for scores in report.ablations.values()])
    return {"ablations": plots.seed_strip(accuracy, PAPER_COPY_ACCURACY)}
