"""Every exercise of the book, once: its difficulty, time, skills, whether it needs a trained cache and,
for a coding exercise, its check and points.

The one source for the line "★★ · 30 min" a student reads above each exercise (the book's
``book/_ext/exercise_meta.py``, the launchable notebooks and the coursework), for the instructors' table
(the ``exercise-table`` directive) and for the points of the graded release (``coursework``).
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Exercise:
    """One exercise: ``label`` is its sphinx-exercise label on ``book/<study>/exercises.md``."""

    label: str
    study: str
    title: str
    builds_on: str      # MyST markdown, links relative to book/
    difficulty: int     # 1 to 3 stars
    minutes: int        # for a student working alone, reading the solution's output included
    skills: str
    needs_cache: bool = False  # needs the trained results of a chapter (the cache) to run
    check: str = ""     # a coding exercise: the check_<what> of interp_repro.exercises.<study> it runs
    points: int = 0     # a coding exercise: its points in the graded release

    @property
    def badge(self) -> str:
        """What the student reads above the exercise, for example "★★ · 30 min"."""
        return f"{'★' * self.difficulty} · {self.minutes} min"


_SP, _MA, _AB, _SR = "superposition", "modular_addition", "abstraction", "schur_rnn"
_PHASE = "[phase change](superposition/phase_change.md)"
_COPY = "[copy task](schur_rnn/copy_task.md)"
_LINEAR = "[linear theory](abstraction/linear_theory.md)"

EXERCISES: tuple[Exercise, ...] = (
    Exercise("ex-superposition-code-loss", _SP, "code: the importance-weighted loss",
             "[demonstrating](superposition/demonstrating.md) {cite}`elhage2022toy`", 1, 15,
             "numpy broadcasting; reading a loss off its definition", check="check_weighted_loss", points=2),
    Exercise("ex-superposition-code-dimensionality", _SP, "code: feature dimensionality $D_i$",
             "[geometry](superposition/geometry.md)", 2, 25, "Gram matrices; edge cases (a dead feature)",
             check="check_feature_dimensionality", points=3),
    Exercise("ex-superposition-boundary", _SP, "the phase boundary $s^*(r)$ in closed form", _PHASE, 2, 30,
             "inequalities in closed form; symmetry arguments"),
    Exercise("ex-superposition-candidates", _SP, "the three candidate losses by Monte Carlo", _PHASE, 2, 40,
             "expectations of uniform variables; Monte Carlo with standard errors"),
    Exercise("ex-superposition-polytopes", _SP, "polytopes, tight frames and feature dimensionality",
             "[geometry](superposition/geometry.md)", 2, 30,
             "frames and Gram matrices; geometry of polytopes"),
    Exercise("ex-superposition-linear", _SP, "the linear model is PCA: its optimum, then training",
             "[demonstrating](superposition/demonstrating.md)", 1, 25,
             "low-rank approximation; comparing training with an optimum"),
    Exercise("ex-modadd-code-irrelevance", _MA, "code: Zhong's distance irrelevance $q$",
             "[Clock and Pizza](modular_addition/clock_pizza.md) {cite}`zhong2023clock`", 2, 25,
             "fancy indexing modulo p; invariances of a statistic", check="check_distance_irrelevance",
             points=3),
    Exercise("ex-modadd-code-cka", _MA, "code: linear CKA",
             "[manifolds](modular_addition/manifolds.md) {cite}`moisescu2025manifolds`", 2, 20,
             "centring and normalising representations; similarity invariances", check="check_linear_cka",
             points=3),
    Exercise("ex-modadd-theorem", _MA, "disc or torus on synthetic clusters",
             "[manifolds](modular_addition/manifolds.md)", 2, 40, "PCA; persistent homology; CKA"),
    Exercise("ex-modadd-irrelevance", _MA, "distance irrelevance of a Clock-Pizza mixture",
             "[Clock and Pizza](modular_addition/clock_pizza.md)", 2, 30,
             "variance decompositions; change of variables on a grid"),
    Exercise("ex-modadd-architecture", _MA, "what MLP-Add forces on its neurons", "both chapters", 3, 45,
             "training a small network; fitting neurons; reading phases"),
    Exercise("ex-abstraction-code-score", _AB, "code: the abstraction score of class means",
             f"{_LINEAR} {{cite}}`yang2026abstraction`", 1, 20, "class means; cosines of difference vectors",
             check="check_abstraction_score", points=2),
    Exercise("ex-abstraction-code-kernel", _AB, "code: the score from the class kernel alone", _LINEAR, 2, 25,
             "inner products from a Gram matrix", check="check_kernel_abstraction", points=3),
    Exercise("ex-abstraction-noise", _AB, "within-class noise biases the measured score", _LINEAR, 2, 40,
             "expected kernels; bias of an estimator"),
    Exercise("ex-abstraction-terminal", _AB, "how slowly the terminal law is reached", _LINEAR, 3, 45,
             "asymptotics of an ODE solution; log-log plots"),
    Exercise("ex-abstraction-attenuation", _AB, "how much each nonlinearity attenuates",
             "[nonlinear](abstraction/nonlinear.md) {cite}`williams1997infinite,cho2009kernel`", 1, 25,
             "kernel maps of activations; checking an inequality numerically"),
    Exercise("ex-schur-code-split", _SR, "code: the R/C split of the ordered real Schur form",
             f"{_COPY} {{cite}}`draeger2026schur`", 2, 25, "real Schur blocks; eigenvalue moduli",
             check="check_split_index", points=3),
    Exercise("ex-schur-code-ablate", _SR, "code: removing parts of the coupling $N$", _COPY, 2, 25,
             "block masks; ablations that keep the spectrum", check="check_ablate_coupling", points=3),
    Exercise("ex-schur-normality", _SR, "departure from normality and the coupling $N$", _COPY, 2, 40,
             "Schur decomposition; Frobenius norms"),
    Exercise("ex-schur-transfer", _SR, "$T_{C \\to R}$ carries fast inputs into slow modes", _COPY, 1, 25,
             "linear recurrences; pulse responses"),
    Exercise("ex-schur-small-copy", _SR, "profile a copy network you train yourself", _COPY, 3, 45,
             "training a recurrent network; ablation profiles"),
)
"""Every exercise, study by study in the book's order, in the order of its page."""


def exercise(label: str) -> Exercise:
    """The exercise labelled ``label``, or a ``KeyError`` naming the labels there are."""
    for entry in EXERCISES:
        if entry.label == label:
            return entry
    raise KeyError(f"no exercise labelled {label!r} in interp_repro.exercises.catalogue: "
                   f"add it to EXERCISES (labels: {', '.join(e.label for e in EXERCISES)})")


def instructors_table() -> str:
    """The instructors' table of every exercise as MyST markdown, pages linked relative to book/."""
    rows = ["| page | exercise | builds on | difficulty | time | skills | trained cache | points |",
            "|---|---|---|---|---|---|---|---|"]
    previous = ""
    for e in EXERCISES:
        page = "" if e.study == previous else f"[{e.study.replace('_', ' ')}]({e.study}/exercises.md)"
        previous = e.study
        rows.append(f"| {page} | {e.title} | {e.builds_on} | {'★' * e.difficulty} | {e.minutes} min | "
                    f"{e.skills} | {'needed' if e.needs_cache else 'no'} | {e.points or 'written'} |")
    return "\n".join(rows)
