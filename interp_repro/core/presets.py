"""Config presets: one dataclass per experiment, one set of field values per scale.

:func:`seed_offset` shifts the ``seed`` of every preset built in its body: the same experiments on
other seeds. The robustness test uses it to stand in for another machine, where the same seed rounds
differently and, after thousands of steps, trains a different network.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import fields, replace
from typing import Any, ClassVar

from interp_repro.core.scales import check_scale
from interp_repro.core.seeding import MAX_SEED

_SEED_OFFSET: ContextVar[int] = ContextVar("seed_offset", default=0)


@contextmanager
def seed_offset(offset: int) -> Iterator[None]:
    """Presets made in the body have ``offset`` added to their ``seed`` (an integer from 0 to
    :data:`~interp_repro.core.seeding.MAX_SEED`; each shifted seed is checked when its preset is built)."""
    if isinstance(offset, bool) or not isinstance(offset, int) or not 0 <= offset <= MAX_SEED:
        raise ValueError(f"seed offset must be an integer in [0, 2**63 - 1] (MAX_SEED), got {offset!r}")
    token = _SEED_OFFSET.set(offset)
    try:
        yield
    finally:
        _SEED_OFFSET.reset(token)


class Preset:
    """Mixin for frozen config dataclasses: ``Config.preset(scale, **overrides)``.

    The class's ``PRESETS`` maps each scale to the fields that differ from the defaults; overrides
    must name existing fields, and the dataclass's own ``__post_init__`` validates the result. Under
    :func:`seed_offset`, the preset's ``seed`` field, where it has one (a closed-form experiment has
    none), is shifted by the offset.
    """

    PRESETS: ClassVar[dict[str, dict[str, Any]]]

    @classmethod
    def preset(cls, scale: str, **overrides):
        check_scale(scale)
        names = {f.name for f in fields(cls)}
        unknown = set(overrides) - names
        if unknown:
            raise ValueError(f"{cls.__name__} has no field(s) {sorted(unknown)}; fields: {sorted(names)}")
        config = replace(cls(**cls.PRESETS[scale]), **overrides)
        offset = _SEED_OFFSET.get()
        return replace(config, seed=config.seed + offset) if offset and "seed" in names else config
