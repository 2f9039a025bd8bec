"""Dynamics of abstraction (Yang, Saxe, Latham 2026).

Modules: ``data`` (two-factor datasets with prescribed class-kernel spectra), ``model`` (the linear,
deep linear and one-hidden-layer nonlinear networks, and the residual GELU MLP of the local GELU
ablation), ``train`` (their training loops), ``measures`` (Walsh spectra, abstraction scores, the exact
linear dynamics and the terminal and depth laws, the infinite-width kernel maps and the attenuation
law, the cross-context probe), ``experiments`` (configs, cached runs and claims, in ``linear``,
``nonlinear`` and ``ablation``; the package holds the study's table of them) and ``plots`` (the
chapters' figures).
"""

from interp_repro.core.external import EXTERNAL


def __getattr__(name: str):
    """``FORMAT``, ``load``, ``save`` and ``analyse`` for a network the user brings, from ``external``,
    imported when first asked for: ``analyse(load(path))`` gives the chapters' measures on it."""
    if name not in EXTERNAL:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from interp_repro.abstraction import external

    return getattr(external, name)
