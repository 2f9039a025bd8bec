"""Reference solutions to the Schur-RNN exercises (Draeger 2026, ordered real Schur coordinates).

Each function answers one exercise of ``book/schur_rnn/exercises.md``; every computation goes through
:mod:`interp_repro.schur_rnn` (its ``measures`` for the maths).
"""

import numpy as np
import pandas as pd
import torch

from interp_repro.core import (
    check_fraction,
    check_positive_int,
    check_real_array,
    cpu_threads,
    torch_generator,
)
from interp_repro.schur_rnn.measures import (
    SUBSETS,
    ablate,
    ablated_matrices,
    ordered_real_schur,
    replay_accuracy,
    schur_blocks,
    subset_index,
)
from interp_repro.schur_rnn.model import CONSTRUCTIONS, RecurrentNet, rollout
from interp_repro.schur_rnn.plots import SUBSET_LABELS
from interp_repro.schur_rnn.tasks import make_batch
from interp_repro.schur_rnn.train import train


def _as_matrix(W) -> np.ndarray:
    arr = check_real_array("W", W, 2)
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"W must be a square matrix, got shape {arr.shape}")
    return arr


# --- 1. departure from normality -------------------------------------------------------------------

def departure_from_normality(W) -> dict[str, float]:
    """Three ways to measure how far W is from normal, as squares relative to ||W||_F^2:

    - ``henrici``: ||W||_F^2 - sum |lambda_i|^2 (Henrici's departure from normality; basis-free);
    - ``coupling``: ||N||_F^2, the mass of the strictly block-upper coupling of the ordered real Schur
      form W = Q (B + N) Q^T (Draeger 2026, §3);
    - ``blocks``: sum over the 2 x 2 diagonal blocks [[a, b], [c, a]] of (|b| - |c|)^2, the part of the
      departure that sits inside the blocks, so that henrici = coupling + blocks (ours).
    """
    W = _as_matrix(W)
    Q, T = ordered_real_schur(W)
    total = float(np.sum(W**2))
    if total == 0:
        raise ValueError("W is zero: the relative departure is undefined")
    inside, coupling = 0.0, float(np.sum(T**2))
    for start, size in schur_blocks(T):
        block = T[start:start + size, start:start + size]
        coupling -= float(np.sum(block**2))
        if size == 2:
            inside += float(abs(block[0, 1]) - abs(block[1, 0])) ** 2
    henrici = total - float(np.sum(np.abs(np.linalg.eigvals(W)) ** 2))
    return {"henrici": henrici / total, "coupling": coupling / total, "blocks": inside / total}


def construction_normality(n_hidden: int = 32, *, seed: int = 0) -> pd.DataFrame:
    """:func:`departure_from_normality` and the commutator ||W W^T - W^T W||_F / ||W||_F^2 of W_hh at
    initialisation for each of the paper's four constructions (``schur_rnn.model.RecurrentNet``)."""
    check_positive_int("n_hidden", n_hidden)
    rows = []
    for construction in CONSTRUCTIONS:
        net = RecurrentNet(1, 1, n_hidden, 1, construction, torch_generator(seed), dtype=torch.float64)
        with torch.no_grad():
            W = net.recurrent_matrix()[0].numpy()
        commutator = np.linalg.norm(W @ W.T - W.T @ W) / np.sum(W**2)
        rows.append({"construction": construction, **departure_from_normality(W), "commutator": commutator})
    return pd.DataFrame(rows)


# --- 2. T_C->R carries fast inputs into slow modes -------------------------------------------------

def two_mode_matrix(slow: float, fast: float, coupling: float) -> np.ndarray:
    """The 2 x 2 recurrent matrix [[slow, coupling], [0, fast]]: a slow mode fed by a fast one."""
    values = np.array([slow, fast, coupling], dtype=np.float64)
    if not np.isfinite(values).all() or not abs(slow) > abs(fast):
        raise ValueError(f"need finite values with |slow| > |fast|, got slow={slow!r}, fast={fast!r}")
    return np.array([[slow, coupling], [0.0, fast]])


def pulse_response(W, x, steps: int = 60, alpha: float = 0.9,
                   subsets=((), ("CR",), ("RR", "CR", "CC"))) -> pd.DataFrame:
    """||W^t x|| for t = 0..steps under the full W and each ablation in ``subsets``
    (``schur_rnn.measures.ablate``, Draeger 2026, §3): the linear part of the RNN's memory of an input
    pulse x. One column per subset, labelled as in ``schur_rnn.plots.SUBSET_LABELS``."""
    W = _as_matrix(W)
    x = np.asarray(x, dtype=np.float64)
    if x.shape != (W.shape[0],) or not np.isfinite(x).all():
        raise ValueError(f"x must be a finite vector of length {W.shape[0]}, got shape {x.shape}")
    check_positive_int("steps", steps)
    check_fraction("alpha", alpha)
    out = {"t": np.arange(steps + 1)}
    for subset in subsets:
        index = subset_index(subset)
        M = ablate(W, SUBSETS[index], alpha) if index else W
        h, norms = x.copy(), []
        for _ in range(steps + 1):
            norms.append(np.linalg.norm(h))
            h = M @ h
        out[SUBSET_LABELS[index]] = np.array(norms)
    return pd.DataFrame(out)


# --- 3. a small copy network and its ablation profile ---------------------------------------------

def small_copy_profile(n_symbols: int = 4, dim: int = 4, n_hidden: int = 24, *,
                       construction: str = "orthogonal", steps: int = 1500, seeds: int = 2,
                       train_replay: int = 8, replay: int = 32, batch: int = 64, alpha: float = 0.9,
                       seed: int = 0) -> pd.DataFrame:
    """Train ``seeds`` small tanh RNNs on a shorter copy task (``schur_rnn.train.train`` with the copy
    task's options; store ``n_symbols`` symbols of ``dim`` bits) and score the eight ablations of
    Draeger (2026, Figure 1) on 512 held-out sequences drawn from ``seed + 2`` (the sequences
    ``train`` evaluates on): replay accuracy per ablation (mean and min over seeds) and the removed
    Schur mass ||T - T~||_F / ||T||_F. ``table.attrs["trained accuracy"]`` holds the (seeds,)
    accuracies ``train`` itself reported for the unablated networks."""
    options = {"n_symbols": n_symbols, "dim": dim, "replay": replay}
    with cpu_threads(1):  # uncached, so not pinned by core.cached; a second thread only waits on these sizes
        res = train("copy", construction, n_hidden, seeds=seeds, steps=steps, seed=seed, batch=batch,
                    train_replay=train_replay, task_options=options,
                    desc=f"copy {n_symbols}x{dim}, N_h={n_hidden}")
    matrices, mass, _, _ = ablated_matrices(res.W_hh.astype(np.float64), alpha)
    inputs, targets, mask = make_batch("copy", 512, torch_generator(seed + 2), **options)
    W_xh = torch.as_tensor(res.W_xh)
    with torch.no_grad():
        accuracy = np.stack([replay_accuracy(rollout(W_xh, m, res.W_hy, inputs), targets, mask).numpy()
                             for m in matrices])  # (8, seeds)
    table = pd.DataFrame({"ablation": SUBSET_LABELS, "accuracy (mean)": accuracy.mean(1),
                          "accuracy (min)": accuracy.min(1), "Schur mass removed": mass.mean(1)})
    table.attrs["trained accuracy"] = res.accuracy  # what train() measured on the same sequences
    return table
