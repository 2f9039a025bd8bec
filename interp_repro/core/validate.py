"""Input checks that fail early with a message naming the bad value and what is allowed."""

import dataclasses
import math
import os
import tempfile
import types
import typing
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from interp_repro.core.errors import ConfigError


def _is_real(value) -> bool:
    """Whether ``value`` is one real number: a Python or NumPy int or float, not a bool (nor a complex
    number, a string or a container)."""
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)


def is_finite_number(value: object) -> bool:
    """True for a finite Python int or float: not a bool, NaN, infinity, nor an int too large for a
    float (what a claim value, an estimate's sample or a band's edge must be)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def check_positive_int(name: str, value: int) -> int:
    """Return ``value`` if it is an int >= 1, else raise ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def check_nonnegative_int(name: str, value: int) -> int:
    """Return ``value`` as an int if it is an integer >= 0 (a seed, a count that may be zero), else raise
    ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    return int(value)


def check_tuple(name: str, value: tuple, length: int | None = None) -> tuple:
    """Return ``value`` if it is a non-empty tuple (of exactly ``length`` items, when given), else raise
    ``ValueError``."""
    if not isinstance(value, tuple) or not value or (length is not None and len(value) != length):
        what = f"a tuple of {length} items" if length is not None else "a non-empty tuple"
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return value


def check_nonnegative(name: str, value: float) -> float:
    """Return ``value`` as a float if it is a finite number >= 0 (not a bool), else raise ``ValueError``."""
    if not _is_real(value) or not 0 <= value < np.inf:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return float(value)


def check_positive(name: str, value: float) -> float:
    """Return ``value`` as a float if it is a finite number > 0 (not a bool), else raise ``ValueError``."""
    if not _is_real(value) or not 0 < value < np.inf:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def check_probability(name: str, value: float) -> float:
    """Return ``value`` as a float if it is a number in [0, 1] (not a bool), else raise ``ValueError``."""
    if not _is_real(value) or not 0 <= value <= 1:
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    return float(value)


def check_choices(name: str, values: tuple, allowed: Iterable) -> tuple:
    """Return ``values`` if it is a non-empty tuple of distinct members of ``allowed``, else raise
    ``ValueError`` naming the unknown ones and the choices."""
    allowed = tuple(allowed)
    check_tuple(name, values)
    unknown = [v for v in values if v not in allowed]
    if unknown:
        raise ValueError(f"unknown {name} {unknown}: choose from {allowed}")
    if len(set(values)) != len(values):
        raise ValueError(f"{name} has duplicates: {values}")
    return values


def check_real_dtype(name: str, x) -> np.ndarray:
    """``x`` (any shape, possibly empty, NaN allowed) as a float64 array after checking that it holds
    real numbers (an integer or float dtype: not complex, bool, object or strings), else ``ValueError``."""
    arr = np.asarray(x)
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be a real (integer or float) array, got dtype {arr.dtype}")
    return arr.astype(np.float64)


def check_finite(name: str, x) -> np.ndarray:
    """``x`` (any shape, possibly empty) as a float64 array after checking that it is real and finite,
    else ``ValueError`` naming what is wrong (the dtype, or how many entries are NaN or inf): what a
    measure that reduces to a verdict (a max, a count, a comparison) does with its input, so that a NaN
    never becomes a number, a pass or a status."""
    arr = check_real_dtype(name, x)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite, got {np.count_nonzero(~np.isfinite(arr))} NaN/inf entries")
    return arr


def check_real_array(name: str, x, ndim: int | None = None) -> np.ndarray:
    """``x`` as a float64 array after checking that it is ``ndim``-D (any shape when None), non-empty,
    real and finite (see :func:`check_finite`), else ``ValueError`` naming what is wrong: what a measure
    whose verdict would mean nothing on no data (a share, a max, "all of them") does with its input."""
    arr = check_finite(name, x)
    if (ndim is not None and arr.ndim != ndim) or arr.size == 0:
        what = f"{ndim}-D array" if ndim is not None else "array"
        raise ValueError(f"{name} must be a non-empty {what}, got shape {arr.shape}")
    return arr


def mean_of(name: str, values: Iterable) -> float:
    """The mean of ``values`` (flags, shares or scores), refusing none: a share of nothing is no number."""
    values = list(values)
    if not values:
        raise ValueError(f"{name} needs at least one value, got none")
    return float(np.mean(values))


def check_finite_loss(what: str, loss) -> None:
    """Raise ``ValueError`` if a training loss holds NaN or inf: a run that diverged stops there, and
    :func:`~interp_repro.core.cache.cached` stores nothing of it. Called once per run, not per step."""
    check_real_array(f"the training loss of {what} (a diverged run is not cached)", loss)


def check_fraction(name: str, values: float | Iterable[float]) -> None:
    """Raise ``ValueError`` unless there is at least one value and every value lies in (0, 1] (a
    probability that is not zero)."""
    arr = np.atleast_1d(np.asarray(values))
    if arr.dtype.kind not in "iuf" or arr.size == 0:
        raise ValueError(f"{name} must be a number or numbers in (0, 1], got {values!r}")
    for v in arr.ravel():
        if not 0.0 < float(v) <= 1.0:
            raise ValueError(f"{name} must lie in (0, 1], got {v.item()!r}")


def _kind(tp) -> str:
    """What a field annotated ``tp`` holds, in words."""
    args = typing.get_args(tp)
    if typing.get_origin(tp) is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return f"a tuple of ({_kind(args[0])})"
        return f"a tuple ({', '.join(map(_kind, args))})"
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return " or ".join("None" if a is type(None) else _kind(a) for a in args)
    return {int: "an integer", float: "a finite real number", str: "a string"}.get(tp, f"a {tp.__name__}")


def _fits(value, tp) -> bool:
    """Whether ``value`` is of the kind of a field annotated ``tp`` (:func:`check_field_types`)."""
    args = typing.get_args(tp)
    if typing.get_origin(tp) is tuple:
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_fits(v, args[0]) for v in value)
        return len(value) == len(args) and all(_fits(v, a) for v, a in zip(value, args, strict=True))
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return any(_fits(value, a) for a in args)
    if tp is int:
        return isinstance(value, int | np.integer) and not isinstance(value, bool)
    if tp is float:
        try:
            return _is_real(value) and math.isfinite(value)
        except OverflowError:  # an int no float can hold
            return False
    if tp is type(None):
        return value is None
    if isinstance(tp, type):
        return isinstance(value, tp)
    raise TypeError(f"check_field_types does not know the annotation {tp!r}")


def check_field_types(config) -> None:
    """Raise ``ValueError`` naming the first field of the dataclass instance ``config`` whose value is
    not of its annotated kind: an ``int`` field takes an integer (not a bool, not a float), a ``float``
    field a finite real number (an integer too, kept as given), a ``str`` field a string, a tuple field
    a tuple of such items, ``X | None`` also None. What values of the right kind are allowed is each
    config's own check; this one runs first, so that no later check meets a value it cannot compare."""
    hints = typing.get_type_hints(type(config))
    for field in dataclasses.fields(config):
        value, tp = getattr(config, field.name), hints[field.name]
        if not _fits(value, tp):
            raise ValueError(f"{field.name} must be {_kind(tp)}, got {' '.join(repr(value).split())[:200]}")


FLAG_VALUES = {"0": False, "false": False, "no": False, "off": False,
               "1": True, "true": True, "yes": True, "on": True}
"""The values a yes/no environment variable may take (in any case), and what each means."""


def env_flag(name: str) -> bool:
    """The yes/no environment variable ``name`` (unset: no), else :class:`ConfigError` naming the values
    allowed (set but empty, it is refused like any other unknown value)."""
    value = os.environ.get(name)
    if value is None:
        return False
    if value.strip().lower() not in FLAG_VALUES:
        raise ConfigError(f"${name} must be one of 1, true, yes, on or 0, false, no, off, got {value!r}")
    return FLAG_VALUES[value.strip().lower()]


def env_path(name: str) -> Path | None:
    """The path in the environment variable ``name``; None when it is unset. Set to an empty value it is
    a :class:`ConfigError`, not a silent default."""
    value = os.environ.get(name)
    if value is None:
        return None
    if not value.strip():
        raise ConfigError(f"${name} is set but empty: unset it for the default, or give a path")
    return Path(value)


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
