"""Task-restricted symmetries in recurrent weight space (Draeger 2026).

- ``data``: the copy task and three neuroscience-style tasks (what the network sees);
- ``model``: the bias-free tanh RNN and its four recurrent constructions, batched over seeds;
- ``train``: how the weights are obtained (our recipe);
- ``measures``: ordered real Schur coordinates of W_hh, the coupling ablations and the ablation
  scores (§3), and our readings of the claims (§4);
- ``experiments``: configs, the cached units and the claims;
- ``plots``: the figures.
"""

from interp_repro.core.external import EXTERNAL


def __getattr__(name: str):
    """``FORMAT``, ``load``, ``save`` and ``analyse`` for a network the user brings, from ``external``,
    imported when first asked for: ``analyse(load(path))`` gives the chapters' measures on it."""
    if name not in EXTERNAL:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from interp_repro.schur_rnn import external

    return getattr(external, name)
