"""What every ``check_<what>`` of the coding exercises shares: call the student's function, read its
answer, and fail with one line that says what is wrong without giving the answer away.

A check tries the student's function first on cases built to show one mistake each, whose hint names
that mistake, then on seeded random cases drawn from the whole domain (:func:`random_cases`), compared
with the library's reference; a wrong answer there names no mistake, only the case.

While a check runs the student's function, the library's references for its exercise (those named by
:func:`withholds`) are unavailable: calling one fails the check with one line that says so, so that
``return measures.feature_dimensionality(W)`` earns nothing.
"""

import functools
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import ModuleType

import numpy as np


class CheckFailed(AssertionError):
    """A student's function gave a wrong answer; the message says what, in one line."""

    def _render_traceback_(self) -> list[str]:
        """What IPython (and so a notebook, and nbgrader's feedback) shows: the one line, no traceback into
        the check."""
        return [f"CheckFailed: {self}"]


class ReferenceUnavailable(Exception):
    """A graded answer called one of the library's references for its own exercise."""


_WITHHELD: ContextVar[tuple[Callable, ...]] = ContextVar("withheld", default=())
"""The references of the check now running (:func:`withholds`)."""


def withholds(*references: Callable) -> Callable[[Callable], Callable]:
    """Decorate a check: while it runs the student's function (:func:`attempt`), each of the library's
    ``references`` for the exercise is unavailable. The decorated check lists them as ``.references``."""
    def decorate(check: Callable) -> Callable:
        @functools.wraps(check)
        def guarded(student: Callable) -> None:
            token = _WITHHELD.set(references)
            try:
                check(student)
            finally:
                _WITHHELD.reset(token)

        guarded.references = references
        return guarded
    return decorate


def _stand_in(reference: Callable) -> Callable:
    """A function that fails, naming ``reference``, however it is called."""
    message = (f"the reference {reference.__module__}.{reference.__qualname__} is not available inside a "
               "graded answer: write the computation yourself")

    def unavailable(*args, **kwargs):
        raise ReferenceUnavailable(message)
    return unavailable


@contextmanager
def _withheld(student: Callable) -> Iterator[None]:
    """Replace the references of the running check, for as long as the block lasts, wherever a student's
    function reaches them by a name: in every module of the library (``measures.feature_dimensionality``,
    ``sol.weighted_loss``) and in the student's own globals (``from ... import feature_dimensionality``
    in the notebook, under any name). A reference kept elsewhere (in a closure, a list) stays reachable:
    this stops the shortcut of calling the reference, not a determined copy of the library."""
    references = _WITHHELD.get()
    namespaces = {id(vars(module)): vars(module) for name, module in list(sys.modules.items())
                  if references and isinstance(module, ModuleType) and name.split(".")[0] == "interp_repro"}
    if references and hasattr(student, "__globals__"):
        namespaces[id(student.__globals__)] = student.__globals__
    withheld = {id(reference) for reference in references}
    replaced = [(namespace, key, value) for namespace in namespaces.values()
                for key, value in list(namespace.items()) if id(value) in withheld]
    for namespace, key, value in replaced:
        namespace[key] = _stand_in(value)
    try:
        yield
    finally:
        for namespace, key, value in replaced:
            namespace[key] = value


def attempt(fn: Callable, name: str, *args):
    """``fn(*args)``, the references of the running check withheld, with an error it raises turned into a
    :class:`CheckFailed` that names it."""
    try:
        with _withheld(fn):
            return fn(*args)
    except ReferenceUnavailable as err:
        raise CheckFailed(f"{name}: {err}") from None
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
