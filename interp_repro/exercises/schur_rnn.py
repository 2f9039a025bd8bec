"""Reference solutions to the Schur-RNN exercises (Draeger 2026, ordered real Schur coordinates).

Each function answers one exercise of ``book/schur_rnn/exercises.md``; every computation goes through
:mod:`interp_repro.schur_rnn` (its ``measures`` for the maths). The ``check_*`` functions test a
student's own code for the coding exercises against the library's reference (``measures.split_indices``,
``measures.ablate_T``), saying what is wrong without giving the answer.
"""

from collections.abc import Callable

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
from interp_repro.exercises.checking import array, attempt, close, passed, require, withholds
from interp_repro.schur_rnn.data import make_batch
from interp_repro.schur_rnn.measures import (
    SUBSET_LABELS,
    SUBSETS,
    ablate,
    ablate_T,
    ablated_matrices,
    eigen_split,
    ordered_real_schur,
    replay_accuracy,
    schur_blocks,
    split_indices,
    subset_index,
)
from interp_repro.schur_rnn.model import CONSTRUCTIONS, RecurrentNet, rollout
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
    pulse x. One column per subset, labelled as in ``schur_rnn.measures.SUBSET_LABELS``."""
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


# --- coding exercises: the student's functions, checked ---------------------------------------------

def _ordered_schur_form(diagonal: list[np.ndarray], seed: int) -> np.ndarray:
    """A real Schur form T with the given diagonal blocks (1x1 or 2x2, in LAPACK's standard form: equal
    diagonal entries, off-diagonal entries of opposite signs), top to bottom, and random coupling N."""
    n = sum(len(block) for block in diagonal)
    T = np.triu(np.random.default_rng(seed).standard_normal((n, n)) * 0.5, 1)
    start = 0
    for block in diagonal:
        size = len(block)
        T[start:start + size, start:start + size] = block
        start += size
    return T


def _pair(modulus: float, angle: float, skew: float = 1.0) -> np.ndarray:
    """A 2 x 2 block [[a, b], [c, a]] in standard form whose complex pair has |lambda| = ``modulus`` and
    argument ``angle``; ``skew`` = |b| / |c| (1 for a scaled rotation)."""
    a, s = modulus * np.cos(angle), modulus * np.sin(angle)
    return np.array([[a, -s * np.sqrt(skew)], [s / np.sqrt(skew), a]])


def _random_diagonal(rng: np.random.Generator) -> list[np.ndarray]:
    """One to five diagonal blocks of random sizes, ordered by |lambda| with gaps of at least 0.05 and a
    largest |lambda| anywhere in (0.1, 3); real blocks of either sign, complex pairs skewed."""
    sizes = rng.integers(1, 3, int(rng.integers(1, 6)))
    moduli = rng.uniform(0.05, 1.0) + np.cumsum(rng.uniform(0.05, 0.4, sizes.size))[::-1]
    return [np.array([[m * rng.choice([-1.0, 1.0])]]) if size == 1
            else _pair(m, rng.uniform(0.2, np.pi - 0.2), float(np.exp(rng.uniform(-1.0, 1.0))))
            for size, m in zip(sizes, moduli, strict=True)]


def _modulus(block: np.ndarray) -> float:
    """|lambda| of a diagonal block: |t| for a 1x1 block, the square root of |det| for a 2x2 one."""
    return float(abs(block[0, 0]) if len(block) == 1 else np.sqrt(abs(np.linalg.det(block))))


def _moduli_text(diagonal: list[np.ndarray]) -> str:
    return ", ".join(f"{_modulus(block):.3g}" + (" (2x2)" if len(block) == 2 else "") for block in diagonal)


def _rows_in_r(diagonal: list[np.ndarray], moduli: list[float], threshold: float, *, strict: bool = False,
               rows: bool = True) -> int:
    """The rows (without ``rows``, the blocks) of the leading blocks whose ``moduli`` reach ``threshold``
    (exceed it, with ``strict``): r, or r as one mistake computes it."""
    count = 0
    for block, m in zip(diagonal, moduli, strict=True):
        if m < threshold or (strict and m == threshold):
            break
        count += len(block) if rows else 1
    return count


def _split_mistakes(diagonal: list[np.ndarray], alpha: float) -> dict[str, int]:
    """What r each named mistake gives for these blocks and alpha, keyed by the hint that names it."""
    true = [_modulus(block) for block in diagonal]
    entry = [abs(float(block[0, 0])) for block in diagonal]
    rooted = [float(np.sqrt(abs(b[0, 0]))) if len(b) == 1 else m for b, m in zip(diagonal, true, strict=True)]
    signed = [float(b[0, 0]) if len(b) == 1 else m for b, m in zip(diagonal, true, strict=True)]
    rho = max(true)
    return {
        "r counts rows: a 2x2 block gives two": _rows_in_r(diagonal, true, alpha * rho, rows=False),
        "|lambda| of a 2x2 block is the square root of its determinant, not a diagonal entry":
            _rows_in_r(diagonal, entry, alpha * max(entry)),
        "|lambda| of a 1x1 block is the absolute value of its entry, with no square root":
            _rows_in_r(diagonal, rooted, alpha * max(rooted)),
        "a real eigenvalue counts by its modulus |lambda|, whatever its sign":
            _rows_in_r(diagonal, signed, alpha * max(signed)),
        "the threshold is alpha rho, with rho the largest |lambda|, not alpha alone":
            _rows_in_r(diagonal, true, alpha),
        "a block with |lambda| exactly alpha rho is in R (>=, not >)":
            _rows_in_r(diagonal, true, alpha * rho, strict=True),
    }


_SPLIT_CASES = (  # (blocks, alpha): each named mistake of _split_mistakes gives a wrong r on one of them
    ([_pair(1.0, 1.0), np.array([[0.95]]), np.array([[0.5]]), np.array([[-0.2]])], 0.9),
    ([np.array([[1.6]]), np.array([[-1.55]]), _pair(1.5, 2.0, 3.0), np.array([[0.5]])], 0.7),
    ([np.array([[1.6]]), np.array([[0.8]]), _pair(0.6, 0.5), np.array([[0.1]])], 0.5),
    ([np.array([[0.64]]), np.array([[-0.5]]), _pair(0.3, 1.0, 2.0)], 0.7),
    ([np.array([[2.5]]), _pair(2.0, 2.5, 0.5), _pair(0.9, 0.3)], 0.3),
    ([np.array([[0.5]]), np.array([[0.3]]), _pair(0.2, 1.0)], 0.7),
)
SPLIT_SEEDS = range(100, 106)
"""The seeds of the random ordered Schur forms every split_index and ablate_coupling is checked on."""


def _random_split_case(seed: int) -> tuple[list[np.ndarray], float]:
    """Random blocks (:func:`_random_diagonal`) and an alpha in (0, 1] between two of their moduli."""
    rng = np.random.default_rng(seed)
    diagonal = _random_diagonal(rng)
    moduli = [_modulus(block) for block in diagonal]
    k = int(rng.integers(len(moduli)))  # R: the first k + 1 blocks
    low = moduli[k + 1] if k + 1 < len(moduli) else 0.0
    return diagonal, (moduli[k] + low) / 2 / moduli[0]


@withholds(split_indices, eigen_split)
def check_split_index(split_index: Callable) -> None:
    """Check ``split_index(T, alpha)``: for an ordered real Schur form T, the number r of leading rows
    in R (the blocks with |lambda| >= alpha rho(W); Draeger 2026, §3), as ``measures.split_indices``, on
    fixed blocks that tell the usual mistakes apart and on random ones (``SPLIT_SEEDS``)."""
    name = "split_index"
    cases = [*_SPLIT_CASES, *(_random_split_case(seed) for seed in SPLIT_SEEDS)]
    forms = [_ordered_schur_form(diagonal, k) for k, (diagonal, _) in enumerate(cases)]
    answers = []
    for T, (_, alpha) in zip(forms, cases, strict=True):
        r = attempt(split_index, name, T.copy(), alpha)
        require(isinstance(r, int | np.integer) and not isinstance(r, bool) and 0 <= r <= len(T),
                f"{name} must return a whole number of rows between 0 and {len(T)}, got {r!r}")
        answers.append(r)
    mistakes = [_split_mistakes(diagonal, alpha) for diagonal, alpha in cases]
    named = [hint for hint in mistakes[0]  # a mistake is named only if it gives every one of these answers
             if all(wrong[hint] == got for wrong, got in zip(mistakes, answers, strict=True))]
    hint = f" ({named[0]})" if len(named) == 1 else ""
    for T, (diagonal, alpha), r in zip(forms, cases, answers, strict=True):
        require(bool(hint) or r in [start for start, _ in schur_blocks(T)] + [len(T)],
                f"r = {r} cuts a 2x2 block in two: a complex pair's two rows are both in R or both in C")
        require(r == split_indices(T, alpha), f"for blocks of |lambda| {_moduli_text(diagonal)} and alpha = "
                f"{alpha:.3g} your r = {r} is wrong{hint}")
    passed(name, 3 * len(cases))


_PART_NAMES = {"RR": "N_RR, the coupling among the R rows and columns",
               "CR": "T_C→R, the rows of R (the first r) in the columns of C",
               "CC": "N_CC, the coupling among the C rows and columns"}


def _ablation_cases() -> list[tuple[np.ndarray, int, tuple[str, ...]]]:
    """(T, r, parts): one fixed T with a 2x2 block in R and in C, split after R, with each part alone and
    all three; then random ordered Schur forms (``SPLIT_SEEDS``) that end in a 2x2 block, each split at a
    random block boundary before it, with all eight subsets of parts."""
    fixed = _ordered_schur_form([_pair(1.0, 1.0, 2.0), np.array([[0.95]]), _pair(0.5, 2.0, 0.5),
                                 np.array([[-0.2]])], 0)
    cases = [(fixed, 3, parts) for parts in ((), ("RR",), ("CR",), ("CC",), ("RR", "CR", "CC"))]
    for seed in SPLIT_SEEDS:
        rng = np.random.default_rng(seed)
        diagonal = _random_diagonal(rng)
        diagonal.append(_pair(0.5 * _modulus(diagonal[-1]), rng.uniform(0.2, np.pi - 0.2),
                              float(np.exp(rng.uniform(-1.0, 1.0)))))
        T = _ordered_schur_form(diagonal, seed)
        r = int(rng.choice([start for start, _ in schur_blocks(T)]))  # C holds at least the last block
        cases += [(T, r, parts) for parts in SUBSETS]
    return cases


@withholds(ablate_T)
def check_ablate_coupling(ablate_coupling: Callable) -> None:
    """Check ``ablate_coupling(T, r, parts)``: T with the chosen parts of its coupling N zeroed ("RR",
    "CR", "CC"; Draeger 2026, §3), as ``measures.ablate_T``, on a fixed T and on random ordered Schur
    forms split before a 2x2 block (``SPLIT_SEEDS``)."""
    name = "ablate_coupling"
    cases = _ablation_cases()
    for T, r, parts in cases:
        blocks = np.zeros_like(T, dtype=bool)
        for start, size in schur_blocks(T):
            blocks[start:start + size, start:start + size] = True
        given = T.copy()
        out = array(attempt(ablate_coupling, name, given, r, set(parts)), name, T.shape, "a matrix like T")
        require(close(given, T), f"{name} changed the T it was given: work on a copy")
        removed = set(parts) or "{}"
        require(close(out[blocks], T[blocks]) and close(np.tril(out, -1), np.tril(T, -1)),
                f"removing {removed} changed a diagonal block of T: an ablation removes coupling "
                "only, so the spectrum stays")
        sizes = ", ".join(str(size) for _, size in schur_blocks(T))
        wrong = f" (that part is {_PART_NAMES[parts[0]]})" if len(parts) == 1 else ""
        require(close(out, ablate_T(T, r, parts)),
                f"for T with blocks of sizes {sizes} and r = {r}, removing {removed} gave the wrong "
                f"matrix{wrong}")
    passed(name, 3 * len(cases))
