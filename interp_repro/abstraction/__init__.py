"""Dynamics of abstraction (Yang, Saxe, Latham 2026): two-factor data, kernel theory, kernel maps.

:mod:`.data` draws datasets with prescribed class-kernel spectra, :mod:`.theory` holds the Walsh
spectrum, abstraction scores, the linear learning dynamics and the depth laws, :mod:`.kernels`
the infinite-width kernel maps of erf, ReLU, leaky ReLU and GELU, :mod:`.networks` the finite-width
simulations, and :mod:`.ablation` the local GELU ablation in a small residual network.
"""

from interp_repro.abstraction.ablation import (
    AblationTable,
    GeluNetConfig,
    ablation_table,
    block_representations,
    probe_transfer,
    train_gelu_net,
)
from interp_repro.abstraction.data import CLASSES, MODES, WALSH_BASIS, TwoFactorData, two_factor_data
from interp_repro.abstraction.kernels import (
    attenuation_check,
    erf_kernel,
    gelu,
    gelu_kernel,
    leaky_relu_kernel,
    monte_carlo_kernel,
    random_two_factor_kernels,
    relu_kernel,
)
from interp_repro.abstraction.networks import (
    balanced_init,
    item_spectrum,
    theory_for,
    train_deep_linear,
    train_linear,
    train_nonlinear,
    walsh_item_vectors,
)
from interp_repro.abstraction.theory import (
    abstraction_score,
    alpha_trajectory,
    class_kernel,
    class_means,
    deep_terminal,
    kernel_abstraction,
    kernel_flow,
    kernel_from_spectrum,
    layer_profile,
    max_alpha,
    mode_rate,
    nu_abstraction,
    ridge_loss,
    solve_modes,
    terminal_abstraction,
    walsh_spectrum,
)

__all__ = [
    "CLASSES",
    "MODES",
    "WALSH_BASIS",
    "AblationTable",
    "GeluNetConfig",
    "TwoFactorData",
    "ablation_table",
    "abstraction_score",
    "alpha_trajectory",
    "attenuation_check",
    "balanced_init",
    "block_representations",
    "class_kernel",
    "class_means",
    "deep_terminal",
    "erf_kernel",
    "gelu",
    "gelu_kernel",
    "item_spectrum",
    "kernel_abstraction",
    "kernel_flow",
    "kernel_from_spectrum",
    "layer_profile",
    "leaky_relu_kernel",
    "max_alpha",
    "mode_rate",
    "monte_carlo_kernel",
    "nu_abstraction",
    "probe_transfer",
    "random_two_factor_kernels",
    "relu_kernel",
    "ridge_loss",
    "solve_modes",
    "terminal_abstraction",
    "theory_for",
    "train_deep_linear",
    "train_gelu_net",
    "train_linear",
    "train_nonlinear",
    "two_factor_data",
    "walsh_item_vectors",
    "walsh_spectrum",
]
