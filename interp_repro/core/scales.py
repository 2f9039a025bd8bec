"""The three run sizes shared by every study.

- ``ci``: minutes on 2 CPU cores; what the notebook checks run.
- ``book``: what the published book shows (the default).
- ``paper``: the papers' full sizes, for a GPU or a cluster.
"""

import os

SCALES = ("ci", "book", "paper")
SCALE_ENV = "INTERP_REPRO_SCALE"


def check_scale(scale: str) -> str:
    """Return ``scale`` if it is one of :data:`SCALES`, else raise a ``ValueError`` naming it."""
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}: choose one of {', '.join(SCALES)}")
    return scale


def default_scale() -> str:
    """The scale a chapter runs at unless told otherwise: ``$INTERP_REPRO_SCALE`` or ``book``; set
    but empty, the variable is refused like any other unknown scale (``ValueError``)."""
    value = os.environ.get(SCALE_ENV, "book")
    try:
        return check_scale(value)
    except ValueError as err:
        raise ValueError(f"${SCALE_ENV}: {err}") from None
