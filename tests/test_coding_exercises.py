"""The coding exercises' checks (``check_*`` of ``interp_repro.exercises``): each passes the library's
reference (written here, without the library's); fails typical wrong answers with a one-line message
whose hint names that mistake and no other; fails wrong answers that no hint foresees, in one line too;
fails an answer that calls the library's reference, saying it is unavailable; and never gives the
reference's value. A failed check shows the student its one line, without a traceback into the check.
None of the answers here calls a function the check withholds."""

import re
import sys

import numpy as np
import pytest

from interp_repro.abstraction.data import CLASSES
from interp_repro.abstraction.measures import CONCEPTS, class_means
from interp_repro.exercises import abstraction as ab
from interp_repro.exercises import modular_addition as ma
from interp_repro.exercises import schur_rnn as sr
from interp_repro.exercises import superposition as sp
from interp_repro.exercises.catalogue import EXERCISES
from interp_repro.exercises.checking import CheckFailed
from interp_repro.schur_rnn.measures import schur_blocks


def _loss(x, x_hat, importance):
    return np.mean(np.sum(importance * (x - x_hat) ** 2, axis=-1))


def _dims_unnormalised(W):
    return np.sum(W**2, axis=0) / np.sum((W.T @ W) ** 2, axis=1)


def _dims(W, numerator=True, self_overlap=True, power=2, mean=False):
    """D_i with one of: no numerator (and unit W_j), the sum without j = i, |overlaps| (``power`` 1),
    the mean over j instead of the sum; a zero column gets 0."""
    norms = np.linalg.norm(W, axis=0)
    unit = W / np.where(norms > 0, norms, 1.0)
    overlaps = np.abs(unit.T @ (W if numerator else unit)) ** power
    if not self_overlap:
        np.fill_diagonal(overlaps, 0.0)
    denom = overlaps.mean(1) if mean else overlaps.sum(1)
    with np.errstate(all="ignore"):
        return np.where(norms > 0, (norms**2 if numerator else 1.0) / denom, 0.0)


def _q(L, by_sum=False, normalise=True, ddof=0, average=np.mean):
    """Zhong's q; ``by_sum``: the std over differences at a fixed sum (the fact sheet's wording, axes
    swapped); without ``normalise``, not divided by the table's std; ``average`` over the groups."""
    p = len(L)
    a = np.arange(p)
    shift = (a[:, None] - a[None, :]) % p if by_sum else (a[None, :] - a[:, None]) % p
    spread = average(L[a[None, :], shift].std(axis=1, ddof=ddof))
    return spread / L.std(ddof=ddof) if normalise else spread


def _cka(X, Y, centre=True, normalise=True):
    if centre:
        X, Y = X - X.mean(0), Y - Y.mean(0)
    hsic = np.linalg.norm(Y.T @ X) ** 2
    return hsic / (np.linalg.norm(X.T @ X) * np.linalg.norm(Y.T @ Y)) if normalise else hsic


def _score(Z, labels, concept="shape", cosine=True, means=True, pearson=False, average=None):
    """The score; without ``means``, of the first sample of each class; ``pearson``: the correlation of
    d1 and d2; ``average``: each class's rows reduced by it instead of the mean."""
    a, b, c, e = CONCEPTS[concept]
    rows = [np.flatnonzero((labels == k).all(1)) for k in CLASSES]
    if average is not None:
        M = np.stack([average(Z[r], axis=0) for r in rows])
    elif means:
        M = class_means(Z, labels)
    else:
        M = np.stack([Z[r[0]] for r in rows])
    d1, d2 = M[a] - M[b], M[c] - M[e]
    if pearson:
        d1, d2 = d1 - d1.mean(), d2 - d2.mean()
    return d1 @ d2 / (np.linalg.norm(d1) * np.linalg.norm(d2)) if cosine else d1 @ d2


def _kernel_score(K, concept="shape", cross=True, cosine=True, norm=lambda n1, n2: np.sqrt(n1 * n2)):
    """The score from K; without ``cross``, |d|^2 = K_aa + K_bb (the -2 K_ab dropped); ``norm``
    combines |d1|^2 and |d2|^2 into the denominator."""
    a, b, c, e = CONCEPTS[concept]
    dot = K[a, c] - K[a, e] - K[b, c] + K[b, e]
    n1 = K[a, a] + K[b, b] - (2 * K[a, b] if cross else 0)
    n2 = K[c, c] + K[e, e] - (2 * K[c, e] if cross else 0)
    return dot / norm(n1, n2) if cosine else dot


def _split_by_diagonal(T, alpha):
    d = np.abs(np.diag(T))
    return int(np.count_nonzero(d >= alpha * d.max()))


def _split_counting_blocks(T, alpha):
    r = _split(T, alpha)
    return sum(1 for start, _ in schur_blocks(T) if start < r)


def _split_moduli(T, modulus, threshold=lambda alpha, moduli: alpha * max(moduli), strict=False):
    """r with |lambda| of each block computed by ``modulus(block)`` and the threshold by ``threshold``."""
    blocks = [T[s:s + k, s:s + k] for s, k in schur_blocks(T)]
    moduli = [modulus(b) for b in blocks]

    def split(alpha):
        cut = threshold(alpha, moduli)
        r = 0
        for block, m in zip(blocks, moduli, strict=True):
            if m < cut or (strict and m == cut):
                break
            r += len(block)
        return r
    return split


def _true_modulus(block):
    return abs(block[0, 0]) if len(block) == 1 else np.sqrt(abs(np.linalg.det(block)))


def _split(T, alpha):  # r, right
    return _split_moduli(T, _true_modulus)(alpha)


def _split_without_rho(T, alpha):
    return _split_moduli(T, _true_modulus, threshold=lambda alpha, moduli: alpha)(alpha)


def _split_rooted(T, alpha):  # sqrt(|det|) for every block, the 1x1 ones too
    return _split_moduli(T, lambda b: np.sqrt(abs(np.linalg.det(b))))(alpha)


def _split_signed(T, alpha):
    return _split_moduli(T, lambda b: b[0, 0] if len(b) == 1 else _true_modulus(b))(alpha)


def _split_strict(T, alpha):
    return _split_moduli(T, _true_modulus, strict=True)(alpha)


def _split_rotation_modulus(T, alpha):  # |lambda| of a 2x2 block as the norm of its first row
    return _split_moduli(T, lambda b: np.linalg.norm(b[0]))(alpha)


def _split_frobenius(T, alpha):  # |lambda| of a 2x2 block as its Frobenius norm over sqrt(2)
    return _split_moduli(T, lambda b: np.linalg.norm(b) / np.sqrt(len(b)))(alpha)


def _split_largest_singular(T, alpha):
    return _split_moduli(T, lambda b: np.linalg.norm(b, 2))(alpha)


def _split_squared(T, alpha):  # |lambda|^2 against alpha rho^2
    return _split_moduli(T, lambda b: _true_modulus(b) ** 2)(alpha)


def _split_next_row(T, alpha):  # the last row of R, not the number of rows
    return max(_split(T, alpha) - 1, 0)




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
    out = _ablate_by()(T, r, set(parts) - {"CR"})
    if "CR" in parts:
        out[r:, :r] = 0.0
    return out


def _ablate_in_place(T, r, parts):
    T[:] = _ablate_by()(T, r, parts)
    return T


def _masks(T, r, wide_rr=False, pairs_in_c=True):
    """The parts' masks; ``wide_rr``: "RR" takes every coupling entry in the rows of R (T_C->R too);
    without ``pairs_in_c``, a 2x2 block in C is taken for two 1x1 blocks."""
    blocks = schur_blocks(T)
    block_of = np.repeat(np.arange(len(blocks)), [size for _, size in blocks])
    coupling = block_of[None, :] > block_of[:, None]
    in_r = np.arange(len(T)) < r
    if not pairs_in_c:
        coupling |= np.triu(np.ones_like(coupling), 1) & ~in_r[:, None]
    return {"RR": coupling & in_r[:, None] & (True if wide_rr else in_r[None, :]),
            "CR": in_r[:, None] & ~in_r[None, :], "CC": coupling & ~in_r[:, None] & ~in_r[None, :]}


def _ablate_by(rows=lambda T, r: r, rename=lambda part: part, first_only=False, **options):
    """An ablation with one mistake: ``rows`` reads r, ``rename`` maps a part's name, ``first_only``
    removes only the first part named, ``options`` go to :func:`_masks`."""
    def ablate(T, r, parts):
        out = T.copy()
        for part in list(parts)[:1] if first_only else parts:
            out[_masks(T, rows(T, r), **options)[rename(part)]] = 0.0
        return out
    return ablate


def _blocks_as_r(T, r):  # r read as a number of blocks
    starts = [start for start, _ in schur_blocks(T)] + [len(T)]
    return starts[min(r, len(starts) - 1)]


def _unwritten(*args):
    raise NotImplementedError


CASES = {  # the check, the reference, and typical wrong answers, each with the hint that names its mistake
    "weighted_loss": (sp.check_weighted_loss, _loss, [
        (lambda x, xh, w: np.mean(np.sum((x - xh) ** 2, axis=-1)), "importance 0 must cost nothing"),
        (lambda x, xh, w: np.sum(w * (x - xh) ** 2), "don't sum"),
        (lambda x, xh, w: np.mean(w * (x - xh) ** 2), "don't average them"),
        (lambda x, xh, w: _loss(x, xh, w) / np.sum(w), "don't normalise them"),
        (lambda x, xh, w: np.mean(np.sum(w * np.abs(x - xh), axis=-1)), "square the errors"),
        (lambda x, xh, w: np.sum(w * (x - xh) ** 2, axis=-1), "must return one number"),
    ]),
    "feature_dimensionality": (sp.check_feature_dimensionality, _dims, [
        (_dims_unnormalised, "must not depend on the scale of W"),
        (lambda W: _dims(W.T), "one value per feature"),
        (lambda W: np.sum(W**2, 0) / np.sum((W.T @ (W / np.linalg.norm(W, axis=0))) ** 2, axis=0),
         "zero column"),
    ]),
    "distance_irrelevance": (ma.check_distance_irrelevance, _q, [
        (lambda L: _q(L, by_sum=True), "must give q = 0"),
        (lambda L: _q(L, normalise=False), "ratio of two spreads"),
        (lambda L: _q(L) * np.sqrt(len(L) / (len(L) - 1)), "within each difference uses"),
        (lambda L: _q(L, ddof=1), "not sample ones"),
    ]),
    "linear_cka": (ma.check_linear_cka, _cka, [
        (lambda X, Y: _cka(X, Y, centre=False), "centre each column"),
        (lambda X, Y: _cka(X, Y, normalise=False), "with itself must be 1"),
    ]),
    "abstraction_score": (ab.check_abstraction_score, _score, [
        (lambda Z, labels: _score(Z, labels, "colour"), "not the two contexts"),
        (lambda Z, labels: _score(Z, labels, cosine=False), "must score 1"),
    ]),
    "kernel_abstraction": (ab.check_kernel_abstraction, _kernel_score, [
        (lambda K: _kernel_score(K, cross=False), "differences of class means"),
        (lambda K: _kernel_score(K, cosine=False), "it is a cosine"),
        (lambda K: _kernel_score(K, "colour"), "not the two contexts"),
    ]),
    "split_index": (sr.check_split_index, _split, [
        (_split_by_diagonal, "cuts a 2x2 block"),
        (_split_counting_blocks, "r counts rows"),
        (lambda T, alpha: float(_split(T, alpha)), "whole number of rows"),
        (_split_without_rho, "not alpha alone"),
        (_split_rooted, "with no square root"),
        (_split_signed, "whatever its sign"),
        (_split_strict, ">=, not >"),
        (lambda T, alpha: _split_moduli(T, lambda b: abs(b[0, 0]))(alpha), "not a diagonal entry"),
    ]),
    "ablate_coupling": (sr.check_ablate_coupling, _ablate_by(), [
        (_ablate_triangle, "changed a diagonal block"),
        (_ablate_transposed, "rows of R (the first r) in the columns of C"),
        (_ablate_in_place, "work on a copy"),
    ]),
}

UNFORESEEN = {  # wrong answers that no hint names: each check must fail them too, in one line
    "weighted_loss": [
        lambda x, xh, w: np.mean(np.sum(w**2 * (x - xh) ** 2, axis=-1)),
        lambda x, xh, w: np.median(np.sum(w * (x - xh) ** 2, axis=-1)),
        lambda x, xh, w: np.mean(np.sum(w * (x - xh), axis=-1) ** 2),
        lambda x, xh, w: np.mean(np.sum(w[1:] * (x - xh)[:, 1:] ** 2, axis=-1)),
        lambda x, xh, w: _loss(x, xh, w[::-1]),
        lambda x, xh, w: np.sum(w * np.var(x - xh, axis=0)),
    ],
    "feature_dimensionality": [
        lambda W: _dims(W, numerator=False),
        lambda W: _dims(W, self_overlap=False),
        lambda W: _dims(W, power=1),
        lambda W: _dims(W, mean=True),
        lambda W: np.sqrt(_dims(W)),
    ],
    "distance_irrelevance": [
        lambda L: _q(L) ** 2,  # variances, not standard deviations
        lambda L: _q(L, average=np.median),
        lambda L: _q(L, average=lambda s: np.sqrt(np.mean(s**2))),
        lambda L: _q(L, average=np.max),
        lambda L: L.std(axis=1).mean() / L.std(),  # the spread over b at a fixed a
        lambda L: 1 - _q(L),
    ],
    "linear_cka": [
        lambda X, Y: _cka(X - X.mean(1, keepdims=True), Y - Y.mean(1, keepdims=True), centre=False),  # rows
        lambda X, Y: _cka(X - X.mean(0), Y, centre=False),  # X centred, Y not
        lambda X, Y: _cka(X, Y, normalise=False)  # normalised by ||X||_F^2 ||Y||_F^2
        / (np.linalg.norm(X - X.mean(0)) * np.linalg.norm(Y - Y.mean(0))) ** 2,
        lambda X, Y: _cka((X - X.mean(0)) / X.std(0), (Y - Y.mean(0)) / Y.std(0)),  # standardised columns
        lambda X, Y: _cka(X - X.mean(), Y - Y.mean(), centre=False),  # the mean of every entry
        lambda X, Y: np.sqrt(_cka(X, Y)),
    ],
    "abstraction_score": [
        lambda Z, labels: _score(Z, labels, means=False),
        lambda Z, labels: _score(Z, labels, pearson=True),
        lambda Z, labels: abs(_score(Z, labels)),
        lambda Z, labels: _score(Z, labels, average=np.median),
        lambda Z, labels: _score(Z, labels, average=np.sum),
    ],
    "kernel_abstraction": [
        lambda K: _kernel_score(K, norm=lambda n1, n2: (n1 + n2) / 2),
        lambda K: _kernel_score(K, norm=lambda n1, n2: n1),
        lambda K: abs(_kernel_score(K)),
        lambda K: _kernel_score(K / np.sqrt(np.outer(np.diag(K), np.diag(K)))),  # K as correlations
        lambda K: _kernel_score(K + np.eye(4)),
    ],
    "split_index": [_split_rotation_modulus, _split_frobenius, _split_largest_singular, _split_squared,
                    _split_next_row],
    "ablate_coupling": [
        _ablate_by(pairs_in_c=False),  # the issue's: passed every fixed check, changes the spectrum
        _ablate_by(rows=lambda T, r: min(r + 1, len(T))),
        _ablate_by(rows=_blocks_as_r),
        _ablate_by(wide_rr=True),
        _ablate_by(rename=lambda part: {"RR": "CC", "CC": "RR"}.get(part, part)),
        _ablate_by(first_only=True),
    ],
}


@pytest.mark.parametrize("what", CASES)
def test_the_check_passes_the_reference(what, capsys):
    check, reference, _ = CASES[what]
    check(reference)
    assert re.fullmatch(rf"{what}: all \d+ checks pass\n", capsys.readouterr().out)


def _fails(check, answer, capsys) -> str:
    """The one line ``check`` fails ``answer`` with (it prints no pass)."""
    with pytest.raises(CheckFailed) as failure:
        check(answer)
    message = str(failure.value)
    assert "\n" not in message and message, message
    assert "pass" not in capsys.readouterr().out
    return message


@pytest.mark.parametrize(("what", "k"), [(w, k) for w, case in CASES.items() for k in range(len(case[2]))])
def test_a_typical_wrong_answer_gets_the_hint_that_names_its_mistake_and_no_other(what, k, capsys):
    check, _, wrong = CASES[what]
    answer, says = wrong[k]
    message = _fails(check, answer, capsys)
    assert [hint for _, hint in wrong if hint in message] == [says], message


@pytest.mark.parametrize(("what", "k"), [(w, k) for w, ws in UNFORESEEN.items() for k in range(len(ws))])
def test_a_wrong_answer_no_hint_foresees_fails_in_one_line(what, k, capsys):
    _fails(CASES[what][0], UNFORESEEN[what][k], capsys)


def test_each_check_fails_at_least_four_unforeseen_wrong_answers():
    assert set(UNFORESEEN) == set(CASES)
    assert all(len(answers) >= 4 for answers in UNFORESEEN.values())


NOTEBOOK = """\
import {module} as library
from {module} import {name} as imported


def through_the_module(*args):
    return library.{name}(*args)


def through_an_import(*args):
    return imported(*args)
"""
"""A student's cell that calls the reference: through its module, or under the name the notebook imported
it as before the check ran."""


@pytest.mark.parametrize(("what", "k"), [(w, k) for w, (check, _, _) in CASES.items()
                                         for k in range(len(check.references))])
def test_an_answer_that_calls_the_reference_fails_in_one_line_and_the_reference_comes_back(what, k, capsys):
    reference = CASES[what][0].references[k]
    module, name = reference.__module__, reference.__name__
    cell: dict = {}
    exec(NOTEBOOK.format(module=module, name=name), cell)
    for answer in (cell["through_the_module"], cell["through_an_import"]):
        assert _fails(CASES[what][0], answer, capsys) == (
            f"{what}: the reference {module}.{name} is not available inside a graded answer: write the "
            "computation yourself")
    assert getattr(sys.modules[module], name) is reference and cell["imported"] is reference


def test_every_check_withholds_the_library_function_it_compares_with():
    compared = {"weighted_loss": "instance_loss", "feature_dimensionality": "feature_dimensionality",
                "distance_irrelevance": "distance_irrelevance", "linear_cka": "linear_cka",
                "abstraction_score": "abstraction_score", "kernel_abstraction": "kernel_abstraction",
                "split_index": "split_indices", "ablate_coupling": "ablate_T"}
    assert set(compared) == set(CASES)
    for what, (check, _, _) in CASES.items():
        assert compared[what] in [reference.__name__ for reference in check.references], what


def test_the_split_check_says_the_moduli_of_the_blocks_it_shows(capsys):
    message = _fails(sr.check_split_index, lambda T, alpha: 0, capsys)
    assert "|lambda| 1 (2x2), 0.95, 0.5, 0.2 and alpha = 0.9" in message, message


def test_a_failed_check_shows_its_line_without_a_traceback():
    failure = CheckFailed("linear_cka must return one number")
    assert failure._render_traceback_() == ["CheckFailed: linear_cka must return one number"]


@pytest.mark.parametrize("what", CASES)
def test_an_unwritten_function_fails_and_says_so(what):
    with pytest.raises(CheckFailed, match="not written yet"):
        CASES[what][0](_unwritten)


def test_every_coding_exercise_has_a_tested_check():
    checks = {e.check for e in EXERCISES if e.check}
    assert checks == {f"check_{what}" for what in CASES}
    for study in {e.study for e in EXERCISES}:
        assert sum(1 for e in EXERCISES if e.study == study and e.check) >= 2, study
