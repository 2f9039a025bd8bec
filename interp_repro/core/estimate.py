"""A claim's value over seeds, networks or clusters, with the samples it came from and an interval.

Many headline numbers are a mean, a median or a share over a few trained networks: a different draw of
seeds gives a different number. An :class:`Estimate` keeps the samples beside the number and a 95%
interval for it: a seeded percentile bootstrap over the samples for a mean or a median (Efron &
Tibshirani 1993, ch. 13), and the exact Clopper-Pearson interval for a share (Clopper & Pearson 1934).
The reproduction registry decides a claim's status from that interval
(``interp_repro.reproduction.claims``).

With few samples a percentile bootstrap is narrower than the spread a larger draw would show (with two
seeds its interval is the range of the two): the interval says what these seeds show, no more. Every
interval treats the samples as independent draws, which seeds are; clusters of one network, or pairs
of networks that share one, are not, and their intervals are narrower than a bootstrap over whole
networks would give (the unit names what a sample is).
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from interp_repro.core.validate import is_finite_number

LEVEL = 0.95
"""The confidence level of every interval."""
RESAMPLES = 9_999
"""Bootstrap resamples."""
BOOTSTRAP_SEED = 0
"""The seed of every bootstrap, so that the same samples always give the same interval."""
STATS = ("mean", "median", "share")
_Z = float(stats.norm.ppf(0.5 + LEVEL / 2))


@dataclass(frozen=True)
class Estimate:
    """``value`` (the ``stat`` of ``samples``) and its interval at :data:`LEVEL`.

    ``unit`` names what one sample is ("seeds", "clusters", "(seed, block) pairs"). A share's samples
    are bools (one per unit: does it have the property?). Build one with :meth:`mean`, :meth:`median`
    or :meth:`share`."""

    value: float
    stat: str
    samples: tuple[float, ...] | tuple[bool, ...]
    unit: str
    interval: tuple[float, float]
    level: float = LEVEL

    def __post_init__(self):
        """Refuse what no interval can be made of: an unknown statistic, no unit, no samples,
        samples that are not finite numbers (bools for a share), a level outside (0, 1), or an
        interval that is not two finite numbers around the value."""
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
        low, high = self.interval if isinstance(self.interval, tuple) and len(self.interval) == 2 else (0, -1)
        if not (all(map(is_finite_number, (self.value, low, high))) and low <= self.value <= high):
            raise ValueError(f"an estimate's interval is two finite numbers around its value {self.value!r}, "
                             f"got {self.interval!r:.60}")

    @classmethod
    def mean(cls, samples: Sequence[float], unit: str) -> "Estimate":
        """The mean of ``samples`` with its seeded percentile-bootstrap interval."""
        return cls._bootstrapped("mean", samples, unit)

    @classmethod
    def median(cls, samples: Sequence[float], unit: str) -> "Estimate":
        """The median of ``samples`` with its seeded percentile-bootstrap interval."""
        return cls._bootstrapped("median", samples, unit)

    @classmethod
    def share(cls, flags: Sequence[bool], unit: str) -> "Estimate":
        """The share of true ``flags`` (k of n) with its exact Clopper-Pearson interval. Each flag is a
        bool (a Python or NumPy one, or a number equal to 0 or 1): NaN or any other number is refused."""
        flags = tuple(_flag(f, unit) for f in flags)
        _check_count(len(flags), unit)
        k, n = sum(flags), len(flags)
        ci = stats.binomtest(k, n).proportion_ci(LEVEL, method="exact")
        return cls(k / n, "share", flags, unit, (float(ci.low), float(ci.high)))

    @classmethod
    def _bootstrapped(cls, stat: str, samples: Sequence[float], unit: str) -> "Estimate":
        raw = np.asarray(samples)
        if raw.dtype.kind not in "biuf":
            raise ValueError(f"an estimate over {unit} needs real samples, got dtype {raw.dtype}")
        values = raw.astype(float).ravel()
        _check_count(values.size, unit)
        if not np.isfinite(values).all():
            raise ValueError(f"an estimate over {unit} needs finite samples, got {values.tolist()}")
        func = np.mean if stat == "mean" else np.median
        value = float(func(values))
        if values.size == 1 or np.ptp(values) == 0:
            low = high = value
        else:
            ci = stats.bootstrap((values,), func, confidence_level=LEVEL, n_resamples=RESAMPLES,
                                 method="percentile", rng=np.random.default_rng(BOOTSTRAP_SEED))
            low, high = ci.confidence_interval
            low, high = min(float(low), value), max(float(high), value)
        return cls(value, stat, tuple(float(v) for v in values), unit, (low, high))

    @property
    def n(self) -> int:
        """The number of samples."""
        return len(self.samples)

    def describe(self) -> str:
        """E.g. ``0.833 (20 of 24 clusters; 95% CI 0.63-0.95)`` or ``0.99 (median of 8 seeds; ...)``."""
        low, high = self.interval
        what = (f"{sum(self.samples)} of {self.n} {self.unit}" if self.stat == "share"
                else f"{self.stat} of {self.n} {self.unit}")
        return f"{self.value:.4g} ({what}; {self.level:.0%} CI {low:.4g}-{high:.4g})"

    def samples_to_decide(self, edge: float) -> int | None:
        """About how many samples would give an interval that stops short of ``edge`` (a band's edge
        beyond the estimate), at the observed spread: None where the spread is zero or the estimate
        sits on the edge.

        A mean's or median's half-width shrinks like 1/sqrt(n); a share's uses the normal
        approximation z^2 p(1-p) / gap^2."""
        gap = abs(edge - self.value)
        if gap == 0:
            return None
        if self.stat == "share":
            p = self.value
            spread = p * (1 - p)
            return None if spread == 0 else max(self.n + 1, math.ceil(_Z**2 * spread / gap**2))
        half = self.interval[1] - self.value if edge > self.value else self.value - self.interval[0]
        return None if half == 0 else max(self.n + 1, math.ceil(self.n * (half / gap) ** 2))

    def as_dict(self) -> dict:
        """The estimate as plain data, as a record file stores it (:meth:`from_dict` reads it back)."""
        return {"stat": self.stat, "samples": list(self.samples), "unit": self.unit,
                "interval": list(self.interval), "level": self.level}

    @classmethod
    def from_dict(cls, value: float, data: dict) -> "Estimate":
        """The estimate of ``value`` stored as ``data`` (:meth:`as_dict`); ValueError (one line) unless
        it has that shape and ``value`` is its statistic of its samples, inside its interval."""
        keys = {"stat", "samples", "unit", "interval", "level"}
        if not isinstance(data, dict) or set(data) != keys:
            raise ValueError(f"an estimate is an object with exactly {sorted(keys)}, got {data!r:.80}")
        samples, interval = data["samples"], data["interval"]
        if not isinstance(samples, list) or not isinstance(interval, list) or len(interval) != 2:
            raise ValueError(f"an estimate's samples are a list and its interval a pair, got {data!r:.80}")
        estimate = cls(value, data["stat"], tuple(samples), data["unit"], tuple(interval), data["level"])
        if estimate.stat == "share":
            expect = sum(samples) / len(samples)
        else:
            expect = float((np.mean if estimate.stat == "mean" else np.median)(samples))
        if not math.isclose(value, expect, rel_tol=1e-9, abs_tol=1e-12):
            raise ValueError(f"value {value} is not the {estimate.stat} of its samples ({expect:.6g})")
        return estimate


def _flag(flag: object, unit: str) -> bool:
    """``flag`` as a bool: a Python or NumPy bool, or a number equal to 0 or 1; else ``ValueError``."""
    if isinstance(flag, bool | np.bool_ | int | np.integer | float | np.floating) and flag in (0, 1):
        return bool(flag)
    raise ValueError(f"a share over {unit} counts yes/no flags (bools), got {flag!r:.40}")


def _check_count(n: int, unit: str) -> None:
    if n == 0:
        raise ValueError(f"an estimate over {unit} needs at least one sample")
