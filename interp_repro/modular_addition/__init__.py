"""Manifolds of modular addition (Moisescu-Pareja et al. 2025) on Zhong et al.'s Clock and Pizza
networks: models, training, per-network analysis and statistics over many trained networks.

Public API: :func:`key_frequencies` (each neuron's key frequency from its p x p pre-activations);
the rest lives in the submodules ``model``, ``train``, ``analysis``, ``probes``, ``experiments``.
"""

from interp_repro.modular_addition.analysis import key_frequencies

__all__ = ["key_frequencies"]
