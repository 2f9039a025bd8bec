"""The experiments of the abstraction study, one config and one ``run_*`` function each, in modules
named for what they hold:

- ``linear``: the two-layer linear network (theory against simulation, the rich regime), the
  terminal law over a grid, the initialisation scale and depth;
- ``nonlinear``: the kernel maps and the attenuation law, finite-width nonlinear networks and the
  ReLU anti-abstraction sweep;
- ``ablation``: the local GELU ablation and its sensitivity to our choices;
- ``setting``: the two-factor setting the simulated experiments share.

Each config has a preset per scale (``Config.preset("ci")``); any field can be overridden, which is
how the chapters let a reader change nu_x, nu_y, kappa and depth. Simulations are cached on disk;
the theory is exact and instant, so it is recomputed. Each ``*_claims`` function turns the arrays
into the headline numbers that ``claims.toml`` checks. This module is the study's entry point: its
table of experiments (``core.table``), their jobs and their claims.
"""

from typing import Any

from interp_repro.abstraction.experiments import ablation, linear, nonlinear
from interp_repro.core.parallel import Job
from interp_repro.core.table import Experiment, no_jobs, table_claims, table_jobs

EXPERIMENTS: dict[str, Experiment] = {
    "linear": Experiment(linear.LinearConfig.preset, linear.run_linear, (linear.linear_claims,)),
    "rich": Experiment(linear.rich_config, linear.run_linear, (linear.rich_claims,)),
    "terminal_grid": Experiment(linear.TerminalGridConfig.preset, linear.run_terminal_grid,
                                (linear.terminal_grid_claims,)),
    "kappa": Experiment(linear.KappaConfig.preset, linear.run_kappa, (linear.kappa_claims,), jobs=no_jobs),
    "depth": Experiment(linear.DepthConfig.preset, linear.run_depth, (linear.depth_claims,)),
    "kernels": Experiment(nonlinear.KernelConfig.preset, nonlinear.run_kernels, (nonlinear.kernel_claims,)),
    "nonlinear": Experiment(nonlinear.NonlinearConfig.preset, nonlinear.run_nonlinear,
                            (nonlinear.nonlinear_claims,)),
    "anti_abstraction": Experiment(nonlinear.anti_abstraction_config, nonlinear.run_nonlinear),
    "anti_abstraction_sweep": Experiment(nonlinear.AntiAbstractionSweepConfig.preset,
                                         nonlinear.run_anti_abstraction_sweep,
                                         (nonlinear.anti_abstraction_claims,),
                                         jobs=nonlinear.anti_abstraction_jobs),
    "ablation": Experiment(ablation.AblationConfig.preset, ablation.run_ablation,
                           (ablation.ablation_claims,)),
    "gelu_sensitivity": Experiment(ablation.GeluSensitivityConfig.preset, ablation.run_gelu_sensitivity),
}
"""The study's experiments (``core.table``): one job each, but the kappa sweep, which is closed-form,
and the anti-abstraction sweep, one job per nu_x."""


def jobs(scale: str) -> list[Job]:
    """The study's independent trained experiments at ``scale`` (the kappa sweep is closed-form)."""
    return table_jobs(EXPERIMENTS, scale)


def run_all(scale: str) -> dict[str, Any]:
    """Run every experiment of the study at ``scale`` (cached, the trained ones not cached yet side by
    side first) and return all headline numbers."""
    return table_claims(EXPERIMENTS, scale, desc="abstraction experiments")
