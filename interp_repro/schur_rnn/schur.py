"""Ordered real Schur coordinates of a recurrent weight matrix and the coupling ablations
(Draeger 2026, §3).

W = Q T Q^T with Q orthogonal and T real quasi-upper-triangular; T = B + N with B the 1x1 and 2x2
diagonal blocks and N the strictly block-upper-triangular coupling. Blocks are ordered by
non-increasing |lambda|, so the rows R = {i : |lambda_i| >= alpha rho(W)} form a leading range
[0, r) and C = [r, n) the rest; then N = [[N_RR, T_CR], [0, N_CC]] and an ablation zeroes any
subset of {"RR", "CR", "CC"}.
"""

from collections.abc import Iterable

import numpy as np
import scipy.linalg
from scipy.linalg import lapack

ABLATION_BLOCKS = ("RR", "CR", "CC")
"""The parts of N an ablation can remove: N_RR, T_{C->R} (rows R, columns C) and N_CC (§3)."""

TIE_RTOL = 1e-10
"""Block moduli within TIE_RTOL * ||T||_F of each other count as equal (ours): rounding in the
swaps moves eigenvalues by about eps ||T||, so closer moduli cannot be ordered reliably."""


class SchurReorderError(np.linalg.LinAlgError):
    """LAPACK's trexc refused to swap two adjacent Schur blocks (eigenvalues too close)."""


def _as_square(W, name: str) -> np.ndarray:
    """``W`` as a float64 array after checking that it is a finite real square matrix."""
    arr = np.asarray(W)
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be a real (integer or float) matrix, got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty square 2-D matrix, got shape {arr.shape}")
    arr = arr.astype(np.float64)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite, got {np.count_nonzero(~np.isfinite(arr))} NaN/inf entries")
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
    """|lambda| of each diagonal block of ``T`` (one value per block, 2x2 blocks once)."""
    T = _as_square(T, "T")
    starts, sizes = np.array(schur_blocks(T)).T
    return _moduli(T, starts, sizes)


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
    if isinstance(alpha, bool) or not isinstance(alpha, int | float | np.floating) or not 0 < alpha <= 1:
        raise ValueError(f"alpha must be a number in (0, 1], got {alpha!r}")
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


def coupling_norm(T) -> float:
    """||N||_F / ||T||_F: the share of T off its diagonal blocks (ours); ~0 for a normal W such as
    a Cayley matrix, 0 for T = 0."""
    T = _as_square(T, "T")
    total = np.linalg.norm(T)
    if total == 0:
        return 0.0
    starts, sizes = np.array(schur_blocks(T)).T
    return float(np.linalg.norm(T[_coupling_mask(starts, sizes)]) / total)


def schur_mass_removed(T, T_ablated) -> float:
    """||T - T~||_F / ||T||_F (Draeger 2026, §3); 0 for T = 0."""
    T, T_ablated = _as_square(T, "T"), _as_square(T_ablated, "T_ablated")
    if T.shape != T_ablated.shape:
        raise ValueError(f"T and T_ablated must have the same shape, got {T.shape} and {T_ablated.shape}")
    total = np.linalg.norm(T)
    return float(np.linalg.norm(T - T_ablated) / total) if total > 0 else 0.0


def fvu(y_hat, y) -> float:
    """E||y_hat - y||^2 / E||y - y_bar||^2 (Draeger 2026, §3), arrays shaped (..., d): the
    expectations and the mean y_bar run over all leading axes (a 1-D y is n scalar targets)."""
    y_hat, y = np.asarray(y_hat, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if y_hat.shape != y.shape or y.ndim == 0 or y.size == 0:
        raise ValueError(f"y_hat and y must be non-empty arrays of the same shape (..., d), got "
                         f"{y_hat.shape} and {y.shape}")
    flat = y.reshape(-1, y.shape[-1] if y.ndim > 1 else 1)
    spread = np.sum((flat - flat.mean(axis=0)) ** 2)
    if spread == 0:
        raise ValueError("FVU is undefined for a constant target y (zero variance)")
    return float(np.sum((y_hat - y) ** 2) / spread)


def delta_fvu(y_ablated, y_full, y) -> float:
    """Delta FVU = FVU(ablated) - FVU(full) on the same targets (Draeger 2026, §3)."""
    return fvu(y_ablated, y) - fvu(y_full, y)


def sensitivity(delta: float, mass: float) -> float:
    """S_DeltaT = Delta FVU / removed Schur mass (Draeger 2026, §3); NaN when nothing is removed."""
    if not mass >= 0:
        raise ValueError(f"mass must be a non-negative number, got {mass!r}")
    return float(delta) / float(mass) if mass > 0 else float("nan")
