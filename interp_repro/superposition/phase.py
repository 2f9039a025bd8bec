"""Phase changes: does an extra feature get no dimension, a shared one, or one of its own?

§"Superposition as a phase change" of Elhage et al. (2022). For 2 features in 1 dimension the
analytic losses of the three candidate solutions are (s = density, r = relative importance of the
extra feature; from the paper's appendix, after Wattenberg's exact toy models):

- extra feature not learned (the weight-r feature ignored): r (s/3 - s^2/4)
- extra feature learned alone (the weight-1 feature ignored): s/3 - s^2/4
- both in superposition (an antipodal pair):                   (1 + r) s^2 / 6

The phase is the one with the lowest loss.
"""

import numpy as np

from interp_repro.superposition.metrics import feature_norms, superposition

PHASES = ("not learned", "superposition", "learned alone")
"""Phase labels 0, 1, 2 of the extra (last) feature."""


def analytic_losses_2_1(density, relative_importance) -> np.ndarray:
    """The three candidate losses for 2 features in 1 dimension, stacked in :data:`PHASES` order."""
    s = np.asarray(density, dtype=np.float64)
    r = np.asarray(relative_importance, dtype=np.float64)
    ignore = s / 3 - s**2 / 4
    return np.stack(np.broadcast_arrays(r * ignore, (1 + r) * s**2 / 6, ignore))


def analytic_phase_2_1(density, relative_importance) -> np.ndarray:
    """The phase label (0, 1 or 2) with the lowest analytic loss at each (density, importance)."""
    return np.argmin(analytic_losses_2_1(density, relative_importance), axis=0)


def superposition_density_bound(relative_importance: float = 1.0) -> float:
    """The density below which superposition beats both single-feature solutions (2 -> 1).

    At r = 1 it is 4/7: (1 + r) s^2 / 6 < s/3 - s^2/4 exactly when s < 4/7.
    """
    grid = np.linspace(1e-6, 1.0, 200_001)
    phase = analytic_phase_2_1(grid, relative_importance)
    sup = grid[phase == 1]
    return float(sup.max()) if sup.size else 0.0


def empirical_phase(W, norm_threshold: float = 0.5, overlap_threshold: float = 0.1) -> np.ndarray:
    """Classify the last feature of trained W (..., m, n) into :data:`PHASES`.

    Not learned: ||W_extra|| <= ``norm_threshold``. Superposition: it is learned and shares its
    direction with other features (sum_j (W_extra_hat . W_j)^2 > ``overlap_threshold``). Learned
    alone: learned with a direction of its own.
    """
    norms = feature_norms(W)[..., -1]
    shared = superposition(W)[..., -1]
    return np.where(norms <= norm_threshold, 0, np.where(shared > overlap_threshold, 1, 2))
