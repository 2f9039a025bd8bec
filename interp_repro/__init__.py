"""interp-repro: the library behind the executed book that reproduces four interpretability studies.

Every computation the book shows lives here; the chapters configure, call, plot and explain.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("interp-repro")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"


def __getattr__(name: str):
    """``STUDIES``: the studies' names in book order, read from the one registry
    (:data:`interp_repro.studies.STUDIES`) when first asked for, so ``import interp_repro`` stays light."""
    if name == "STUDIES":
        from interp_repro.studies import STUDIES

        return STUDIES
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
