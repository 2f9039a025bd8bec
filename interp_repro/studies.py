"""The one registry of studies, and every study's cached computations in one pool: what a whole book
build computes first.

:data:`REGISTRY` names each study once, in book order, with its cost rank and its experiments module,
reached by an import statement (so a renamed or missing module fails, and a type checker holds each
one to the :class:`Experiments` contract). The import runs when the module is first asked for, so
reading the names (:data:`STUDIES`, also ``interp_repro.STUDIES``) or :data:`LONGEST_FIRST` loads no
study.

Each study's ``experiments.jobs(scale)`` lists the independent trainings and analyses its chapters
read. Run in one pool before the pages execute, they keep every core busy until the last job, where
a chapter that trained in its own kernel, or a pool per study, would leave cores idle; the pages
then only read the cache. Each study's cost is the sum of its jobs' seconds.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from interp_repro.core.parallel import Job
    from interp_repro.core.table import Table


class Experiments(Protocol):
    """What a study's ``experiments`` module provides to the build and the command line: both derived
    from the study's one table of experiments (``core.table``)."""

    __name__: str
    EXPERIMENTS: "Table"

    def jobs(self, scale: str) -> "list[Job]":
        """The independent cached computations the study's chapters read at ``scale``."""
        ...

    def run_all(self, scale: str) -> dict[str, Any]:
        """Every claim of the study at ``scale``: claim id -> measured value."""
        ...


def _superposition() -> Experiments:
    from interp_repro.superposition import experiments
    return experiments


def _modular_addition() -> Experiments:
    from interp_repro.modular_addition import experiments
    return experiments


def _abstraction() -> Experiments:
    from interp_repro.abstraction import experiments
    return experiments


def _schur_rnn() -> Experiments:
    from interp_repro.schur_rnn import experiments
    return experiments


@dataclass(frozen=True)
class Study:
    """One study: its package ``name``, its ``cost_rank`` (1 for the study whose jobs take longest:
    ``fill_cache`` submits the longest study's jobs first) and the import of its experiments module."""

    name: str
    cost_rank: int
    load: Callable[[], Experiments]

    @property
    def experiments(self) -> Experiments:
        """The study's ``experiments`` module, imported on first use."""
        return self.load()


REGISTRY: tuple[Study, ...] = (  # in book order
    Study("superposition", cost_rank=3, load=_superposition),
    Study("modular_addition", cost_rank=1, load=_modular_addition),
    Study("abstraction", cost_rank=4, load=_abstraction),
    Study("schur_rnn", cost_rank=2, load=_schur_rnn),
)
"""Every study with a library and chapters, in book order."""

BY_NAME: dict[str, Study] = {study.name: study for study in REGISTRY}
STUDIES: tuple[str, ...] = tuple(BY_NAME)
"""Studies with a library and chapters, in book order."""
LONGEST_FIRST: tuple[str, ...] = tuple(s.name for s in sorted(REGISTRY, key=lambda s: s.cost_rank))
"""The studies by the length of their jobs, longest first."""


def _check(studies: tuple[str, ...]) -> tuple[str, ...]:
    unknown = sorted(set(studies) - set(STUDIES))
    if unknown:
        raise ValueError(f"unknown studies {unknown}: choose from {STUDIES}")
    return tuple(sorted(studies, key=LONGEST_FIRST.index))


def experiments(study: str) -> Experiments:
    """The experiments module of ``study``; a ``ValueError`` naming the choices for an unknown one."""
    (study,) = _check((study,))
    return BY_NAME[study].experiments


def jobs(scale: str, study: str) -> "list[Job]":
    """The jobs of ``study`` at ``scale``."""
    return experiments(study).jobs(scale)


def run_all(scale: str, study: str) -> dict[str, Any]:
    """Every claim of ``study`` at ``scale`` (``experiments.run_all``). A claim may be missing where its
    data are (e.g. a test that needs more networks than the scale trains): the command line fails it
    as unmeasured."""
    return experiments(study).run_all(scale)


def check_registry(studies: tuple[str, ...] = STUDIES) -> None:
    """:class:`~interp_repro.core.errors.ConfigError` unless the claims functions of each of
    ``studies`` declare (``core.table.declares``) exactly its claims in the registry: no id the
    registry lacks, no claim without a claims function. Checked before any work."""
    from interp_repro.core.errors import ConfigError
    from interp_repro.core.table import declared_ids
    from interp_repro.reproduction.claims import CLAIMS_FILE, study_claims

    for study in _check(studies):
        declared = declared_ids(experiments(study).EXPERIMENTS)
        registry = {claim.id for claim in study_claims(study)}
        if unknown := sorted(declared - registry):
            raise ConfigError(f"{study}'s claims functions declare ids that {CLAIMS_FILE.name} lacks: "
                              f"{', '.join(unknown)}")
        if orphans := sorted(registry - declared):
            raise ConfigError(f"claims in {CLAIMS_FILE.name} that no claims function of {study} declares: "
                              f"{', '.join(orphans)}")


def fill_cache(scale: str, studies: tuple[str, ...] = STUDIES, workers: int | None = None,
               dask: str | None = None) -> dict[str, dict[str, Any]]:
    """Train and analyse (or find cached) everything the chapters of ``studies`` read at ``scale``,
    in one pool of ``workers`` processes or on Dask (``core.parallel.run_jobs``): the jobs marked
    ``first`` (``core.parallel.Job``), then the longest study's jobs first. Returns per study its
    number of jobs, how many of them computed something (0: everything was cached), the seconds they
    took, summed over its jobs (on one worker each), and ``by_job``: per job that computed, its CPU
    seconds, the GFLOP its training steps did, their CPU seconds and what bounds their speed
    (``core.flops``), costliest first."""
    from interp_repro.core.parallel import run_jobs

    chosen = _check(studies)
    todo = {study: jobs(scale, study) for study in chosen}
    listed = [job for study in chosen for job in todo[study]]
    order = sorted(range(len(listed)), key=lambda i: not listed[i].first)
    ran = run_jobs([listed[i] for i in order], desc=f"{', '.join(chosen)} at scale {scale}",
                   workers=workers, dask=dask)
    spent = iter([s for _, s in sorted(zip(order, ran, strict=True))])  # back in listed order
    out = {}
    for study in chosen:
        took = [(job, s) for job in todo[study] if (s := next(spent)) is not None]
        out[study] = {"seconds": round(sum(s.wall for _, s in took), 1), "jobs": len(todo[study]),
                      "computed": len(took),
                      "by_job": [{"job": job.name, "cpu_s": round(s.cpu, 1), "wall_s": round(s.wall, 1),
                                  "gflop": round(s.flops / 1e9, 3), "training_s": round(s.training, 1),
                                  "bounds": list(s.bounds)}
                                 for job, s in sorted(took, key=lambda item: -item[1].cpu)]}
    return out
