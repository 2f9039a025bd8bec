"""Toy models of superposition (Elhage et al. 2022).

Modules: ``data`` (sparse synthetic features and their importances), ``model`` (the toy models,
batched over instances), ``train`` (batched training, best of several seeds), ``measures`` (the
paper's measurements and the closed-form phase-change losses), ``experiments`` (configs, cached
runs and claims) and ``plots`` (the chapters' figures).
"""

from interp_repro.core.external import EXTERNAL


def __getattr__(name: str):
    """``FORMAT``, ``load``, ``save`` and ``analyse`` for a network the user brings, from ``external``,
    imported when first asked for: ``analyse(load(path))`` gives the chapters' measures on it."""
    if name not in EXTERNAL:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from interp_repro.superposition import external

    return getattr(external, name)
