"""Task-restricted symmetries in recurrent weight space (Draeger 2026): ordered real Schur
coordinates of W_hh, the coupling ablations and the ablation metrics.

See :mod:`.schur` for the definitions.
"""

from interp_repro.schur_rnn.schur import (
    ABLATION_BLOCKS,
    TIE_RTOL,
    SchurReorderError,
    ablate,
    ablate_T,
    block_moduli,
    coupling_norm,
    delta_fvu,
    fvu,
    ordered_real_schur,
    schur_blocks,
    schur_mass_removed,
    sensitivity,
    split_indices,
)

__all__ = [
    "ABLATION_BLOCKS",
    "TIE_RTOL",
    "SchurReorderError",
    "ablate",
    "ablate_T",
    "block_moduli",
    "coupling_norm",
    "delta_fvu",
    "fvu",
    "ordered_real_schur",
    "schur_blocks",
    "schur_mass_removed",
    "sensitivity",
    "split_indices",
]
