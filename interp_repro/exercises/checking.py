"""What every ``check_<what>`` of the coding exercises shares: call the student's function, read its
answer, and fail with one line that says what is wrong without giving the answer away.

A check tries the student's function first on cases built to show one mistake each, whose hint names
that mistake, then on seeded random cases drawn from the whole domain (:func:`random_cases`), compared
with the library's reference; a wrong answer there names no mistake, only the case.
"""

from collections.abc import Callable, Iterator

import numpy as np


class CheckFailed(AssertionError):
    """A student's function gave a wrong answer; the message says what, in one line."""

    def _render_traceback_(self) -> list[str]:
        """What IPython (and so a notebook, and nbgrader's feedback) shows: the one line, no traceback into
        the check."""
        return [f"CheckFailed: {self}"]


def attempt(fn: Callable, name: str, *args):
    """``fn(*args)``, with an error it raises turned into a :class:`CheckFailed` that names it."""
    try:
        return fn(*args)
    except NotImplementedError:
        raise CheckFailed(f"{name} is not written yet (it raises NotImplementedError)") from None
    except Exception as err:  # the student's bug, whatever it is, becomes one line
        raise CheckFailed(f"{name} raised {type(err).__name__}: {err}") from None


def require(ok: bool, message: str) -> None:
    """Fail with ``message`` unless ``ok``."""
    if not ok:
        raise CheckFailed(message)


def number(value, name: str) -> float:
    """``value`` as a float, or a failure if it is not one finite number."""
    shape = np.shape(value)
    require(shape == (), f"{name} must return one number, got an array of shape {shape}")
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise CheckFailed(f"{name} must return a number, got {type(value).__name__}") from None
    require(np.isfinite(out), f"{name} returned {out}, not a finite number")
    return out


def array(value, name: str, shape: tuple[int, ...], what: str) -> np.ndarray:
    """``value`` as a float array of ``shape`` (``what`` says in words what that shape holds)."""
    try:
        out = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise CheckFailed(f"{name} must return an array of numbers, got {type(value).__name__}") from None
    require(out.shape == shape, f"{name} must return {what}, shape {shape}, got shape {out.shape}")
    return out


def close(a, b, tol: float = 1e-6) -> bool:
    """Whether ``a`` and ``b`` agree to ``tol`` (relative and absolute)."""
    return bool(np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True))


def passed(name: str, checks: int) -> None:
    """Say that ``name`` passed all ``checks`` checks (never with the values it was checked against)."""
    print(f"{name}: all {checks} checks pass")


def random_cases(seed: int, count: int = 6) -> Iterator[tuple[int, np.random.Generator]]:
    """``count`` numbered generators seeded ``seed``, ``seed + 1``, ...: the same random cases every run."""
    for k in range(count):
        yield k + 1, np.random.default_rng(seed + k)
