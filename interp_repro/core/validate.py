"""Input checks that fail early with a message naming the bad value and what is allowed."""

from collections.abc import Iterable

import numpy as np


def check_positive_int(name: str, value: int) -> int:
    """Return ``value`` if it is an int >= 1, else raise ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def check_fraction(name: str, values: float | Iterable[float]) -> None:
    """Raise ``ValueError`` unless every value lies in (0, 1] (a probability that is not zero)."""
    arr = np.atleast_1d(np.asarray(values))
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be a number or numbers in (0, 1], got {values!r}")
    for v in arr.ravel():
        if not 0.0 < float(v) <= 1.0:
            raise ValueError(f"{name} must lie in (0, 1], got {v.item()!r}")
