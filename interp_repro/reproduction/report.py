"""Claims checked against the record of a run: one outcome per claim, and the tables that show them
(``interp-repro report``, the book's Reproduction and front pages).

An outcome measures the claim's status from the recorded value and, for a value over enough units,
its interval (``claims.Claim.status``), and passes when that status is one the registry expects at
the scale and the scale's guard, if any, holds. Beside the status it gives the criteria a reader
weighs it by: what the status rests on (an interval, too few units, one run), the power of the check
against the claim's alternative, whether the paper's value lies inside our interval, and whether our
value lies on the paper's side of the alternative.
"""

import hashlib
import html
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from interp_repro.core.cache import dependency_versions, library_fingerprint
from interp_repro.core.estimate import TARGET_POWER, Estimate
from interp_repro.core.machine import host
from interp_repro.core.scales import check_scale
from interp_repro.reproduction.claims import KINDS, NOT_CHECKED, STATUSES, Claim, Value, load_claims
from interp_repro.reproduction.records import entry_estimate, load_records, record

NOT_RUN = "not run"
ONE_RUN, TOO_FEW, LOW_POWER = "one run", "too few units", "low power"
"""What a status rests on, where not an interval of enough power: counted apart in the totals."""


@dataclass(frozen=True)
class Outcome:
    """A claim checked against what was recorded at one scale."""

    claim: Claim
    scale: str
    value: Value | None  # None: not recorded by the current library, or invalid
    estimate: Estimate | None = None  # the samples and interval of a value over seeds or clusters
    invalid: str = ""  # why the value a claims function returned can have no status (NaN, a wrong type)

    @classmethod
    def of(cls, claim: Claim, scale: str, value: object) -> "Outcome":
        """The outcome of a value as a claims function returns it (a plain value or an estimate). One
        that no status can come from (``Claim.status`` refuses it: NaN, infinity, a wrong type, an
        estimate with no samples) gives an outcome with no status that fails, saying why."""
        estimate = value if isinstance(value, Estimate) else None
        try:
            plain = claim.checked(estimate.value if estimate else value)
            claim.status(plain, estimate and estimate.interval)
        except ValueError as err:
            return cls(claim, scale, None, invalid=str(err))
        return cls(claim, scale, plain, estimate)

    @property
    def interval(self) -> tuple[float, float] | None:
        """The estimate's interval, if the value has one (an estimate over enough units)."""
        return self.estimate.interval if self.estimate else None

    @property
    def status(self) -> str | None:
        """The measured status (``reproduced``, ``differs`` or ``inconclusive``); None if skipped or
        not recorded."""
        if self.scale in self.claim.skipped or self.value is None or self.invalid:
            return None
        return self.claim.status(self.value, self.interval)

    @property
    def basis(self) -> str:
        """What the status rests on: ``interval`` (over :attr:`units`), :data:`TOO_FEW` (an estimate
        over fewer units than an interval is made of) or :data:`ONE_RUN` (a single value)."""
        if self.estimate is None:
            return ONE_RUN
        return TOO_FEW if self.interval is None else "interval"

    @property
    def units(self) -> str | None:
        """The resampling unit and how many there are, e.g. ``8 networks``; None for one run."""
        return self.estimate.resampled if self.estimate else None

    @property
    def power(self) -> float | None:
        """How often the check would say ``differs`` were the claim's alternative true, at the measured
        number of units and spread (``Estimate.power``; with too few units for an interval, by the
        point rule the status then rests on); None for one run."""
        if self.estimate is None or self.value is None:
            return None
        return _power(self.claim, self.estimate)[0]

    @property
    def units_needed(self) -> int | None:
        """For a check below :data:`TARGET_POWER` power, about how many units would reach it
        (``Estimate.units_for_power``; None if more than it looks at, or the power is fine)."""
        return None if self.power is None else _power(self.claim, self.estimate)[1]

    @property
    def counted(self) -> str | None:
        """The status as the totals count it: a reproduction rests on an interval of at least
        :data:`TARGET_POWER` power, else it is counted as :data:`ONE_RUN`, :data:`TOO_FEW` or
        :data:`LOW_POWER` (any status that rests on one run or too few units is counted so)."""
        if self.status is None:
            return None
        if self.basis != "interval":
            return f"{self.status}, {self.basis}"
        if self.status == STATUSES[0] and (self.power is None or self.power < TARGET_POWER):
            return f"{self.status}, {LOW_POWER}"
        return self.status

    @property
    def paper_inside(self) -> bool | None:
        """Whether the paper's value lies inside our interval; None without either."""
        paper = self.claim.paper_value
        if self.interval is None or paper is None or isinstance(paper, bool):
            return None
        return self.interval[0] <= paper <= self.interval[1]

    @property
    def direction(self) -> bool | None:
        """Whether our value lies on the paper band's side of the alternative (the effect's direction);
        None without a value."""
        alternative, band = self.claim.alternative, self.claim.band
        if self.value is None:
            return None
        if isinstance(band.equals, bool):
            return self.value == band.equals
        alt = alternative.value
        edge = band.equals if band.equals is not None else (
            band.min if band.min is not None and band.min > alt else band.max)
        return (self.value - alt) * (edge - alt) > 0

    @property
    def to_decide(self) -> int | None:
        """For an inconclusive value, about how many units would decide it at the observed spread
        (``Estimate.samples_to_decide`` against the band's nearer edge); else None."""
        if self.status != STATUSES[2]:
            return None
        band = self.claim.band
        edges = [e for e in (band.min, band.max, band.equals) if e is not None and not isinstance(e, bool)]
        return self.estimate.samples_to_decide(min(edges, key=lambda e: abs(e - self.value)))

    @property
    def expected(self) -> str | None:
        """The status the registry expects at this scale (``a or b`` for a claim on an edge; None
        where the claim is skipped)."""
        expected = self.claim.expected.get(self.scale)
        return None if expected is None else " or ".join(expected)

    @property
    def guard(self) -> str:
        """``pass`` or ``FAIL`` for the scale's guard on our value; ``-`` where there is none or
        nothing was recorded."""
        guard = self.claim.guards.get(self.scale)
        if guard is None or self.value is None:
            return "-"
        return "pass" if guard.passes(self.value) else "FAIL"

    @property
    def result(self) -> str:
        """``pass`` (the measured status is the expected one and the guard holds), ``FAIL`` (so is a
        value no status can come from), ``not run``, or :data:`NOT_CHECKED` where the claim's status
        is skipped at this scale (its guard still fails the outcome)."""
        if self.guard == "FAIL" or self.invalid:
            return "FAIL"
        if self.scale in self.claim.skipped:
            return NOT_CHECKED
        if self.value is None:
            return NOT_RUN
        return "pass" if self.status in self.claim.expected[self.scale] else "FAIL"

    def message(self) -> str:
        """One line naming the claim, the paper's value and band, ours, the statuses and the guard."""
        c = self.claim
        if self.invalid:
            return f"{c.id}: no status at {self.scale}: {self.invalid} -> {self.result}"
        guard = c.guards.get(self.scale)
        guarded = f"; guard {guard.describe()} ({guard.reason}): {self.guard}" if guard else ""
        if self.scale in c.skipped:
            return (f"{c.id}: status {NOT_CHECKED} at {self.scale} ({c.skipped[self.scale]}); "
                    f"ours {self.ours}{guarded} -> {self.result}")
        decide = (f" (about {self.to_decide} {self.estimate.of or self.estimate.unit} would decide it)"
                  if self.to_decide else "")
        power = f"; power {self.power:.0%} against {c.alternative.value}" if self.power is not None else ""
        return (f"{c.id}: paper {c.paper} (band {c.band.describe()}); ours {self.ours} -> "
                f"{self.status or NOT_RUN}{decide} [{self.basis}{power}], expected {self.expected} at "
                f"{self.scale}{guarded} -> {self.result}")

    @property
    def ours(self) -> str:
        """Our value as text, with its samples and interval where it has them."""
        return self.estimate.describe() if self.estimate else _fmt(self.value)

    def as_dict(self) -> dict[str, Any]:
        """The outcome as plain data (``interp-repro report --json``)."""
        c = self.claim
        guard = c.guards.get(self.scale)
        measured = self.status is not None
        return {"id": c.id, "kind": c.kind, "paper": c.paper, "paper_value": c.paper_value,
                "reference": c.reference, "paper_band": c.band.describe(), "ours": self.value,
                "estimate": self.estimate.as_dict() if self.estimate else None,
                "interval": list(self.interval) if self.interval else None, "basis": self.basis,
                "units": self.units, "n_units": self.estimate.n_units if self.estimate else None,
                "alternative": c.alternative.value, "alternative_reason": c.alternative.reason,
                "power": self.power if measured else None,
                "units_for_power": self.units_needed if measured else None,
                "paper_inside_interval": self.paper_inside, "direction": self.direction,
                "status": self.status, "counted": self.counted, "to_decide": self.to_decide,
                "expected": self.expected, "guard": guard.describe() if guard else None,
                "guard_result": self.guard if guard else None, "invalid": self.invalid or None,
                "result": self.result}


_POWERS: dict[tuple, tuple[float, int | None]] = {}


def _power(claim: Claim, estimate: Estimate) -> tuple[float, int | None]:
    """The power of ``claim``'s check of ``estimate`` against its alternative, and for one below
    :data:`TARGET_POWER` about the units that would reach it; computed once per process for each
    claim's band, alternative and estimate (every page and table of a build shows the same ones)."""
    key = (claim.id, claim.band, claim.alternative, estimate)
    if key not in _POWERS:
        power = estimate.power(claim.alternative.value, claim.differs)
        needed = (None if power >= TARGET_POWER
                  else estimate.units_for_power(claim.alternative.value, claim.differs))
        _POWERS[key] = (power, needed)
    return _POWERS[key]


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
        outcomes.append(Outcome(claim, scale, None if entry is None else entry["value"],
                                None if entry is None else entry_estimate(entry)))
    return outcomes


def _fmt(value: Value | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


REPORT_COLUMNS = ("claim", "kind", "paper", "band", "ours", "status", "expected", "guard", "result")


def report_rows(outcomes: list[Outcome]) -> list[tuple[str, ...]]:
    """Rows of the reproduction table, one per outcome, in :data:`REPORT_COLUMNS` order."""
    return [(o.claim.id, o.claim.kind, o.claim.paper, o.claim.band.describe(), o.ours,
             o.status or (NOT_CHECKED if o.result == NOT_CHECKED else NOT_RUN), o.expected or "-",
             o.guard, o.result) for o in outcomes]


def claim_pages(book: Path) -> dict[str, str]:
    """Each claim's chapter, as a path relative to ``book`` without suffix: the first chapter whose
    text names the claim (it glues the value), else the one naming a claim of the same study whose id
    shares the longest prefix with it."""
    pages = {p.relative_to(book).with_suffix("").as_posix(): p.read_text()
             for p in sorted(book.glob("*/*.md"))}
    named = {cid: next((page for page, text in pages.items() if cid in text), None) for cid in load_claims()}
    found = {cid: page for cid, page in named.items() if page}
    for cid, page in named.items():
        if page is None:
            kin = [k for k in found if k.split(".")[0] == cid.split(".")[0]]
            if kin:
                named[cid] = found[max(kin, key=lambda k: len(os.path.commonprefix([k, cid])))]
    return {cid: page for cid, page in named.items() if page}


COLOURS = {"reproduced": "#d4edda", "differs": "#fde2c8", "inconclusive": "#fff3cd", "FAIL": "#f8d7da"}
"""Background of a status or result cell on the Reproduction page."""


def _criteria(o: Outcome) -> str:
    """What a status rests on, for the Reproduction page: its basis, the power against the alternative
    (with the units that would reach :data:`TARGET_POWER`), whether the paper's value lies in our
    interval, and the effect's direction."""
    if o.status is None:
        return "-"
    parts = [o.basis if o.basis != "interval" else f"interval over {o.units}"]
    if o.power is not None:
        need = f", about {o.units_needed} units for 80%" if o.units_needed else ""
        parts.append(f"power {o.power:.0%} against {o.claim.alternative.value:g}{need}")
    if o.paper_inside is not None:
        parts.append(f"paper's value {'in' if o.paper_inside else 'outside'} our interval")
    if o.direction is not None:
        parts.append("the paper's direction" if o.direction else "not the paper's direction")
    return "; ".join(parts)


def study_table(scale: str, study: str, book: Path, records: dict | None = None):
    """One study's claims for the Reproduction page, as a pandas Styler: each claim linked to its
    chapter (with its kind below), the paper's value and band, ours, the measured status (coloured)
    and the check's result (with the expected status where they differ), narrow enough for a
    laptop screen."""
    import pandas as pd

    pages = claim_pages(book)
    rows = []
    for o in check_records(scale, records, study=study):
        cid = o.claim.id
        name = cid.removeprefix(study + ".").replace("_", "_<wbr>")  # long ids may wrap
        link = f'<a href="{pages[cid]}.html">{name}</a>' if cid in pages else name
        result = o.result if o.result != "FAIL" or o.guard == "FAIL" else f"FAIL (expected {o.expected})"
        rows.append({"claim": f"{link}<br><small>{o.claim.kind}</small>",
                     "paper": f"{o.claim.paper} ({o.claim.band.describe()})", "ours": o.ours,
                     "status": o.status or "-", "rests on": _criteria(o), "result": result})
    table = pd.DataFrame(rows)

    def colour(value: str) -> str:
        key = "FAIL" if value.startswith("FAIL") else value
        return f"background-color: {COLOURS[key]}" if key in COLOURS else ""

    return table.style.hide(axis="index").map(colour, subset=["status", "result"])


COUNTS = (*STATUSES, f"{STATUSES[0]}, {LOW_POWER}",
          *(f"{status}, {basis}" for basis in (TOO_FEW, ONE_RUN) for status in STATUSES[:2]),
          NOT_RUN, NOT_CHECKED)
"""What the totals count (``Outcome.counted``): a status resting on an interval of enough power, a
reproduction of low power, a status resting on too few units or one run, a claim not run or not
checked."""


def status_summary(scale: str, records: dict | None = None):
    """Measured statuses at ``scale``, per study (rows, in book order) and kind: one column per
    (kind, :data:`COUNTS` entry), with what rests on one run, too few units or low power counted
    apart; a pandas DataFrame for the book's front page (columns with no claim dropped)."""
    import pandas as pd

    from interp_repro import STUDIES

    columns = [(kind, c) for kind in KINDS for c in COUNTS]
    table = pd.DataFrame(0, index=list(STUDIES), columns=pd.MultiIndex.from_tuples(columns))
    for o in check_records(scale, records):
        counted = o.counted or (NOT_CHECKED if o.result == NOT_CHECKED else NOT_RUN)
        table.loc[o.claim.study, (o.claim.kind, counted)] += 1
    return table.loc[:, (table != 0).any()]


def status_totals(summary) -> dict[str, dict[str, int]]:
    """Kind -> :data:`COUNTS` entry -> claims, summed over studies, from a :func:`status_summary`
    table; every entry of every kind is present (0 when none), with ``"all"`` the kind's total."""
    total = summary.sum()
    out = {}
    for kind in KINDS:
        counts = {c: int(total.get((kind, c), 0)) for c in COUNTS}
        out[kind] = counts | {"all": sum(counts.values())}
    return out


class RecordedClaims(dict):
    """Claim values a chapter recorded ({claim id: value}); a notebook shows them as a table of our
    value beside the paper's, with the measured status, so that a differing claim says so where its
    figure is. ``estimates`` holds the samples and interval of each value over seeds or clusters."""

    def __init__(self, values: Mapping[str, Value], scale: str,
                 estimates: Mapping[str, Estimate] | None = None):
        super().__init__(values)
        self.scale = scale
        self.estimates = dict(estimates or {})

    def outcomes(self) -> list[Outcome]:
        """One outcome per recorded claim, at the recording scale."""
        claims = load_claims()
        return [Outcome(claims[cid], self.scale, value, self.estimates.get(cid))
                for cid, value in self.items()]

    def _repr_html_(self) -> str:
        rows = []
        for o in self.outcomes():
            status = o.status or NOT_CHECKED
            if status in STATUSES[1:] and o.claim.note:
                why = f"<br><em>Why it is {status}: {html.escape(o.claim.note)}</em>"
            elif self.scale in o.claim.skipped:
                why = f"<br><em>Not checked here: {html.escape(o.claim.skipped[self.scale])}</em>"
            else:
                why = ""
            colour = COLOURS.get("FAIL" if o.result == "FAIL" else status, "")
            rows.append(f"<tr><td><code>{html.escape(o.claim.id)}</code><br><small>"
                        f"{html.escape(o.claim.statement)}{why}</small></td><td>{html.escape(o.ours)}</td>"
                        f"<td>{html.escape(o.claim.paper)} ({html.escape(o.claim.band.describe())})</td>"
                        f'<td style="background-color: {colour}">{status}<br><small>'
                        f'{html.escape(_criteria(o))}</small></td><td>{o.result}</td></tr>')
        head = "".join(f"<th>{h}</th>" for h in ("claim", "ours", "paper (band)",
                                                   f"status at {self.scale}", "check"))
        return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def record_all(values: Mapping[str, Value | Estimate], scale: str) -> RecordedClaims:
    """Record every (claim id, value) pair of ``values`` (see :func:`record`); returns them as plain
    values, which a notebook shows beside the paper's with the measured status."""
    estimates = {cid: v for cid, v in values.items() if isinstance(v, Estimate)}
    return RecordedClaims({cid: record(cid, v, scale) for cid, v in values.items()}, scale, estimates)


def provenance(lock: Path | None = None) -> str:
    """Markdown naming what made this build: the package version, each study's library fingerprint
    (the key of its cached results), the numerical libraries, the lock file the environment was
    installed from (its SHA-256, when ``lock`` exists) and the machine."""
    from interp_repro import STUDIES, __version__

    machine = host()
    prints = ", ".join(f"{study} `{library_fingerprint(study)}`" for study in STUDIES)
    pinned = (f"lock file `{lock.name}` SHA-256 `{hashlib.sha256(lock.read_bytes()).hexdigest()[:16]}`"
              if lock is not None and lock.is_file() else "no lock file")
    return (f"Built with interp-repro **{__version__}**; library fingerprints: {prints}; "
            f"{dependency_versions()}, Python {machine['python']}, {pinned}; on {machine['cpu']} "
            f"({machine['cores']} cores, {machine['system']}).")
