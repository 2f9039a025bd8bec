"""Claims checked against the record of a run: one outcome per claim, and the tables that show them
(``interp-repro report``, the book's Reproduction and front pages)."""

from dataclasses import dataclass

from interp_repro.core.cache import library_fingerprint
from interp_repro.core.scales import check_scale
from interp_repro.reproduction.claims import NOT_CHECKED, STATUSES, Claim, Value, load_claims
from interp_repro.reproduction.records import load_records


@dataclass(frozen=True)
class Outcome:
    """A claim checked against what was recorded at one scale."""

    claim: Claim
    scale: str
    value: Value | None  # None: not recorded by the current library

    @property
    def result(self) -> str:
        """``pass``, ``FAIL``, ``not run``, or :data:`NOT_CHECKED` where the check is skipped."""
        if self.claim.checks[self.scale].skip:
            return NOT_CHECKED
        if self.value is None:
            return "not run"
        return "pass" if self.claim.checks[self.scale].passes(self.value) else "FAIL"

    def message(self) -> str:
        """One line naming the claim, the paper's value, ours and the check."""
        check = self.claim.checks[self.scale]
        return (f"{self.claim.id}: paper {self.claim.paper}; ours {_fmt(self.value)} "
                f"({self.scale} check {check.describe()}: {check.reason}) -> {self.result}")


def check_records(scale: str, records: dict | None = None, study: str | None = None,
                  current_only: bool = True) -> list[Outcome]:
    """Check every claim (of ``study``, if given) against the records at ``scale``.

    Values recorded by a different library fingerprint count as not run when ``current_only``.
    """
    check_scale(scale)
    records = load_records() if records is None else records
    at_scale = records.get(scale, {})
    outcomes = []
    for claim in load_claims().values():
        if study is not None and claim.study != study:
            continue
        entry = at_scale.get(claim.id)
        if entry is not None and current_only and entry.get("lib") != library_fingerprint(claim.study):
            entry = None
        outcomes.append(Outcome(claim, scale, None if entry is None else entry["value"]))
    return outcomes


def _fmt(value: Value | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


REPORT_COLUMNS = ("claim", "source", "paper", "ours", "check", "result", "status")


def report_rows(outcomes: list[Outcome]) -> list[tuple[str, ...]]:
    """Rows of the reproduction table, one per outcome, in :data:`REPORT_COLUMNS` order."""
    return [(o.claim.id, o.claim.source, o.claim.paper, _fmt(o.value),
             o.claim.checks[o.scale].describe(), o.result, o.claim.status) for o in outcomes]


def report_frame(scale: str, records: dict | None = None):
    """The reproduction table as a pandas DataFrame (used by the book's Reproduction page)."""
    import pandas as pd

    rows = report_rows(check_records(scale, records))
    return pd.DataFrame(rows, columns=list(REPORT_COLUMNS))


def status_summary():
    """Claims per study and status (rows: studies in book order; columns: :data:`STATUSES`), as a
    pandas DataFrame; used by the book's front page."""
    import pandas as pd

    from interp_repro import STUDIES

    table = pd.DataFrame(0, index=list(STUDIES), columns=list(STATUSES))
    for claim in load_claims().values():
        table.loc[claim.study, claim.status] += 1
    table["claims"] = table.sum(axis=1)
    return table
