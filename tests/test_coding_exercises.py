"""The coding exercises' checks (``check_*`` of ``interp_repro.exercises``): each passes the library's
reference and fails typical wrong answers with a one-line message that says what is wrong, never the
reference's value."""

import re

import numpy as np
import pytest

from interp_repro.abstraction.data import CLASSES
from interp_repro.abstraction.measures import CONCEPTS, abstraction_score, class_means, kernel_abstraction
from interp_repro.exercises import abstraction as ab
from interp_repro.exercises import modular_addition as ma
from interp_repro.exercises import schur_rnn as sr
from interp_repro.exercises import superposition as sp
from interp_repro.exercises.catalogue import EXERCISES
from interp_repro.exercises.checking import CheckFailed
from interp_repro.modular_addition.measures import distance_irrelevance, linear_cka
from interp_repro.schur_rnn.measures import ablate_T, schur_blocks, split_indices
from interp_repro.superposition.measures import feature_dimensionality


def _loss(x, x_hat, importance):
    return np.mean(np.sum(importance * (x - x_hat) ** 2, axis=-1))


def _dims_unnormalised(W):
    return np.sum(W**2, axis=0) / np.sum((W.T @ W) ** 2, axis=1)


def _q(L, by_sum=False, normalise=True):
    """Zhong's q; ``by_sum``: the std over differences at a fixed sum (the fact sheet's wording, axes
    swapped); without ``normalise``, not divided by the table's std."""
    p = len(L)
    a = np.arange(p)
    shift = (a[:, None] - a[None, :]) % p if by_sum else (a[None, :] - a[:, None]) % p
    spread = L[a[None, :], shift].std(axis=1).mean()
    return spread / L.std() if normalise else spread


def _cka(X, Y, centre=True, normalise=True):
    if centre:
        X, Y = X - X.mean(0), Y - Y.mean(0)
    hsic = np.linalg.norm(Y.T @ X) ** 2
    return hsic / (np.linalg.norm(X.T @ X) * np.linalg.norm(Y.T @ Y)) if normalise else hsic


def _score(Z, labels, concept="shape", cosine=True, means=True):
    a, b, c, e = CONCEPTS[concept]
    if means:
        M = class_means(Z, labels)
    else:  # the first sample of each class instead of the class mean
        M = np.stack([Z[np.flatnonzero((labels == k).all(1))[0]] for k in CLASSES])
    d1, d2 = M[a] - M[b], M[c] - M[e]
    return d1 @ d2 / (np.linalg.norm(d1) * np.linalg.norm(d2)) if cosine else d1 @ d2


def _kernel_score(K, cross=True, cosine=True):
    """The shape score from K; without ``cross``, |d|^2 = K_aa + K_bb (the -2 K_ab dropped)."""
    a, b, c, e = CONCEPTS["shape"]
    dot = K[a, c] - K[a, e] - K[b, c] + K[b, e]
    n1 = K[a, a] + K[b, b] - (2 * K[a, b] if cross else 0)
    n2 = K[c, c] + K[e, e] - (2 * K[c, e] if cross else 0)
    return dot / np.sqrt(n1 * n2) if cosine else dot


def _split_by_diagonal(T, alpha):
    d = np.abs(np.diag(T))
    return int(np.count_nonzero(d >= alpha * d.max()))


def _split_counting_blocks(T, alpha):
    blocks = schur_blocks(T)
    return sum(1 for start, size in blocks
               if np.sqrt(abs(np.linalg.det(T[start:start + size, start:start + size]))) >= alpha * 1.0 - 1e-9
               and start < split_indices(T, alpha))


def _ablate_triangle(T, r, parts):  # zeroes every entry above the diagonal, the 2x2 blocks' included
    out = T.copy()
    n = len(T)
    rows, cols = np.triu_indices(n, 1)
    for i, j in zip(rows, cols, strict=True):
        part = "RR" if i < r and j < r else "CR" if i < r else "CC"
        if part in parts:
            out[i, j] = 0.0
    return out


def _ablate_transposed(T, r, parts):
    out = ablate_T(T, r, set(parts) - {"CR"})
    if "CR" in parts:
        out[r:, :r] = 0.0
    return out


def _ablate_in_place(T, r, parts):
    T[:] = ablate_T(T, r, parts)
    return T


def _unwritten(*args):
    raise NotImplementedError


CASES = {
    "weighted_loss": (sp.check_weighted_loss, _loss, [
        (lambda x, xh, w: np.mean(np.sum((x - xh) ** 2, axis=-1)), "importance 0 must cost nothing"),
        (lambda x, xh, w: np.sum(w * (x - xh) ** 2), "repeating the batch"),
        (lambda x, xh, w: np.mean(w * (x - xh) ** 2), "don't average them"),
        (lambda x, xh, w: np.mean(np.sum(w * np.abs(x - xh), axis=-1)), "square the errors"),
        (lambda x, xh, w: np.sum(w * (x - xh) ** 2, axis=-1), "must return one number"),
    ]),
    "feature_dimensionality": (sp.check_feature_dimensionality, feature_dimensionality, [
        (_dims_unnormalised, "scaling W by 3"),
        (lambda W: feature_dimensionality(W.T), "one value per feature"),
        (lambda W: np.sum(W**2, 0) / np.sum((W.T @ (W / np.linalg.norm(W, axis=0))) ** 2, axis=0),
         "zero column"),
    ]),
    "distance_irrelevance": (ma.check_distance_irrelevance, distance_irrelevance, [
        (lambda L: _q(L, by_sum=True), "depends on (a - b) mod p only must give q = 0"),
        (lambda L: _q(L, normalise=False), "multiplying the table by 3"),
        (lambda L: distance_irrelevance(L) * np.sqrt(len(L) / (len(L) - 1)), "ddof = 0"),
    ]),
    "linear_cka": (ma.check_linear_cka, linear_cka, [
        (lambda X, Y: _cka(X, Y, centre=False), "centre each column"),
        (lambda X, Y: _cka(X, Y, normalise=False), "with itself must be 1"),
        (lambda X, Y: np.sqrt(_cka(X, Y)), "check the squares"),
    ]),
    "abstraction_score": (ab.check_abstraction_score, abstraction_score, [
        (lambda Z, labels: _score(Z, labels, "colour"), "contrasts the two shapes"),
        (lambda Z, labels: _score(Z, labels, cosine=False), "must score 1"),
        (lambda Z, labels: _score(Z, labels, means=False), "average each class"),
    ]),
    "kernel_abstraction": (ab.check_kernel_abstraction, kernel_abstraction, [
        (lambda K: _kernel_score(K, cross=False), "every cross term"),
        (lambda K: _kernel_score(K, cosine=False), "it is a cosine"),
        (lambda K: kernel_abstraction(K, "colour"), "mind which classes"),
    ]),
    "split_index": (sr.check_split_index, split_indices, [
        (_split_by_diagonal, "cuts a 2x2 block"),
        (_split_counting_blocks, "r counts rows"),
        (lambda T, alpha: float(split_indices(T, alpha)), "whole number of rows"),
    ]),
    "ablate_coupling": (sr.check_ablate_coupling, ablate_T, [
        (_ablate_triangle, "changed a diagonal block"),
        (_ablate_transposed, "rows of R (the first r) in the columns of C"),
        (_ablate_in_place, "work on a copy"),
    ]),
}


@pytest.mark.parametrize("what", CASES)
def test_the_check_passes_the_reference(what, capsys):
    check, reference, _ = CASES[what]
    check(reference)
    assert re.fullmatch(rf"{what}: all \d+ checks pass\n", capsys.readouterr().out)


@pytest.mark.parametrize(("what", "k"), [(w, k) for w, case in CASES.items() for k in range(len(case[2]))])
def test_the_check_catches_a_typical_wrong_answer_in_one_line(what, k, capsys):
    check, reference, wrong = CASES[what]
    answer, says = wrong[k]
    with pytest.raises(CheckFailed) as failure:
        check(answer)
    message = str(failure.value)
    assert says in message and "\n" not in message, message
    assert "pass" not in capsys.readouterr().out


@pytest.mark.parametrize("what", CASES)
def test_an_unwritten_function_fails_and_says_so(what):
    with pytest.raises(CheckFailed, match="not written yet"):
        CASES[what][0](_unwritten)


def test_every_coding_exercise_has_a_tested_check():
    checks = {e.check for e in EXERCISES if e.check}
    assert checks == {f"check_{what}" for what in CASES}
    for study in {e.study for e in EXERCISES}:
        assert sum(1 for e in EXERCISES if e.study == study and e.check) >= 2, study
