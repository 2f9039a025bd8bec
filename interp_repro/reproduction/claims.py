"""Headline claims (``claims.toml``): the schema, its validation and loading.

A claim states a paper's result as a machine check, its **paper band**: the paper's number with a
tolerance whose reason is written down, or the paper's qualitative statement as a bound. The status is
measured, never typed:

- a value over seeds, networks or clusters comes with its samples and a 95% interval over its
  independent units (``core.estimate.Estimate``), and the whole interval decides: **reproduced** when
  all of it lies in the band, **differs** when all of it lies outside, **inconclusive** when it
  straddles an edge (the report says about how many more units would decide it);
- a single value ("one run"), or an estimate over fewer units than an interval is made of ("too few
  units"), is reproduced inside the band and differs outside it; the report counts these apart.

Every claim over samples names its **alternative**: what a non-reproduction would look like (the
Clock's value for a Pizza claim, the theory's prediction that the paper refutes, zero for "some units
differ"). Its band must exclude the alternative, and the report gives the check's **power**: how often
it would say "differs" were the alternative true, at the measured size and spread.

What the registry types is the status it **expects** at each scale, and the measured status must be
that one, so a run fails whether it regressed or started to reproduce. A claim known to sit on an
edge lists both statuses, and its note cites the two measurements (two machines or two seed sets)
that put it there. A claim may also carry a **guard** per scale, bounds around our own value that
catch drift; a guard never decides the status. A scale where nothing can be measured (no network of
that kind is trained there, or the training length differs from the reference population's) is
**skipped**, with the reason; its guard, if any, still holds.

Kinds: ``reproduction`` (a paper's result), ``seed`` (a number from the seed documents that no paper
source confirms) and ``sanity`` (a property that holds by construction, or a check of our own
derivation).
"""

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from interp_repro.core.errors import ConfigError
from interp_repro.core.estimate import Estimate
from interp_repro.core.scales import SCALES
from interp_repro.core.validate import is_finite_number

Value = float | int | bool
"""A recorded claim value."""

CLAIMS_FILE = Path(__file__).with_name("claims.toml")
KINDS = ("reproduction", "seed", "sanity")
STATUSES = ("reproduced", "differs", "inconclusive")
NOT_CHECKED = "not checked"
"""The result at a scale where a claim is skipped: its statistic means nothing there."""
_REQUIRED = {"id", "study", "kind", "statement", "source", "paper", "band", "expected"}
_OPTIONAL = {"paper_value", "reference", "alternative", "skip", "guard", "note"}
_BOUND_KEYS = {"min", "max", "equals", "reason"}
_TABLES = ("claims", "not_reproduced")


@dataclass(frozen=True)
class Bounds:
    """Bounds on a value (a paper band or a guard), and why they are what they are."""

    reason: str
    min: float | None = None
    max: float | None = None
    equals: Value | None = None

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

    def reaches(self, low: float, high: float) -> bool:
        """True if some value of the interval [``low``, ``high``] satisfies the bounds."""
        if isinstance(self.equals, bool):
            return False
        if self.equals is not None:
            return low <= self.equals <= high
        return (self.min is None or high >= self.min) and (self.max is None or low <= self.max)

    def holds_all(self, low: float, high: float) -> bool:
        """True if every value of the interval [``low``, ``high``] satisfies the bounds."""
        return self.passes(low) and self.passes(high) and (self.equals is None or low == high)

    def describe(self) -> str:
        """The bounds as text, e.g. ``>= 0.99`` or ``in [0.4, 0.6]``."""
        if self.equals is not None:
            return f"== {self.equals}"
        if self.min is not None and self.max is not None:
            return f"in [{self.min:g}, {self.max:g}]"
        return f">= {self.min:g}" if self.min is not None else f"<= {self.max:g}"


@dataclass(frozen=True)
class Alternative:
    """What a non-reproduction would look like, as a value of the claim's statistic, and why."""

    value: Value
    reason: str


@dataclass(frozen=True)
class Claim:
    """One headline claim of a study."""

    id: str
    study: str
    kind: str
    statement: str
    source: str
    paper: str                    # the paper's statement, as text
    band: Bounds                  # the paper band
    expected: dict[str, tuple[str, ...]]  # scale -> expected status (two for a claim on an edge)
    skipped: dict[str, str]       # scale -> why the claim is not checked there
    guards: dict[str, Bounds]     # scale -> bounds around our own value
    paper_value: Value | None = None
    reference: Value | None = None  # our measure on an independent run of the paper's recipe
    alternative: Alternative | None = None  # always set by the registry's parser
    note: str = ""

    @property
    def boolean(self) -> bool:
        """True for a yes/no claim (its band equals a bool); its values are bools, every other claim's
        finite numbers."""
        return isinstance(self.band.equals, bool)

    def checked(self, value: object) -> Value:
        """``value`` as a plain Python value of this claim's type (a NumPy or torch scalar unwrapped),
        else ``ValueError`` (one line): a bool claim takes a bool, any other claim a finite int or
        float, never a bool, NaN or infinity."""
        if not isinstance(value, bool | int | float) and hasattr(value, "item"):
            try:
                value = value.item()
            except (ValueError, RuntimeError):  # an array of many values
                raise ValueError(f"claim {self.id} takes one value, got {value!r:.40}") from None
        if self.boolean:
            if not isinstance(value, bool):
                raise ValueError(f"claim {self.id} is a yes/no claim: its value is a bool, got {value!r:.40}")
            return value
        if not is_finite_number(value):
            raise ValueError(f"claim {self.id} takes a finite number, got {value!r:.40}")
        return value

    def status(self, value: object, interval: object = None) -> str:
        """The one place a status is measured. With an ``interval`` (of an estimate over enough
        units): ``reproduced`` if all of it lies in the paper band, ``differs`` if none of it does,
        else ``inconclusive``. Without one: ``reproduced`` if ``value`` lies in the band, else
        ``differs``. ``ValueError`` for what no status can come from: a value of the wrong type, NaN or
        infinity (:meth:`checked`), or an interval that is not two finite numbers around the value."""
        value = self.checked(value)
        if interval is None:
            return STATUSES[0] if self.band.passes(value) else STATUSES[1]
        interval = _interval(self.id, value, interval)
        if self.band.holds_all(*interval):
            return STATUSES[0]
        return STATUSES[2] if self.band.reaches(*interval) else STATUSES[1]

    def differs(self, estimate: Estimate) -> bool:
        """True if ``estimate`` (its value and interval) measures ``differs``: what a power counts."""
        return self.status(estimate.value, estimate.interval) == STATUSES[1]


def _interval(cid: str, value: Value, interval: object) -> tuple[float, float]:
    """``interval`` as (low, high), else ``ValueError``: two finite numbers with low <= value <= high."""
    if (not isinstance(interval, tuple | list) or len(interval) != 2
            or not all(map(is_finite_number, interval)) or not interval[0] <= value <= interval[1]):
        raise ValueError(f"claim {cid}: an interval is two finite numbers around the value {value!r}, "
                         f"got {interval!r:.60}")
    return float(interval[0]), float(interval[1])


def _text(where: str, name: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: {name} must be non-empty text, got {value!r}")
    return value


def _bounds(where: str, raw: object) -> Bounds:
    if not isinstance(raw, dict) or set(raw) - _BOUND_KEYS or "reason" not in raw:
        raise ValueError(f"{where}: bounds are a table with 'reason' and some of min, max, equals")
    _text(where, "reason", raw["reason"])
    if not any(k in raw for k in ("min", "max", "equals")):
        raise ValueError(f"{where}: give at least one of min, max, equals")
    for key in ("min", "max"):
        if key in raw and not is_finite_number(raw[key]):
            raise ValueError(f"{where}: {key} must be a finite number, got {raw[key]!r}")
    if "equals" in raw and not (isinstance(raw["equals"], bool) or is_finite_number(raw["equals"])):
        raise ValueError(f"{where}: equals must be a finite number or a bool, got {raw['equals']!r}")
    if "equals" in raw and ("min" in raw or "max" in raw):
        raise ValueError(f"{where}: give equals, or min and max, not both")
    if "min" in raw and "max" in raw and raw["min"] > raw["max"]:
        raise ValueError(f"{where}: min {raw['min']} > max {raw['max']}: no value could pass")
    return Bounds(**raw)


def _per_scale(cid: str, name: str, raw: object) -> dict:
    if not isinstance(raw, dict) or set(raw) - set(SCALES):
        raise ValueError(f"claim {cid}: {name} is a table keyed by scale ({', '.join(SCALES)})")
    return raw


def _parse(raw: dict, studies: tuple[str, ...]) -> Claim:
    cid = raw.get("id", "<no id>")
    missing = _REQUIRED - set(raw)
    if missing or set(raw) - _REQUIRED - _OPTIONAL:
        raise ValueError(f"claim {cid}: missing {sorted(missing)} or unknown keys in {sorted(raw)}")
    for name in ("id", "statement", "source", "paper", *(["note"] if "note" in raw else [])):
        _text(f"claim {cid}", name, raw[name])
    if raw["study"] not in studies:
        raise ValueError(f"claim {cid}: unknown study {raw['study']!r}")
    if not cid.startswith(raw["study"] + "."):
        raise ValueError(f"claim {cid}: ids start with their study, '{raw['study']}.'")
    if raw["kind"] not in KINDS:
        raise ValueError(f"claim {cid}: kind must be one of {KINDS}, got {raw['kind']!r}")
    band = _bounds(f"claim {cid}, band", raw["band"])
    paper_value = raw.get("paper_value")
    if paper_value is not None and not (isinstance(paper_value, bool) or is_finite_number(paper_value)):
        raise ValueError(f"claim {cid}: paper_value must be a finite number or a bool, got {paper_value!r}")
    if paper_value is not None and not band.passes(paper_value):
        raise ValueError(f"claim {cid}: the paper band ({band.describe()}) excludes the paper's own "
                         f"value {paper_value}")
    expected = {scale: tuple(v) if isinstance(v, list) else (v,)
                for scale, v in _per_scale(cid, "expected", raw["expected"]).items()}
    skipped = _per_scale(cid, "skip", raw.get("skip", {}))
    if set(expected) & set(skipped) or set(expected) | set(skipped) != set(SCALES):
        raise ValueError(f"claim {cid}: every scale needs an expected status or a skip reason, not both")
    if any(not 1 <= len(v) <= 2 or len(set(v)) != len(v) or set(v) - set(STATUSES)
           for v in expected.values()):
        raise ValueError(f"claim {cid}: an expected status is one of {STATUSES} (or two of them, for a claim "
                         f"on an edge), got {raw['expected']}")
    for scale, why in skipped.items():
        _text(f"claim {cid}", f"the skip reason at {scale}", why)
    guards = _per_scale(cid, "guard", raw.get("guard", {}))
    unexpected = {s for v in expected.values() for s in v} - {STATUSES[0]}
    if unexpected and not raw.get("note"):
        raise ValueError(f"claim {cid}: a claim expected to differ, be inconclusive or sit on an edge needs "
                         "a note saying why (for an edge: the two measurements that put it there)")
    reference = raw.get("reference")
    if reference is not None and not is_finite_number(reference):
        raise ValueError(f"claim {cid}: reference must be a finite number, got {reference!r}")
    alternative = _alternative(cid, band, raw.get("alternative"))
    return Claim(id=cid, study=raw["study"], kind=raw["kind"], statement=raw["statement"],
                 source=raw["source"], paper=raw["paper"], band=band, expected=expected,
                 skipped=dict(skipped),
                 guards={s: _bounds(f"claim {cid}, guard at {s}", g) for s, g in guards.items()},
                 paper_value=paper_value, reference=reference, alternative=alternative,
                 note=raw.get("note", ""))


def _alternative(cid: str, band: Bounds, raw: object) -> Alternative:
    """The claim's alternative, else ``ValueError``: a table with a value of the band's type and a
    reason, the value outside the band (a check whose band holds its alternative cannot tell the two
    apart). Every numeric claim names one; a yes/no claim's is the other answer unless it names it."""
    if raw is None:
        if isinstance(band.equals, bool):
            return Alternative(not band.equals, "the statement does not hold")
        raise ValueError(f"claim {cid}: name its alternative (alternative = {{ value, reason }}): what a "
                         "non-reproduction would look like, outside the band")
    if not isinstance(raw, dict) or set(raw) != {"value", "reason"}:
        raise ValueError(f"claim {cid}: alternative is a table with exactly value and reason")
    _text(f"claim {cid}, alternative", "reason", raw["reason"])
    value = raw["value"]
    if isinstance(band.equals, bool) != isinstance(value, bool) or not (
            isinstance(value, bool) or is_finite_number(value)):
        raise ValueError(f"claim {cid}: the alternative is a value of the claim's type, got {value!r}")
    if band.passes(value):
        raise ValueError(f"claim {cid}: the band ({band.describe()}) contains the alternative {value}: the "
                         "check could not tell a non-reproduction from a reproduction")
    return Alternative(value, raw["reason"])


def parse_claims(text: str) -> dict[str, Claim]:
    """Parse and validate the TOML text of a claims file into {id: Claim}; its ``[[not_reproduced]]``
    entries are validated too."""
    from interp_repro import STUDIES

    data = tomllib.loads(text)
    unknown = sorted(set(data) - set(_TABLES))
    if unknown:
        raise ValueError(f"unknown keys or tables {unknown}: a claims file holds {_TABLES[0]} and "
                         f"{_TABLES[1]} only, each an array of tables ([[claims]])")
    claims: dict[str, Claim] = {}
    for raw in _tables(data, "claims"):
        claim = _parse(raw, STUDIES)
        if claim.id in claims:
            raise ValueError(f"claim {claim.id} is defined twice")
        claims[claim.id] = claim
    _not_reproduced(data, set(claims))
    return claims


def _tables(data: dict, name: str) -> list[dict]:
    """The array of tables ``name`` of the parsed ``data`` (empty when absent), else ``ValueError``."""
    tables = data.get(name, [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise ValueError(f"{name} must be an array of tables ([[{name}]]), got {tables!r:.60}")
    return tables


def read_claims_file() -> str:
    """The text of the claims file (:data:`CLAIMS_FILE`); :class:`ConfigError` (one line) if it cannot
    be read as UTF-8."""
    try:
        return CLAIMS_FILE.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"cannot read the claims file {CLAIMS_FILE} ({err})") from None


@cache
def load_claims() -> dict[str, Claim]:
    """Every claim in the package's ``claims.toml``: the one reader of that file, which every command
    uses; :class:`ConfigError` (one line, naming the file) for one that is not a valid registry."""
    try:
        return parse_claims(read_claims_file())
    except ValueError as err:
        raise ConfigError(f"the claims file {CLAIMS_FILE}: {err}") from None


@dataclass(frozen=True)
class NotReproduced:
    """A paper's result that we do not claim to reproduce, and why (e.g. it needs a model we cannot
    run): listed beside the claims, never counted among them."""

    id: str
    study: str
    statement: str
    source: str
    paper: str
    why: str


def _not_reproduced(data: dict, claim_ids: set[str]) -> list[NotReproduced]:
    """The ``[[not_reproduced]]`` entries of the parsed ``data``, each checked like a claim: every field
    non-empty text, a known study, an id of its own (not one of ``claim_ids``)."""
    from interp_repro import STUDIES

    fields = {"id", "study", "statement", "source", "paper", "why"}
    seen = set(claim_ids)
    for raw in _tables(data, "not_reproduced"):
        where = f"not_reproduced {raw.get('id', '<no id>')}"
        if set(raw) != fields:
            raise ValueError(f"{where}: give exactly {sorted(fields)}")
        for name in sorted(fields):
            _text(where, name, raw[name])
        if raw["study"] not in STUDIES:
            raise ValueError(f"{where}: unknown study {raw['study']!r}")
        if raw["id"] in seen:
            raise ValueError(f"{where} is defined twice")
        seen.add(raw["id"])
    return [NotReproduced(**raw) for raw in _tables(data, "not_reproduced")]


def load_not_reproduced(text: str | None = None) -> list[NotReproduced]:
    """The ``[[not_reproduced]]`` entries of ``text`` (default: the package's ``claims.toml``)."""
    if text is None:
        load_claims()  # the package's file, validated once (ConfigError if it is not valid)
        text = read_claims_file()
    return _not_reproduced(tomllib.loads(text), set(parse_claims(text)))


def study_claims(study: str) -> list[Claim]:
    """The claims of one study, in file order."""
    return [c for c in load_claims().values() if c.study == study]
