"""Reading a network the user brings (the ``<study>/external.py`` modules): the named arrays of an
``.npz`` file, checked, every refusal one line (:class:`~interp_repro.core.ConfigError`). Nothing
here is cached, so it is left out of the cache's fingerprint (``cache.UNCACHED``)."""

from pathlib import Path

import numpy as np

from interp_repro.core.errors import ConfigError


def read_npz(path: str | Path, allowed: tuple[str, ...], required: str, fmt: str) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` file ``path``, read without pickles, after checking that it is one,
    that its keys are among ``allowed`` and that it holds ``required``; ``fmt`` names the format."""
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as err:
        raise ConfigError(f"{path}: not an .npz file ({fmt}): {str(err).splitlines()[0]}") from None
    if not hasattr(data, "files"):
        raise ConfigError(f"{path}: a single array, not an .npz of named arrays ({fmt})")
    with data:
        if unknown := sorted(set(data.files) - set(allowed)):
            raise ConfigError(f"{path}: unknown keys {unknown} ({fmt})")
        if required not in data.files:
            raise ConfigError(f"{path}: no {required} ({fmt})")
        return {key: data[key] for key in data.files}


def real_array(value: np.ndarray, key: str, where: str) -> np.ndarray:
    """``value`` (the array ``key`` of ``where``) if it holds finite real numbers: a float keeps its
    precision, integers become float64."""
    if value.dtype.kind not in "fiu" or value.dtype == bool:
        raise ConfigError(f"{where}: {key} must hold real numbers, got dtype {value.dtype}")
    value = value if value.dtype.kind == "f" else value.astype(np.float64)
    if not np.isfinite(value).all():
        raise ConfigError(f"{where}: {key} holds NaN or infinity")
    return value



EXTERNAL = ("FORMAT", "load", "save", "analyse")
"""What a study package offers for a network the user brings, from its ``external`` module (each
study's ``__getattr__`` imports it when one of these is first asked for)."""
