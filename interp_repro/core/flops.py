"""The floating-point work of training steps, counted per job: what the book build's per-job table sets
against the machine's one-thread matrix-product ceiling (``reproduction.speed.matmul_flops``).

A trainer meters each step with :meth:`StepMeter.step`. The first step of each kind (a replay length,
or a step that also evaluates, say) runs under torch's ``FlopCounterMode``, which counts the matrix
products of the forward and backward passes; every later step of that kind adds the same count, so
metering costs one counted step, a clock reading and an addition per step. :func:`tally` collects what
the steps in its body counted, the CPU seconds they took, and what keeps them below the ceiling (each
trainer's ``bound``).
"""

import time
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from torch.utils.flop_counter import FlopCounterMode


@dataclass(eq=False)
class Tally:
    """Training FLOPs counted in a :func:`tally` body, the CPU seconds of the steps that did them, and
    what bounds the metered trainers' speed."""

    flops: float = 0.0
    seconds: float = 0.0
    bounds: set[str] = field(default_factory=set)


_TALLIES: list[Tally] = []


@contextmanager
def tally() -> Iterator[Tally]:
    """Count the metered training steps of the body (nested tallies each count them)."""
    counted = Tally()
    _TALLIES.append(counted)
    try:
        yield counted
    finally:
        _TALLIES.remove(counted)


class StepMeter:
    """Counts one trainer's steps; ``bound`` says, for a reader of the per-job table, what keeps its
    steps below the matrix-product ceiling (the work that is not a matrix product)."""

    def __init__(self, bound: str):
        self.bound = bound
        self._flops: dict[Hashable, int] = {}

    @contextmanager
    def step(self, kind: Hashable = None) -> Iterator[None]:
        """Meter one training step of ``kind``: counted the first time, added and timed every time."""
        start = time.process_time()
        if kind in self._flops:
            yield
        else:
            with FlopCounterMode(display=False) as mode:
                yield
            self._flops[kind] = mode.get_total_flops()
        seconds = time.process_time() - start
        for counted in _TALLIES:
            counted.flops += self._flops[kind]
            counted.seconds += seconds
            counted.bounds.add(self.bound)
