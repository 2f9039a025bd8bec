"""What every study shares: scales, seeding, the results cache, progress, devices and threads, validation,
PCA, trained units, interactive figures, estimates over samples; the machine's description
(``core.machine``) and the training FLOPs a job counts (``core.flops``)."""

from interp_repro.core.cache import cache_dir, cached, is_cached, library_fingerprint
from interp_repro.core.device import cpu_threads, default_device, select_device
from interp_repro.core.errors import ConfigError
from interp_repro.core.estimate import Estimate
from interp_repro.core.interactive import Interactive
from interp_repro.core.pca import pca_projection, pca_variance
from interp_repro.core.progress import progress
from interp_repro.core.scales import SCALES, check_scale, default_scale
from interp_repro.core.seeding import numpy_rng, torch_generator
from interp_repro.core.units import Arrays, Unit
from interp_repro.core.validate import (
    check_choices,
    check_finite,
    check_finite_loss,
    check_fraction,
    check_nonnegative,
    check_nonnegative_int,
    check_positive,
    check_positive_int,
    check_probability,
    check_real_array,
    check_tuple,
)

__all__ = [
    "SCALES",
    "Arrays",
    "ConfigError",
    "Estimate",
    "Interactive",
    "Unit",
    "cache_dir",
    "cached",
    "check_choices",
    "check_finite",
    "check_finite_loss",
    "check_fraction",
    "check_nonnegative",
    "check_nonnegative_int",
    "check_positive",
    "check_positive_int",
    "check_probability",
    "check_real_array",
    "check_scale",
    "check_tuple",
    "cpu_threads",
    "default_device",
    "default_scale",
    "is_cached",
    "library_fingerprint",
    "numpy_rng",
    "pca_projection",
    "pca_variance",
    "progress",
    "select_device",
    "torch_generator",
]
