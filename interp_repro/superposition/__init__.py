"""Toy models of superposition (Elhage et al. 2022).

Modules: ``data`` (sparse synthetic features and their importances), ``model`` (the toy models,
batched over instances), ``train`` (batched training, best of several seeds), ``measures`` (the
paper's measurements and the closed-form phase-change losses), ``experiments`` (configs, cached
runs and claims) and ``plots`` (the chapters' figures).
"""

from interp_repro.core.external import external_attributes

__getattr__ = external_attributes(__name__)
"""``FORMAT``, ``load``, ``save`` and ``analyse`` for a network the user brings (``external``):
``analyse(load(path))`` gives the chapters' measures on it, as ``interp-repro analyse`` prints them."""
