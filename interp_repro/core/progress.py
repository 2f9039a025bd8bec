"""Progress bars for long loops, quiet when asked (argument or ``$INTERP_REPRO_QUIET=1``)."""

from collections.abc import Iterable

from tqdm import tqdm

from interp_repro.core.validate import env_flag

QUIET_ENV = "INTERP_REPRO_QUIET"


def progress(iterable: Iterable, desc: str, total: int | None = None, quiet: bool | None = None):
    """Wrap ``iterable`` in a tqdm bar labelled ``desc``; no bar if ``quiet`` or the env says so."""
    if quiet is None:
        quiet = env_flag(QUIET_ENV)
    return tqdm(iterable, desc=desc, total=total, disable=quiet, leave=False, mininterval=1.0)
