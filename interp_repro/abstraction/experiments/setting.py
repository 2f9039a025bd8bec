"""The two-factor setting the simulated experiments share: its fields, their checks and its data."""

from dataclasses import dataclass

from interp_repro.abstraction.data import TwoFactorData, check_nu, two_factor_data
from interp_repro.core import check_positive, check_positive_int
from interp_repro.core.seeding import check_seed
from interp_repro.core.validate import check_field_types


def check_training_fields(cfg) -> None:
    """The fields of every config that trains a network by gradient descent."""
    check_positive("kappa", cfg.kappa)
    check_positive("lr", cfg.lr)
    check_positive_int("width", cfg.width)
    check_positive_int("steps", cfg.steps)


def check_data_fields(cfg) -> None:
    """The fields of every config that draws two-factor data: its sizes and the seed."""
    check_positive_int("n_per_class", cfg.n_per_class)
    check_positive_int("d_in", cfg.d_in)
    check_positive_int("d_out", cfg.d_out)
    check_seed("seed", cfg.seed)


@dataclass(frozen=True)
class TwoFactorSetting:
    """Fields shared by the simulated experiments: the data (nu_x, nu_y, samples per class, input
    and output dimensions), the ridge penalty lam and the seed."""

    nu_x: float = 0.5
    nu_y: float = 0.1
    lam: float = 1.0
    n_per_class: int = 2
    d_in: int = 8
    d_out: int = 6
    seed: int = 0

    def __post_init__(self):
        check_field_types(self)
        check_nu("nu_x", self.nu_x)
        check_nu("nu_y", self.nu_y)
        check_positive("lam", self.lam)
        check_data_fields(self)

    def data(self, noise_x: float = 0.0) -> TwoFactorData:
        """The setting's two-factor data, with within-class noise ``noise_x``."""
        return two_factor_data(self.nu_x, self.nu_y, n_per_class=self.n_per_class, d_in=self.d_in,
                               d_out=self.d_out, seed=self.seed, noise_x=noise_x)
