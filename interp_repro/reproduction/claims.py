"""Headline claims (``claims.toml``): the schema, its validation and loading.

Each claim names its study, statement, source and the paper's value, a status (``reproduced``,
``partial`` or ``differs``) and one check per scale: bounds on the value with a one-line reason.
"""

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from interp_repro.core.scales import SCALES

Value = float | int | bool
"""A recorded claim value."""

CLAIMS_FILE = Path(__file__).with_name("claims.toml")
STATUSES = ("reproduced", "partial", "differs")
_CLAIM_KEYS = {"id", "study", "statement", "source", "paper", "status", "note", "check"}
_CHECK_KEYS = {"min", "max", "equals", "reason"}
NOT_CHECKED = "not checked"
"""The result at a scale where a claim's statistic means nothing (its check is ``{ skip = "why" }``)."""


@dataclass(frozen=True)
class Check:
    """Bounds a recorded value must satisfy at one scale, and why they are what they are."""

    reason: str
    min: float | None = None
    max: float | None = None
    equals: Value | None = None
    skip: bool = False  # the statistic is not measured at this scale; ``reason`` says why

    def passes(self, value: Value) -> bool:
        """True if ``value`` satisfies every bound (a bool only ever equals a bool)."""
        if isinstance(value, bool) != isinstance(self.equals, bool) and self.equals is not None:
            return False
        if self.equals is not None and value != self.equals:
            return False
        if isinstance(value, bool) and (self.min is not None or self.max is not None):
            return False
        if self.min is not None and not value >= self.min:
            return False
        return not (self.max is not None and not value <= self.max)

    def describe(self) -> str:
        """The bounds as text, e.g. ``>= 0.99`` or ``in [0.4, 0.6]``."""
        if self.skip:
            return NOT_CHECKED
        if self.equals is not None:
            return f"== {self.equals}"
        if self.min is not None and self.max is not None:
            return f"in [{self.min:g}, {self.max:g}]"
        return f">= {self.min:g}" if self.min is not None else f"<= {self.max:g}"


@dataclass(frozen=True)
class Claim:
    """One headline claim of a study."""

    id: str
    study: str
    statement: str
    source: str
    paper: str
    status: str
    checks: dict[str, Check]
    note: str = ""


def _parse_check(claim_id: str, scale: str, raw: dict) -> Check:
    if "skip" in raw:
        if set(raw) != {"skip"} or not isinstance(raw["skip"], str) or not raw["skip"]:
            raise ValueError(f"claim {claim_id}, scale {scale}: a skipped check is "
                             '{ skip = "why" } alone')
        return Check(reason=raw["skip"], skip=True)
    unknown = set(raw) - _CHECK_KEYS
    if unknown or "reason" not in raw:
        raise ValueError(f"claim {claim_id}, scale {scale}: need 'reason', got keys {sorted(raw)}")
    if not any(k in raw for k in ("min", "max", "equals")):
        raise ValueError(f"claim {claim_id}, scale {scale}: give at least one of min, max, equals")
    return Check(**raw)


def parse_claims(text: str) -> dict[str, Claim]:
    """Parse and validate the TOML text of a claims file into {id: Claim}."""
    from interp_repro import STUDIES

    claims: dict[str, Claim] = {}
    for raw in tomllib.loads(text).get("claims", []):
        cid = raw.get("id", "<no id>")
        missing = _CLAIM_KEYS - {"note"} - set(raw)
        if missing or set(raw) - _CLAIM_KEYS:
            raise ValueError(f"claim {cid}: missing {sorted(missing)} or unknown keys in {sorted(raw)}")
        if raw["study"] not in STUDIES:
            raise ValueError(f"claim {cid}: unknown study {raw['study']!r}")
        if not cid.startswith(raw["study"] + "."):
            raise ValueError(f"claim {cid}: ids start with their study, '{raw['study']}.'")
        if raw["status"] not in STATUSES:
            raise ValueError(f"claim {cid}: status must be one of {STATUSES}")
        if raw["status"] != "reproduced" and not raw.get("note"):
            raise ValueError(f"claim {cid}: a {raw['status']} claim needs a note saying why")
        if set(raw["check"]) != set(SCALES):
            raise ValueError(f"claim {cid}: give a check for each scale {SCALES}")
        if cid in claims:
            raise ValueError(f"claim {cid} is defined twice")
        checks = {s: _parse_check(cid, s, raw["check"][s]) for s in SCALES}
        fields = {k: raw[k] for k in ("study", "statement", "source", "status")}
        claims[cid] = Claim(id=cid, paper=str(raw["paper"]), checks=checks,
                            note=raw.get("note", ""), **fields)
    return claims


@cache
def load_claims() -> dict[str, Claim]:
    """Every claim in the package's ``claims.toml``."""
    return parse_claims(CLAIMS_FILE.read_text())


def study_claims(study: str) -> list[Claim]:
    """The claims of one study, in file order."""
    return [c for c in load_claims().values() if c.study == study]
