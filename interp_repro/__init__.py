"""interp-repro: the library behind the executed book that reproduces four interpretability studies.

Every computation the book shows lives here; the chapters configure, call, plot and explain.
"""

from importlib.metadata import PackageNotFoundError, version

from interp_repro.studies import STUDIES  # the names, from the one registry; loads no study

try:
    __version__ = version("interp-repro")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"

__all__ = ["STUDIES", "__version__"]
