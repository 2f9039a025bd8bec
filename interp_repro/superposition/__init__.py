"""Toy models of superposition (Elhage et al. 2022): models, batched training, metrics, experiments.

The public entry points are re-exported here; see :mod:`.experiments` for the experiments the
chapters run and :mod:`.metrics` for the measurements.
"""

from interp_repro.superposition.metrics import (
    dimensions_per_feature,
    feature_dimensionality,
    feature_norms,
    represented,
    superposition,
)

__all__ = [
    "dimensions_per_feature",
    "feature_dimensionality",
    "feature_norms",
    "represented",
    "superposition",
]
