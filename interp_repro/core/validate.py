"""Input checks that fail early with a message naming the bad value and what is allowed."""

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from interp_repro.core.errors import ConfigError


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


def check_writable_dir(what: str, path: Path) -> Path:
    """Create the folder ``path`` if needed and check that this process can write there, else raise
    :class:`ConfigError` naming ``what`` and ``path``. Returns ``path``."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=path, prefix=".tmp-")
    except FileExistsError:
        raise ConfigError(f"{what} {path} is a file, not a folder") from None
    except OSError as err:
        raise ConfigError(f"{what} {path} is not a writable folder ({err.strerror or err})") from None
    os.close(fd)
    os.unlink(probe)
    return path
