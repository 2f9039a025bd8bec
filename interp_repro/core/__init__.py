"""What every study shares: scales, seeding, the results cache, progress, devices, validation, interactive
figures."""

from interp_repro.core.cache import cache_dir, cached, is_cached, library_fingerprint
from interp_repro.core.device import cpu_threads, select_device
from interp_repro.core.errors import ConfigError
from interp_repro.core.interactive import Interactive
from interp_repro.core.progress import progress
from interp_repro.core.scales import SCALES, check_scale, default_scale
from interp_repro.core.seeding import numpy_rng, torch_generator
from interp_repro.core.validate import check_fraction, check_positive_int

__all__ = [
    "SCALES",
    "ConfigError",
    "Interactive",
    "cache_dir",
    "cached",
    "check_fraction",
    "check_positive_int",
    "check_scale",
    "default_scale",
    "is_cached",
    "library_fingerprint",
    "numpy_rng",
    "progress",
    "select_device",
    "torch_generator",
    "cpu_threads",
]
