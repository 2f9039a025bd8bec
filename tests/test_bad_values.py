"""No bad number becomes a result: every config refuses a bad value of any field when built, with one
``ValueError`` naming the field; measures that reduce to a verdict-bearing number refuse NaN and
infinity; models refuse shapes they cannot train."""

import dataclasses
import math

import pytest

from interp_repro.abstraction import experiments as abstraction
from interp_repro.core.presets import Preset
from interp_repro.modular_addition import experiments as modular_addition
from interp_repro.schur_rnn import experiments as schur
from interp_repro.superposition import experiments as superposition

# --- configs ------------------------------------------------------------------------------------


def _configs() -> list:
    """A valid instance of every config dataclass of every study: the ``ci`` preset, the defaults of a
    config without presets, and one train spec per study that has them."""
    out = []
    for module in (superposition, modular_addition, abstraction, schur):
        for cls in vars(module).values():
            if isinstance(cls, type) and issubclass(cls, Preset) and dataclasses.is_dataclass(cls):
                out.append(cls.preset("ci"))
    ci = modular_addition.ModAddConfig.preset("ci")
    return [*out, abstraction.GeluNetConfig(), ci.spec(ci.architectures[0], 0),
            schur.CopyConfig.preset("ci").specs()[0]]


def _bad_values(value) -> list:
    """Values of the wrong kind or range for a field whose valid value is ``value``."""
    if isinstance(value, bool):
        return [1]
    if isinstance(value, int) or value is None:
        return [-1, 1.5]
    if isinstance(value, float):
        return [math.nan, math.inf if value > 0 else -math.inf, "x"]
    if isinstance(value, str):
        return ["nope", 3]
    if isinstance(value, tuple):
        return [(), ("x",), ((-5,) * len(value[0]),) if isinstance(value[0], tuple) else (-1,)]
    return ["nope"]


CASES = [pytest.param(cfg, field.name, bad, id=f"{type(cfg).__name__}.{field.name}={bad!r:.20}")
         for cfg in _configs() for field in dataclasses.fields(cfg)
         for bad in _bad_values(getattr(cfg, field.name))]


@pytest.mark.parametrize(("cfg", "name", "bad"), CASES)
def test_every_config_refuses_a_bad_value_of_each_field_naming_it(cfg, name, bad):
    with pytest.raises(ValueError, match=name) as err:
        dataclasses.replace(cfg, **{name: bad})
    assert "\n" not in str(err.value)
