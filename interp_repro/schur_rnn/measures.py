"""The definitions of Draeger (2026): ordered real Schur coordinates of a recurrent weight matrix, the
coupling ablations and the scores of an ablated network (§3), and our readings of its claims (§4).

W = Q T Q^T with Q orthogonal and T real quasi-upper-triangular; T = B + N with B the 1x1 and 2x2
diagonal blocks and N the strictly block-upper-triangular coupling. Blocks are ordered by
non-increasing |lambda|, so the rows R = {i : |lambda_i| >= alpha rho(W)} form a leading range
[0, r) and C = [r, n) the rest; then N = [[N_RR, T_CR], [0, N_CC]] and an ablation zeroes any
subset of {"RR", "CR", "CC"}.

An *ablation profile* (:func:`ablation_profile`) scores the 8 ablations of Figure 1 (order
:data:`SUBSETS`) for every seed of a trained unit; the functions after it read profiles. They, and
every other measure that reduces to a claim's number, refuse NaN or infinite input (``ValueError``).
"""

from collections.abc import Iterable

import numpy as np
import scipy.linalg
import torch
from scipy.linalg import lapack

from interp_repro.core import (
    Arrays,
    check_finite,
    check_fraction,
    check_nonnegative,
    check_positive_int,
    check_real_array,
    torch_generator,
)
from interp_repro.core.validate import check_real_dtype
from interp_repro.schur_rnn.data import make_batch
from interp_repro.schur_rnn.model import rollout

ABLATION_BLOCKS = ("RR", "CR", "CC")
"""The parts of N an ablation can remove: N_RR, T_{C->R} (rows R, columns C) and N_CC (§3)."""

SUBSETS: tuple[tuple[str, ...], ...] = ((), ("CC",), ("RR",), ("RR", "CC"), ("CR",), ("CR", "CC"),
                                         ("RR", "CR"), ("RR", "CR", "CC"))
"""The 8 ablation subsets in the order of Draeger (2026), Figure 1: each even index i and i + 1
differ only by T_CC. Each names its blocks in the order of :data:`ABLATION_BLOCKS`."""

SUBSET_LABELS = ("full", "-T_CC", "-T_RR", "-T_RR -T_CC", "-T_C→R", "-T_C→R -T_CC", "-T_RR -T_C→R",
                 "all three")
"""The display names of the 8 ablation subsets of :data:`SUBSETS`, in its order."""

PARTS = ("B", "RR", "CR", "CC")
"""The four pieces of T: diagonal blocks B, then N_RR, T_C->R and N_CC."""

TIE_RTOL = 1e-10
"""Block moduli within TIE_RTOL * ||T||_F of each other count as equal (ours): rounding in the
swaps moves eigenvalues by about eps ||T||, so closer moduli cannot be ordered reliably."""

LEARNED_FVU = 0.1
"""A network has learned a neuroscience task when its full-model FVU is at most this (ours: 90% of
the target's variance explained)."""

STABILIZER_EPS = 0.01
"""An ablation counts as an epsilon-stabilizer when its Delta FVU is at most this (ours)."""

PROFILE_TOL = 0.01
"""Largest accuracy gap between two ablations that differ only by T_CC for the profile to hold."""
PROFILE_DROP = 0.05
"""Smallest accuracy drop below the full model of -T_RR and of -T_C->R for the profile to hold."""

PAPER_LEVEL_TOL = 0.05
"""A seed lands on the paper's accuracy level when it is within this of it (ours: the half-width of
the bands that ``claims.toml`` puts around the paper's copy-task levels)."""


class SchurReorderError(np.linalg.LinAlgError):
    """LAPACK's trexc refused to swap two adjacent Schur blocks (eigenvalues too close)."""


# --- ordered real Schur form (§3) ---------------------------------------------------------------

def _as_square(W, name: str) -> np.ndarray:
    """``W`` as a float64 array after checking that it is a finite, real, non-empty square matrix."""
    arr = check_real_array(name, W, 2)
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {arr.shape}")
    return arr


def _structure(T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Starts and sizes of T's diagonal blocks, read from its subdiagonal (no checks)."""
    starts = np.flatnonzero(np.r_[True, np.diag(T, -1) == 0])
    return starts, np.diff(starts, append=T.shape[0])


def _moduli(T: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """|lambda| of each block: |t| for a 1x1 block, sqrt(|det|) for a 2x2 one (no checks)."""
    s = np.minimum(starts + 1, T.shape[0] - 1)
    det = T[starts, starts] * T[s, s] - T[starts, s] * T[s, starts]
    return np.where(sizes == 2, np.sqrt(np.abs(det)), np.abs(T[starts, starts]))


def schur_blocks(T) -> list[tuple[int, int]]:
    """(start, size) of each diagonal block of the quasi-upper-triangular ``T``, top to bottom.

    Raises ``ValueError`` if ``T`` has nonzeros below its first subdiagonal or two adjacent nonzero
    subdiagonal entries (a diagonal block larger than 2x2).
    """
    T = _as_square(T, "T")
    below = np.tril(T, -2)
    if below.any():
        i, j = np.argwhere(below)[0]
        raise ValueError(f"T must be quasi-upper-triangular, but T[{i}, {j}] = {T[i, j]!r} is nonzero")
    sub = np.diag(T, -1) != 0
    if (sub[1:] & sub[:-1]).any():
        i = int(np.flatnonzero(sub[1:] & sub[:-1])[0])
        raise ValueError(f"T must have 1x1 and 2x2 diagonal blocks only, but T[{i + 1}, {i}] and "
                         f"T[{i + 2}, {i + 1}] are both nonzero")
    return [(int(s), int(k)) for s, k in zip(*_structure(T), strict=True)]


def block_moduli(T) -> np.ndarray:
    """|lambda| of each diagonal block of the quasi-upper-triangular ``T``, in :func:`schur_blocks`'
    order: |t| for a 1x1 block, sqrt(|det|) for a 2x2 one."""
    starts, sizes = np.array(schur_blocks(T)).T
    return _moduli(np.asarray(T, dtype=np.float64), starts, sizes)


def _move_block(T: np.ndarray, Q: np.ndarray, starts: np.ndarray, moduli: np.ndarray, k: int) -> None:
    """Move block ``k`` up to ``starts[0]`` by adjacent swaps with LAPACK's dtrexc, in place."""
    cur = int(starts[k])
    for j in range(k - 1, -1, -1):
        target = int(starts[j])
        _, _, info = lapack.dtrexc(T, Q, cur + 1, target + 1, overwrite_a=1, overwrite_q=1)
        if info != 0:
            raise SchurReorderError(
                f"cannot order the real Schur form by |lambda|: LAPACK dtrexc (info={info}) could not "
                f"swap the block with |lambda| = {moduli[k]:.17g} past the block with "
                f"|lambda| = {moduli[j]:.17g} (eigenvalues too close for a stable swap)")
        cur = target


def ordered_real_schur(W) -> tuple[np.ndarray, np.ndarray]:
    """(Q, T) with W = Q T Q^T, Q orthogonal, T real quasi-upper-triangular in LAPACK's standard
    form, and diagonal blocks in non-increasing |lambda| (Draeger 2026, §3).

    Starts from ``scipy.linalg.schur(W, output="real")`` and selection-sorts the blocks with
    LAPACK's dtrexc: the block of largest modulus among those not yet placed moves to the front.
    Ties (moduli within ``TIE_RTOL * ||T||_F``) keep LAPACK's order, so the result is deterministic
    and non-increasing up to that tolerance (ours); a near-real pair that a swap splits into two
    1x1 blocks keeps the order LAPACK leaves it in. Raises ``SchurReorderError`` (a ``LinAlgError``,
    hence a ``ValueError``) if dtrexc cannot swap two blocks, naming their moduli.
    """
    W = _as_square(W, "W")
    T, Q = scipy.linalg.schur(W, output="real", check_finite=False)
    T, Q = np.asfortranarray(T), np.asfortranarray(Q)
    tol = TIE_RTOL * np.linalg.norm(T)
    pos, n = 0, T.shape[0]
    while pos < n:
        starts, sizes = _structure(T[pos:, pos:])
        moduli = _moduli(T[pos:, pos:], starts, sizes)
        k = int(np.argmax(moduli >= moduli.max() - tol))  # first block tied with the largest
        if k > 0:
            _move_block(T, Q, starts + pos, moduli, k)
        pos += 2 if pos + 1 < n and T[pos + 1, pos] != 0 else 1  # a moved 2x2 block may have split
    return np.ascontiguousarray(Q), np.ascontiguousarray(T)


def split_indices(T, alpha: float = 0.9) -> int:
    """r such that R = range(r) and C = range(r, n) (Draeger 2026, §3): R holds the rows of the
    blocks with |lambda| >= alpha rho(W), a 2x2 block contributing both rows.

    ``T`` must come from :func:`ordered_real_schur`; R then is a leading range. Moduli within
    ``TIE_RTOL * ||T||_F`` below the threshold still count as R (ours). Raises ``ValueError`` for
    alpha outside (0, 1] or a ``T`` whose blocks are not ordered by modulus.
    """
    check_fraction("alpha", alpha)
    T = _as_square(T, "T")
    starts, sizes = np.array(schur_blocks(T)).T
    moduli = _moduli(T, starts, sizes)
    tol = TIE_RTOL * np.linalg.norm(T)
    threshold = alpha * moduli.max()
    below = np.flatnonzero(moduli < threshold - tol)
    cut = int(below[0]) if below.size else len(moduli)
    if (moduli[cut:] >= threshold + tol).any():
        raise ValueError("T's diagonal blocks are not ordered by non-increasing |lambda| "
                         f"(moduli {np.round(moduli, 6).tolist()}); use ordered_real_schur")
    return int(starts[cut]) if cut < len(starts) else T.shape[0]


def eigen_split(W: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues of one matrix and whether each lies in R (|lambda| >= alpha rho(W), §3)."""
    check_fraction("alpha", alpha)
    lam = np.linalg.eigvals(check_real_array("W", W, 2))
    if not np.abs(lam).max() > 0:
        raise ValueError("W has spectral radius 0: its eigenvalues have no R/C split")
    return lam, np.abs(lam) >= alpha * np.abs(lam).max()


def split_interval(W: np.ndarray, alpha: float) -> tuple[float, float]:
    """The thresholds that give the same R/C split as ``alpha`` (§3, Table 1): (lo, hi) with every
    alpha' in (lo, hi] splitting ``W``'s eigenvalues as alpha does. lo is the largest |lambda| / rho
    in C (0 when C is empty), hi the smallest in R (ours: a wide interval means the split sits in a
    gap of the spectrum, so nearby thresholds cannot change the ablations)."""
    lam, in_r = eigen_split(W, alpha)
    ratio = np.abs(lam) / np.abs(lam).max()
    return float(ratio[~in_r].max(initial=0.0)), float(ratio[in_r].min())


def shared_split_interval(W_hh: np.ndarray, alpha: float) -> tuple[float, float]:
    """The thresholds that split every matrix of a stack ``W_hh`` (K, N, N) as ``alpha`` does (§3,
    Table 1): (lo, hi), the largest lo and the smallest hi of the K intervals of
    :func:`split_interval`, so that every alpha' in (lo, hi] gives each matrix ``alpha``'s split."""
    intervals = np.array([split_interval(W, alpha) for W in check_real_array("W_hh", W_hh, 3)])
    return float(intervals[:, 0].max()), float(intervals[:, 1].min())


# --- ablations (§3) -----------------------------------------------------------------------------

def _coupling_mask(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Boolean mask of N's support: the entries right of their row's diagonal block."""
    block_of = np.repeat(np.arange(len(starts)), sizes)
    return block_of[None, :] > block_of[:, None]


def _check_blocks(blocks: Iterable[str]) -> frozenset[str]:
    if isinstance(blocks, str):
        raise ValueError(f"blocks must be a collection of names such as {{{blocks!r}}}, got the string "
                         f"{blocks!r}")
    chosen = frozenset(blocks)
    unknown = sorted(chosen - set(ABLATION_BLOCKS), key=str)
    if unknown:
        raise ValueError(f"unknown ablation block(s) {unknown}: choose a subset of {list(ABLATION_BLOCKS)}")
    return chosen


def subset_index(blocks: Iterable[str]) -> int:
    """Where the ablation that removes ``blocks`` (any collection of names from
    :data:`ABLATION_BLOCKS`) stands in :data:`SUBSETS`."""
    chosen = _check_blocks(blocks)
    return SUBSETS.index(tuple(name for name in ABLATION_BLOCKS if name in chosen))


def ablate_T(T, r: int, blocks: Iterable[str]) -> np.ndarray:
    """T~: ``T`` with the chosen parts of its coupling N zeroed (Draeger 2026, §3).

    "RR" zeroes N on rows and columns [0, r), "CR" the block T[:r, r:], "CC" N on rows and columns
    [r, n); the diagonal blocks B stay, so the spectrum does too. ``r`` (from
    :func:`split_indices`) must fall between two diagonal blocks.
    """
    T = _as_square(T, "T")
    chosen = _check_blocks(blocks)
    starts, sizes = np.array(schur_blocks(T)).T
    n = T.shape[0]
    if isinstance(r, bool) or not isinstance(r, int | np.integer) or not (r == n or r in starts):
        raise ValueError(f"r must be a block boundary of T, one of {starts.tolist() + [n]}, got {r!r}")
    coupling = _coupling_mask(starts, sizes)
    in_r = np.arange(n) < r
    masks = {
        "RR": coupling & in_r[:, None] & in_r[None, :],
        "CR": in_r[:, None] & ~in_r[None, :],
        "CC": coupling & ~in_r[:, None] & ~in_r[None, :],
    }
    out = T.copy()
    for name in chosen:
        out[masks[name]] = 0.0
    return out


def ablate(W, blocks: Iterable[str], alpha: float = 0.9) -> np.ndarray:
    """W~(S) = Q T~(S) Q^T for the subset S = ``blocks`` of {"RR", "CR", "CC"} (Draeger 2026, §3).

    The empty subset returns W up to rounding. For the removed Schur mass, call
    :func:`ordered_real_schur`, :func:`split_indices` and :func:`ablate_T` directly.
    """
    chosen = _check_blocks(blocks)
    Q, T = ordered_real_schur(W)
    return Q @ ablate_T(T, split_indices(T, alpha), chosen) @ Q.T


def schur_mass_removed(T, T_ablated) -> float:
    """||T - T~||_F / ||T||_F (Draeger 2026, §3); 0 for T = 0."""
    T, T_ablated = _as_square(T, "T"), _as_square(T_ablated, "T_ablated")
    if T.shape != T_ablated.shape:
        raise ValueError(f"T and T_ablated must have the same shape, got {T.shape} and {T_ablated.shape}")
    total = np.linalg.norm(T)
    return float(np.linalg.norm(T - T_ablated) / total) if total > 0 else 0.0


def schur_parts(T: np.ndarray, r: int) -> np.ndarray:
    """Shares of ||T||_F^2 in B, N_RR, T_C->R and N_CC (order :data:`PARTS`); they sum to 1 (ours)."""
    total = np.sum(T ** 2)
    removed = [np.sum((T - ablate_T(T, r, [name])) ** 2) for name in PARTS[1:]]
    return np.array([total - sum(removed), *removed]) / total


def ablated_matrices(W_hh: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For K matrices (K, N, N): the 8 ablated matrices (8, K, N, N) in :data:`SUBSETS` order, the
    :func:`schur_mass_removed` by each (8, K), |R| (K,) and the mass shares of :func:`schur_parts`
    (K, 4)."""
    check_fraction("alpha", alpha)
    K, N, _ = W_hh.shape
    out = np.empty((len(SUBSETS), K, N, N))
    mass = np.empty((len(SUBSETS), K))
    r_size = np.empty(K, dtype=np.int64)
    parts = np.empty((K, len(PARTS)))
    for k in range(K):
        Q, T = ordered_real_schur(W_hh[k])
        r = split_indices(T, alpha)
        r_size[k], parts[k] = r, schur_parts(T, r)
        for i, subset in enumerate(SUBSETS):
            T_ablated = ablate_T(T, r, subset)
            out[i, k] = Q @ T_ablated @ Q.T
            mass[i, k] = schur_mass_removed(T, T_ablated)
    return out, mass, r_size, parts


# --- scores of an ablated network (§3, §4) ------------------------------------------------------

def replay_accuracy(outputs: torch.Tensor, targets: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Fraction of sign matches over the masked steps and all bits (Draeger 2026, §4).

    ``outputs`` is (..., T, B, d) (a leading instance dimension allowed); returns a tensor of the
    leading shape (a 0-d tensor without one).
    """
    if outputs.shape[-3:] != targets.shape:
        raise ValueError(f"outputs shape {tuple(outputs.shape)} must end in the targets shape "
                         f"{tuple(targets.shape)}")
    hits = (torch.sign(outputs) == targets).float() * mask.unsqueeze(-1)
    return hits.sum((-3, -2, -1)) / (mask.sum() * targets.shape[-1])


def fvu(y_hat, y) -> float:
    """E||y_hat - y||^2 / E||y - y_bar||^2 (Draeger 2026, §3), arrays shaped (..., d): the
    expectations and the mean y_bar run over all leading axes (a 1-D y is n scalar targets)."""
    y_hat, y = check_finite("y_hat", y_hat), check_finite("y", y)
    if y_hat.shape != y.shape or y.ndim == 0 or y.size == 0:
        raise ValueError(f"y_hat and y must be non-empty arrays of the same shape (..., d), got "
                         f"{y_hat.shape} and {y.shape}")
    flat = y.reshape(-1, y.shape[-1] if y.ndim > 1 else 1)
    spread = np.sum((flat - flat.mean(axis=0)) ** 2)
    if spread == 0:
        raise ValueError("FVU is undefined for a constant target y (zero variance)")
    return float(np.sum((y_hat - y) ** 2) / spread)


def delta_fvu(fvu_ablated: float | np.ndarray, fvu_full: float | np.ndarray) -> float | np.ndarray:
    """Delta FVU = FVU(ablated) - FVU(full) on the same targets (Draeger 2026, §3), for numbers or
    arrays of FVUs (broadcast)."""
    return fvu_ablated - fvu_full


def sensitivity(delta: float | np.ndarray, mass: float | np.ndarray) -> float | np.ndarray:
    """S_DeltaT = Delta FVU / removed Schur mass (Draeger 2026, §3), elementwise for arrays; NaN
    where nothing is removed. ``mass`` must be >= 0."""
    check_finite("delta", delta)
    mass_array = check_real_dtype("mass", mass)
    if not (mass_array >= 0).all():
        raise ValueError(f"mass must be non-negative, got {mass!r}")
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(mass_array > 0, delta / np.where(mass_array > 0, mass, 1.0), np.nan)
    return float(out) if out.ndim == 0 else out


def target_variance(task: str, *, seed: int, batch: int) -> float:
    """The mean over output channels of the target's variance on the masked steps of one batch from
    ``seed``: the denominator that turns a masked MSE (``train.masked_mse``) into an FVU (ours; FVU
    = MSE / this, :func:`fvu`'s E||y - y_bar||^2 per channel)."""
    check_positive_int("batch", batch)
    _, targets, mask = _held_out(task, batch, seed)
    return float(targets[mask.bool()].double().var(dim=0, unbiased=False).mean())


def _held_out(task: str, batch: int, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return make_batch(task, batch, torch_generator(seed))


@torch.no_grad()
def ablation_profile(weights: Arrays, task: str, alpha: float, *, seed: int, batch: int) -> Arrays:
    """Each of the 8 ablations of every seed, scored on one held-out batch drawn from ``seed``
    (Draeger 2026, §3): :func:`fvu` (8, K), :func:`delta_fvu`, :func:`schur_mass_removed`,
    :func:`sensitivity` (NaN for the full model), and for the copy task :func:`replay_accuracy`
    (8, K); plus |R| (K,) and the mass shares (K, 4) of :func:`ablated_matrices`. ``weights`` holds
    W_xh, W_hh, W_hy with a leading seed axis. Inputs and readout stay fixed; the readout is not refit."""
    check_positive_int("batch", batch)
    matrices, mass, r_size, parts = ablated_matrices(weights["W_hh"], alpha)
    inputs, targets, mask = _held_out(task, batch, seed)
    keep = mask.bool()
    y = targets[keep].numpy()
    K = weights["W_hh"].shape[0]
    fvus = np.empty((len(SUBSETS), K))
    accuracy = np.empty((len(SUBSETS), K))
    for i in range(len(SUBSETS)):
        outputs = rollout(torch.as_tensor(weights["W_xh"]), matrices[i], weights["W_hy"], inputs)
        fvus[i] = [fvu(outputs[k][keep].numpy(), y) for k in range(K)]
        if task == "copy":
            accuracy[i] = replay_accuracy(outputs, targets, mask).numpy()
    delta = delta_fvu(fvus, fvus[0])
    out = {"fvu": fvus, "delta_fvu": delta, "mass": mass, "sensitivity": sensitivity(delta, mass),
           "r": r_size, "parts": parts}
    if task == "copy":
        out["accuracy"] = accuracy
    return out


@torch.no_grad()
def example_rollout(weights: Arrays, task: str, subset: Iterable[str], alpha: float, *, instance: int = 0,
                    seed: int = 0) -> dict[str, np.ndarray]:
    """One held-out sequence through seed ``instance``'s full network and the one without the blocks
    ``subset`` (§3): inputs (T, N_x), targets (T, N_y), mask (T,), full and ablated outputs (T, N_y)."""
    K = weights["W_hh"].shape[0]
    if isinstance(instance, bool) or not isinstance(instance, int) or not 0 <= instance < K:
        raise ValueError(f"instance must be an integer in [0, {K}), got {instance!r}")
    index = subset_index(subset)
    matrices, _, _, _ = ablated_matrices(weights["W_hh"][instance:instance + 1], alpha)
    inputs, targets, mask = _held_out(task, 1, seed)
    one = {name: weights[name][instance:instance + 1] for name in ("W_xh", "W_hy")}
    full = rollout(torch.as_tensor(one["W_xh"]), matrices[0], one["W_hy"], inputs)
    ablated = rollout(torch.as_tensor(one["W_xh"]), matrices[index], one["W_hy"], inputs)
    return {"inputs": inputs[:, 0].numpy(), "targets": targets[:, 0].numpy(), "mask": mask[:, 0].numpy(),
            "full": full[0, :, 0].numpy(), "ablated": ablated[0, :, 0].numpy()}


# --- reading profiles: the claims of §4 (ours where noted) ---------------------------------------

def _accuracy_vector(accuracy) -> np.ndarray:
    """``accuracy`` as float64 after checking that it is a finite vector of one accuracy per subset of
    :data:`SUBSETS` (8,)."""
    arr = check_real_array("accuracy", accuracy, 1)
    if arr.shape != (len(SUBSETS),):
        raise ValueError(f"accuracy must hold one value per ablation subset, shape ({len(SUBSETS)},), got "
                         f"shape {arr.shape}")
    return arr


def cc_pairs_gap(accuracy: np.ndarray) -> float:
    """Largest accuracy gap between two ablations that differ only by T_CC, for a seed-mean
    accuracy vector (8,) in :data:`SUBSETS` order (Figure 1: T_CC is a near-stabilizer)."""
    accuracy = _accuracy_vector(accuracy)
    return float(max(abs(accuracy[i] - accuracy[i + 1]) for i in range(0, len(SUBSETS), 2)))


def accuracy_drop(accuracy: np.ndarray, blocks: Iterable[str]) -> float:
    """How far the ablation of ``blocks`` falls below the full model, for an accuracy vector (8,)."""
    accuracy = _accuracy_vector(accuracy)
    return float(accuracy[0] - accuracy[subset_index(blocks)])


def cr_lowest(accuracy: np.ndarray) -> bool:
    """Whether every ablation that removes T_C->R scores below every one that keeps it (Figure 1),
    for an accuracy vector (8,) in :data:`SUBSETS` order."""
    accuracy = _accuracy_vector(accuracy)
    with_cr = [accuracy[i] for i, s in enumerate(SUBSETS) if "CR" in s]
    without_cr = [accuracy[i] for i, s in enumerate(SUBSETS) if "CR" not in s]
    return bool(max(with_cr) < min(without_cr))


def profile_holds(accuracy: np.ndarray, tol: float = PROFILE_TOL, drop: float = PROFILE_DROP) -> bool:
    """The paper's profile shape for a seed-mean accuracy vector (8,) in :data:`SUBSETS` order: every
    pair that differs only by T_CC within ``tol``; -T_RR and -T_C->R each at least ``drop`` below
    full; :func:`cr_lowest` (ours, from Figure 1's reading; Table 1 asks whether it holds for other
    alphas)."""
    return bool(cc_pairs_gap(accuracy) <= tol and accuracy_drop(accuracy, {"RR"}) >= drop
                and accuracy_drop(accuracy, {"CR"}) >= drop and cr_lowest(accuracy))


def seeds_within(accuracy: np.ndarray, paper, tol: float = PAPER_LEVEL_TOL) -> np.ndarray:
    """How many seeds land within ``tol`` of the paper's level, per ablation: for each row i of
    ``accuracy`` (8, K), the number of seeds k with |accuracy[i, k] - paper[i]| <= tol, for the
    paper's seed-mean levels ``paper`` (8,) (Figure 1). Returns an int array (8,)."""
    acc = check_real_array("accuracy", accuracy, 2)
    levels = check_real_array("paper", paper, 1)
    if levels.shape[0] != acc.shape[0]:
        raise ValueError(f"paper must give one level per row of accuracy ({acc.shape[0]}), "
                         f"got {levels.shape[0]}")
    tol = check_nonnegative("tol", tol)
    # a seed exactly on the band's edge counts, as in the claims' bands (the 1e-12 absorbs rounding)
    return (np.abs(acc - levels[:, None]) <= tol + 1e-12).sum(axis=1)


def largest_change(values: np.ndarray) -> float:
    """Largest |score(ablated) - score(full)| over the ablations and seeds of a profile array (8, K):
    ~0 for a normal W_hh (a Cayley network), whose coupling is zero (ours)."""
    values = check_real_array("values", values, 2)
    return float(np.abs(values - values[0]).max())


def task_learned(fvu_full: np.ndarray) -> bool:
    """Whether the median seed learned the task: its full-model FVU (K,) is at most
    :data:`LEARNED_FVU` (ours)."""
    return bool(np.median(check_real_array("fvu_full", fvu_full, 1)) <= LEARNED_FVU)


def every_seed_learned(fvu_full: np.ndarray) -> bool:
    """Whether every seed's full-model FVU (K,) is at most :data:`LEARNED_FVU` (ours)."""
    return bool((check_real_array("fvu_full", fvu_full, 1) <= LEARNED_FVU).all())


def stabilizer_sets(profile: Arrays, eps: float = STABILIZER_EPS) -> list[frozenset[int]]:
    """Per seed, the ablations (indices into :data:`SUBSETS`) that remove some Schur mass and change
    FVU by at most ``eps``: its epsilon-stabilizers (§4). An ablation of an empty block (e.g. N_RR
    when |R| = 1) removes nothing and is not counted."""
    check_fraction("eps", eps)
    delta = check_real_array("delta_fvu", profile["delta_fvu"], 2)
    mass = check_real_array("mass", profile["mass"], 2)
    if delta.shape != mass.shape or delta.shape[0] != len(SUBSETS):
        raise ValueError(f"delta_fvu and mass must both be ({len(SUBSETS)}, K), got {delta.shape} and "
                         f"{mass.shape}")
    ok = (delta[1:] <= eps) & (mass[1:] > 0)
    return [frozenset(int(i) + 1 for i in np.flatnonzero(ok[:, k])) for k in range(ok.shape[1])]


def distinct_stabilizer_profiles(profiles_by_task: dict[str, list[Arrays]]) -> int:
    """How many different collections of epsilon-stabilizers the tasks give, each task's collection
    pooled over its profiles and seeds (§4: the profile "differs by task")."""
    if not profiles_by_task or not all(profiles_by_task.values()):
        raise ValueError(f"distinct_stabilizer_profiles needs at least one profile per task, got "
                         f"{ {task: len(profiles) for task, profiles in profiles_by_task.items()} }")
    pooled = {task: frozenset(s for profile in profiles for s in stabilizer_sets(profile))
              for task, profiles in profiles_by_task.items()}
    return len(set(pooled.values()))


def seed_dependent_flags(profiles: Iterable[Arrays]) -> list[bool]:
    """Per profile, whether its seeds disagree on their epsilon-stabilizers (§4: the profile differs
    "by trained solution")."""
    flags = [len(set(stabilizer_sets(profile))) > 1 for profile in profiles]
    if not flags:
        raise ValueError("seed_dependent_flags needs at least one profile, got none")
    return flags


def seed_dependent_units(profiles: Iterable[Arrays]) -> int:
    """How many of ``profiles`` have seeds that disagree on their epsilon-stabilizers
    (:func:`seed_dependent_flags`)."""
    return int(sum(seed_dependent_flags(profiles)))


def seed_spread(values: np.ndarray) -> float:
    """Largest difference between two seeds in one ablation's score, for a profile array (8, K)."""
    return float(np.ptp(check_real_array("values", values, 2), axis=1).max())
