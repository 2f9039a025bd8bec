"""Config presets: one dataclass per experiment, one set of field values per scale."""

from dataclasses import fields, replace
from typing import Any, ClassVar

from interp_repro.core.scales import check_scale


class Preset:
    """Mixin for frozen config dataclasses: ``Config.preset(scale, **overrides)``.

    The class's ``PRESETS`` maps each scale to the fields that differ from the defaults; overrides
    must name existing fields, and the dataclass's own ``__post_init__`` validates the result.
    """

    PRESETS: ClassVar[dict[str, dict[str, Any]]]

    @classmethod
    def preset(cls, scale: str, **overrides):
        check_scale(scale)
        names = {f.name for f in fields(cls)}
        unknown = set(overrides) - names
        if unknown:
            raise ValueError(f"{cls.__name__} has no field(s) {sorted(unknown)}; fields: {sorted(names)}")
        return replace(cls(**cls.PRESETS[scale]), **overrides)
