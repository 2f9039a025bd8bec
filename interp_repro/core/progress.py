"""Progress bars for long loops, quiet when asked (argument or ``$INTERP_REPRO_QUIET=1``)."""

import os
from collections.abc import Iterable

from tqdm import tqdm

QUIET_ENV = "INTERP_REPRO_QUIET"


def progress(iterable: Iterable, desc: str, total: int | None = None, quiet: bool | None = None):
    """Wrap ``iterable`` in a tqdm bar labelled ``desc``; no bar if ``quiet`` or the env says so."""
    if quiet is None:
        quiet = os.environ.get(QUIET_ENV, "") not in ("", "0")
    return tqdm(iterable, desc=desc, total=total, disable=quiet, leave=False, mininterval=1.0)
