"""One unit of training and what it produced, the same shape in every study that trains many
networks: a frozen spec (everything that determines the unit; the cache key of its weights), the arrays
training returned and the arrays measured on them."""

from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np

Arrays = dict[str, np.ndarray]
Spec = TypeVar("Spec")


@dataclass(frozen=True)
class Unit(Generic[Spec]):
    """A trained unit: ``spec`` determines it; ``trained`` holds what training returned (weights,
    curves, scores); ``measured`` what the study's measures computed from those weights."""

    spec: Spec
    trained: Arrays
    measured: Arrays
