"""A claim's value over seeds, networks or clusters, with the samples it came from and an interval.

Many headline numbers are a mean, a median or a share over a few trained networks: a different draw of
seeds gives a different number. An :class:`Estimate` keeps the samples beside the number and a 95%
interval for it, resampled over the unit that is independent:

- samples that are independent draws (seeds, networks) are resampled one by one: a seeded percentile
  bootstrap for a mean or a median (Efron & Tibshirani 1993, ch. 13), the exact Clopper-Pearson
  interval for a share (Clopper & Pearson 1934);
- samples grouped in units (the clusters of a network, the blocks of a seed) are resampled a whole
  unit at a time, keeping its samples together (the cluster bootstrap; Davison & Hinkley 1997, §3.8);
- samples that are pairs of units from two sets (a distance between network i of one architecture and
  network j of another) are resampled with a two-sample bootstrap: the units of each set apart.

Below :data:`MIN_UNITS` independent units there is no interval: a percentile bootstrap of 2 to 4 units
is narrower than the spread a larger draw would show, and says nothing a reader can trust.

:meth:`Estimate.power` answers how often the interval would exclude a band were the **alternative**
(what a non-reproduction would look like) true: synthetic samples at the alternative, of the measured
size and spread, each given its own interval by the same code.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from interp_repro.core.validate import is_finite_number

LEVEL = 0.95
"""The confidence level of every interval."""
RESAMPLES = 9_999
"""Bootstrap resamples of a recorded interval."""
BOOTSTRAP_SEED = 0
"""The seed of every bootstrap, so that the same samples always give the same interval."""
MIN_UNITS = 5
"""The fewest independent units an interval is made from."""
POWER_DRAWS = 200
"""Synthetic draws behind a power."""
POWER_RESAMPLES = 999
"""Bootstrap resamples of each synthetic draw's interval (a power needs hundreds of intervals)."""
TARGET_POWER = 0.8
"""The power below which a check is too weak to count a reproduction."""
MAX_UNITS = 1024
"""The most units :meth:`Estimate.units_for_power` looks at (a check that needs more is reported so)."""
STATS = ("mean", "median", "share")
_Z = float(stats.norm.ppf(0.5 + LEVEL / 2))

Groups = tuple[tuple[int, ...], ...]
"""Per sample, the independent unit it belongs to: ``(g,)`` for a sample of unit g (a cluster of a
network), ``(i, j)`` for a pair of unit i of one set and unit j of another; empty when every sample is
a unit of its own."""


@dataclass(frozen=True)
class Estimate:
    """``value`` (the ``stat`` of ``samples``) and its interval at :data:`LEVEL`.

    ``unit`` names what one sample is ("seeds", "clusters", "network pairs"); ``of`` names the
    independent unit where samples are grouped (``groups``): "networks" for clusters. A share's samples
    are bools (one per sample: does it have the property?). ``interval`` is None below
    :data:`MIN_UNITS` units. Build one with :meth:`mean`, :meth:`median`, :meth:`share` or
    :meth:`pairs`."""

    value: float
    stat: str
    samples: tuple[float, ...] | tuple[bool, ...]
    unit: str
    interval: tuple[float, float] | None
    level: float = LEVEL
    groups: Groups = ()
    of: str = ""

    def __post_init__(self):
        """Refuse what no interval can be made of: an unknown statistic, no unit, no samples,
        samples that are not finite numbers (bools for a share), a level outside (0, 1), groups that
        do not give every sample one or two unit numbers (and a name, ``of``), or an interval that is
        not two finite numbers around the value."""
        if self.stat not in STATS:
            raise ValueError(f"an estimate's statistic is one of {STATS}, got {self.stat!r:.40}")
        if not isinstance(self.unit, str) or not self.unit.strip():
            raise ValueError(f"an estimate names its unit (what one sample is), got {self.unit!r:.40}")
        if not isinstance(self.samples, tuple) or not self.samples:
            raise ValueError(f"an estimate over {self.unit} needs at least one sample")
        if self.stat == "share" and not all(isinstance(s, bool) for s in self.samples):
            raise ValueError(f"a share's samples are bools, got {list(self.samples)!r:.80}")
        if self.stat != "share" and not all(is_finite_number(s) for s in self.samples):
            raise ValueError(f"an estimate's samples are finite numbers, got {list(self.samples)!r:.80}")
        if not is_finite_number(self.level) or not 0 < self.level < 1:
            raise ValueError(f"an estimate's level lies in (0, 1), got {self.level!r:.40}")
        _check_groups(self.groups, len(self.samples), self.of, self.unit)
        if self.interval is None:
            if not is_finite_number(self.value):
                raise ValueError(f"an estimate's value is a finite number, got {self.value!r:.40}")
            return
        low, high = self.interval if isinstance(self.interval, tuple) and len(self.interval) == 2 else (0, -1)
        if not (all(map(is_finite_number, (self.value, low, high))) and low <= self.value <= high):
            raise ValueError(f"an estimate's interval is two finite numbers around its value {self.value!r}, "
                             f"got {self.interval!r:.60}")

    @classmethod
    def mean(cls, samples: Sequence, unit: str, of: str = "") -> "Estimate":
        """The mean of ``samples`` with its seeded percentile-bootstrap interval. With ``of`` (the
        independent unit), ``samples`` is a list per unit, resampled a whole unit at a time."""
        return _build("mean", samples, unit, of)

    @classmethod
    def median(cls, samples: Sequence, unit: str, of: str = "") -> "Estimate":
        """The median of ``samples`` with its seeded percentile-bootstrap interval (``of``: as
        :meth:`mean`)."""
        return _build("median", samples, unit, of)

    @classmethod
    def share(cls, flags: Sequence, unit: str, of: str = "") -> "Estimate":
        """The share of true ``flags`` (k of n): the exact Clopper-Pearson interval for independent
        flags, the cluster bootstrap's with ``of`` (``flags`` a list per unit). Each flag is a bool (a
        Python or NumPy one, or a number equal to 0 or 1): NaN or any other number is refused."""
        return _build("share", flags, unit, of)

    @classmethod
    def pairs(cls, stat: str, matrix, unit: str, of: str) -> "Estimate":
        """The ``stat`` (mean or median) over every pair of a (units of set A) x (units of set B)
        ``matrix``, with a two-sample bootstrap interval: each resample draws A's units and B's units
        apart and keeps every pair between them. ``of`` names the units of both sets ("networks")."""
        values = np.asarray(matrix, dtype=float)
        if values.ndim != 2 or 0 in values.shape:
            raise ValueError(f"pairs of {unit} take a non-empty 2-d matrix, got shape {values.shape}")
        groups = tuple((int(i), int(j)) for i in range(values.shape[0]) for j in range(values.shape[1]))
        return _finish(stat, values.ravel(), groups, unit, of, RESAMPLES)

    @property
    def n(self) -> int:
        """The number of samples."""
        return len(self.samples)

    @property
    def n_units(self) -> int:
        """The number of independent units: the samples, the groups, or the smaller of a pair's two
        sets."""
        if not self.groups:
            return self.n
        return min(len({g[axis] for g in self.groups}) for axis in range(len(self.groups[0])))

    @property
    def resampled(self) -> str:
        """What the interval resamples: e.g. ``8 networks``, ``24 clusters`` or ``8 and 8 networks``."""
        if not self.groups:
            return f"{self.n} {self.unit}"
        sizes = [len({g[axis] for g in self.groups}) for axis in range(len(self.groups[0]))]
        return f"{' and '.join(map(str, sizes))} {self.of}"

    def describe(self) -> str:
        """E.g. ``0.8333 (20 of 24 clusters in 8 networks; 95% CI 0.63-0.95)``, or ``... (median of 3
        seeds; too few units for an interval)``."""
        what = (f"{sum(self.samples)} of {self.n} {self.unit}" if self.stat == "share"
                else f"{self.stat} of {self.n} {self.unit}")
        if self.groups:
            what += f" in {self.resampled}"
        if self.interval is None:
            return f"{self.value:.4g} ({what}; too few units for an interval)"
        low, high = self.interval
        return f"{self.value:.4g} ({what}; {self.level:.0%} CI {low:.4g}-{high:.4g})"

    def samples_to_decide(self, edge: float) -> int | None:
        """About how many units would give an interval that stops short of ``edge`` (a band's edge
        beyond the estimate), at the observed spread: None where there is no interval, the spread is
        zero or the estimate sits on the edge.

        A half-width shrinks like 1/sqrt(units); an ungrouped share's uses the normal approximation
        z^2 p(1-p) / gap^2."""
        gap = abs(edge - self.value)
        if gap == 0 or self.interval is None:
            return None
        if self.stat == "share" and not self.groups:
            p = self.value
            spread = p * (1 - p)
            return None if spread == 0 else max(self.n + 1, math.ceil(_Z**2 * spread / gap**2))
        half = self.interval[1] - self.value if edge > self.value else self.value - self.interval[0]
        return None if half == 0 else max(self.n_units + 1, math.ceil(self.n_units * (half / gap) ** 2))

    def drawn_at(self, alternative: float, rng: np.random.Generator, n_units: int | None = None,
                 resamples: int = POWER_RESAMPLES) -> "Estimate":
        """A synthetic estimate of this one's kind, as it would come out were ``alternative`` the
        truth: ``n_units`` units (default: as many as measured) drawn with replacement from the
        measured ones, shifted so that their statistic's centre is ``alternative`` (a share's flags
        drawn at the unit's shifted rate; independent flags at ``alternative`` itself)."""
        n_units = self.n_units if n_units is None else n_units
        values = np.asarray(self.samples, dtype=float)
        shift = alternative - self.value
        if not self.groups:
            if self.stat == "share":
                flags = rng.random(n_units) < alternative
                return _finish("share", flags, (), self.unit, "", resamples)
            return _finish(self.stat, rng.choice(values, n_units) + shift, (), self.unit, "", resamples)
        if len(self.groups[0]) == 2:
            matrix = np.zeros((1 + max(g[0] for g in self.groups), 1 + max(g[1] for g in self.groups)))
            matrix[tuple(np.array(self.groups).T)] = values
            rows = rng.integers(0, matrix.shape[0], n_units)
            cols = rng.integers(0, matrix.shape[1], n_units)
            drawn = matrix[np.ix_(rows, cols)] + shift
            groups = tuple((i, j) for i in range(n_units) for j in range(n_units))
            return _finish(self.stat, drawn.ravel(), groups, self.unit, self.of, resamples)
        ids = np.array([g[0] for g in self.groups])
        units = [values[ids == g] for g in np.unique(ids)]
        picked = rng.integers(0, len(units), n_units)
        if self.stat == "share":
            drawn = [rng.random(units[k].size) < np.clip(units[k].mean() + shift, 0, 1) for k in picked]
        else:
            drawn = [units[k] + shift for k in picked]
        groups = tuple((i,) for i, unit in enumerate(drawn) for _ in range(unit.size))
        return _finish(self.stat, np.concatenate(drawn), groups, self.unit, self.of, resamples)

    def power(self, alternative: float, differs: Callable[["Estimate"], bool], n_units: int | None = None,
              draws: int = POWER_DRAWS, seed: int = 0) -> float:
        """The share of ``draws`` synthetic estimates at ``alternative`` (:meth:`drawn_at`, seeded) for
        which ``differs`` (a claim's status rule) says they differ: how likely the check is to say
        "differs" were the alternative true, at ``n_units`` units (default: as many as measured) and
        the measured spread. Below :data:`MIN_UNITS` units the draws have no interval, and the rule
        decides on their value alone, as it does on the measured one."""
        n_units = self.n_units if n_units is None else n_units
        rng = np.random.default_rng(seed)
        return sum(differs(self.drawn_at(alternative, rng, n_units)) for _ in range(draws)) / draws

    def units_for_power(self, alternative: float, differs: Callable[["Estimate"], bool],
                        target: float = TARGET_POWER) -> int | None:
        """About the fewest units at which :meth:`power` reaches ``target`` (doubling from the measured
        count, then halving the gap; 100 draws each), or None if :data:`MAX_UNITS` do not."""
        low = high = self.n_units
        while self.power(alternative, differs, high, draws=100) < target:
            if high >= MAX_UNITS:
                return None
            low, high = high, min(2 * high, MAX_UNITS)
        while high - low > max(1, high // 20):
            mid = (low + high) // 2
            reached = self.power(alternative, differs, mid, draws=100) >= target
            low, high = (low, mid) if reached else (mid, high)
        return high

    def as_dict(self) -> dict:
        """The estimate as plain data, as a record file stores it (:meth:`from_dict` reads it back)."""
        data = {"stat": self.stat, "samples": list(self.samples), "unit": self.unit,
                "interval": None if self.interval is None else list(self.interval), "level": self.level}
        return data | ({"groups": [list(g) for g in self.groups], "of": self.of} if self.groups else {})

    @classmethod
    def from_dict(cls, value: float, data: dict) -> "Estimate":
        """The estimate of ``value`` stored as ``data`` (:meth:`as_dict`); ValueError (one line) unless
        it has that shape and ``value`` is its statistic of its samples, inside its interval."""
        keys = {"stat", "samples", "unit", "interval", "level"}
        if not isinstance(data, dict) or not keys <= set(data) <= keys | {"groups", "of"}:
            raise ValueError(f"an estimate is an object with {sorted(keys)} (and groups and of, where its "
                             f"samples are grouped), got {data!r:.80}")
        samples, interval, groups = data["samples"], data["interval"], data.get("groups", [])
        if (not isinstance(samples, list) or not isinstance(groups, list)
                or not (interval is None or isinstance(interval, list) and len(interval) == 2)):
            raise ValueError(f"an estimate's samples are a list and its interval a pair or null, got "
                             f"{data!r:.80}")
        if not all(isinstance(g, list) for g in groups):
            raise ValueError(f"an estimate's groups are lists of unit numbers, got {groups!r:.60}")
        estimate = cls(value, data["stat"], tuple(samples), data["unit"],
                       None if interval is None else tuple(interval), data["level"],
                       tuple(tuple(g) for g in groups), data.get("of", ""))
        expect = _statistic(estimate.stat, np.asarray(samples, dtype=float))
        if not math.isclose(value, expect, rel_tol=1e-9, abs_tol=1e-12):
            raise ValueError(f"value {value} is not the {estimate.stat} of its samples ({expect:.6g})")
        return estimate


def _statistic(stat: str, values: np.ndarray) -> float:
    return float(np.median(values) if stat == "median" else np.mean(values))


def _check_groups(groups: object, n: int, of: object, unit: str) -> None:
    """``ValueError`` unless ``groups`` is empty, or gives each of ``n`` samples the same number (1 or
    2) of non-negative unit numbers, with ``of`` naming the units."""
    if groups == ():
        return
    if (not isinstance(groups, tuple) or len(groups) != n
            or not all(isinstance(g, tuple) and len(g) == len(groups[0]) in (1, 2) for g in groups)
            or not all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for g in groups for i in g)):
        raise ValueError(f"an estimate over {unit} gives each sample one unit number (or two, for a "
                         f"pair): got {groups!r:.60}")
    if not isinstance(of, str) or not of.strip():
        raise ValueError(f"grouped {unit} name their independent unit (of), got {of!r:.40}")


def _build(stat: str, samples: Sequence, unit: str, of: str) -> Estimate:
    """An estimate of ``samples``: flat, or (with ``of``) one list per unit."""
    if of:
        if isinstance(samples, np.ndarray) or not all(isinstance(s, Sequence | np.ndarray) for s in samples):
            raise ValueError(f"{unit} grouped by {of} are given as one list per unit")
        groups = tuple((g,) for g, members in enumerate(samples) for _ in range(len(members)))
        samples = [s for members in samples for s in members]
    else:
        groups = ()
    if stat == "share":
        values = np.array([_flag(f, unit) for f in samples], dtype=bool)
    else:
        raw = np.asarray(samples)
        if raw.dtype.kind not in "biuf":
            raise ValueError(f"an estimate over {unit} needs real samples, got dtype {raw.dtype}")
        values = raw.astype(float).ravel()
    return _finish(stat, values, groups, unit, of, RESAMPLES)


def _finish(stat: str, values: np.ndarray, groups: Groups, unit: str, of: str, resamples: int) -> Estimate:
    """The estimate of flat ``values`` with their ``groups``: its value, and its interval when it has
    at least :data:`MIN_UNITS` units."""
    _check_count(values.size, unit)
    if stat != "share" and not np.isfinite(values).all():
        raise ValueError(f"an estimate over {unit} needs finite samples, got {values.tolist()}")
    value = _statistic(stat, values)
    samples = tuple(bool(v) for v in values) if stat == "share" else tuple(float(v) for v in values)
    estimate = Estimate(value, stat, samples, unit, None, groups=groups, of=of)
    if estimate.n_units < MIN_UNITS:
        return estimate
    if np.ptp(values.astype(float)) == 0 and not (stat == "share" and not groups):
        interval = (value, value)
    elif stat == "share" and not groups:
        ci = stats.binomtest(int(values.sum()), values.size).proportion_ci(LEVEL, method="exact")
        interval = (float(ci.low), float(ci.high))
    else:
        resampled = _bootstrap(stat, values.astype(float), groups, resamples)
        low, high = np.percentile(resampled, [50 * (1 - LEVEL), 50 * (1 + LEVEL)])
        interval = (min(float(low), value), max(float(high), value))
    return Estimate(value, stat, samples, unit, interval, groups=groups, of=of)


def _bootstrap(stat: str, values: np.ndarray, groups: Groups, resamples: int) -> np.ndarray:
    """``resamples`` values of the statistic, each over the units drawn with replacement (seeded): a
    unit drawn c times weighs its samples by c; a pair by the product of its two units' draws."""
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    ids = np.array(groups) if groups else np.arange(values.size)[:, None]
    weights = np.ones((resamples, values.size))
    for axis in range(ids.shape[1]):
        _, unit_of = np.unique(ids[:, axis], return_inverse=True)
        k = int(unit_of.max()) + 1
        draws = rng.integers(0, k, (resamples, k)) + k * np.arange(resamples)[:, None]
        counts = np.bincount(draws.ravel(), minlength=resamples * k).reshape(resamples, k)
        weights *= counts[:, unit_of]
    if stat != "median":
        return (weights @ values) / weights.sum(1)
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(weights[:, order], axis=1)
    half = cum[:, -1:] / 2
    lower = (cum < half).sum(1)           # the first sorted sample whose cumulative weight reaches half
    upper = (cum <= half).sum(1)          # the first that passes it (the same one for an odd total)
    ranked = values[order]
    return (ranked[lower] + ranked[np.minimum(upper, values.size - 1)]) / 2


def _flag(flag: object, unit: str) -> bool:
    """``flag`` as a bool: a Python or NumPy bool, or a number equal to 0 or 1; else ``ValueError``."""
    if isinstance(flag, bool | np.bool_ | int | np.integer | float | np.floating) and flag in (0, 1):
        return bool(flag)
    raise ValueError(f"a share over {unit} counts yes/no flags (bools), got {flag!r:.40}")


def _check_count(n: int, unit: str) -> None:
    if n == 0:
        raise ValueError(f"an estimate over {unit} needs at least one sample")
