"""Manifolds of modular addition (Moisescu-Pareja et al. 2025) on Zhong et al.'s Clock and Pizza
networks. Modules: ``data`` (the task and its splits), ``model`` (the networks, batched over
instances), ``train`` (full-batch training), ``measures`` (the papers' definitions: key frequencies,
clusters, reference manifolds, CKA, phase alignment, Zhong's metrics, the per-network analysis and
the statistics over networks), ``topology`` (persistent homology of point clouds: landmarks, Rips,
alpha and full-cloud diagrams, Betti numbers, bottleneck distances), ``zhong`` (Zhong et al.'s released
networks), ``experiments`` (configs, cached runs, claims) and ``plots``.
"""

from interp_repro.core.external import EXTERNAL


def __getattr__(name: str):
    """``FORMAT``, ``load``, ``save`` and ``analyse`` for a network the user brings, from ``external``,
    imported when first asked for: ``analyse(load(path))`` gives the chapters' measures on it."""
    if name not in EXTERNAL:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from interp_repro.modular_addition import external

    return getattr(external, name)
