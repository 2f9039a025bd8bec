"""Reproduction: the claims of every study (``claims.toml``), the record of what a run measured, and
the checks and report that compare the two; and how fast our code runs beside its baselines
(``speed``: the results of the ``benchmarks/`` scripts). A layer above ``core``, which never imports
it."""

from interp_repro.reproduction.records import (
    glue_papers,
    glue_values,
    load_records,
    record,
    resolve_env_paths,
)
from interp_repro.reproduction.report import record_all

__all__ = ["glue_papers", "glue_values", "load_records", "record", "record_all", "resolve_env_paths"]
