"""No bad number becomes a result: every config refuses a bad value of any field when built, with one
``ValueError`` naming the field; measures that reduce to a verdict-bearing number refuse NaN and
infinity; models refuse shapes they cannot train."""

import dataclasses
import math

import numpy as np
import pytest
import torch

from interp_repro.abstraction import measures as am
from interp_repro.abstraction.experiments import ablation, linear, nonlinear
from interp_repro.core import cache, cached, numpy_rng, torch_generator
from interp_repro.core.presets import Preset
from interp_repro.modular_addition import experiments as modular_addition
from interp_repro.modular_addition import measures as ma
from interp_repro.reproduction.claims import load_claims
from interp_repro.reproduction.records import record
from interp_repro.schur_rnn import experiments as schur
from interp_repro.schur_rnn import measures as sm
from interp_repro.schur_rnn.model import RecurrentNet, rollout
from interp_repro.superposition import experiments as superposition
from interp_repro.superposition import measures as sp
from interp_repro.superposition.model import ToyModel
from interp_repro.superposition.train import train_best

# --- configs ------------------------------------------------------------------------------------


def _configs() -> list:
    """A valid instance of every config dataclass of every study: the ``ci`` preset, the defaults of a
    config without presets, and one train spec per study that has them."""
    out = []
    for module in (superposition, modular_addition, linear, nonlinear, ablation, schur):
        for cls in vars(module).values():
            if isinstance(cls, type) and issubclass(cls, Preset) and dataclasses.is_dataclass(cls):
                out.append(cls.preset("ci"))
    ci = modular_addition.ModAddConfig.preset("ci")
    return [*out, ablation.GeluNetConfig(), ci.spec(ci.architectures[0], 0),
            schur.CopyConfig.preset("ci").specs()[0]]


def _bad_values(value) -> list:
    """Values of the wrong kind or range for a field whose valid value is ``value``."""
    if isinstance(value, bool):
        return [1]
    if isinstance(value, int) or value is None:
        return [-1, 1.5]
    if isinstance(value, float):
        return [math.nan, math.inf if value > 0 else -math.inf, "x"]
    if isinstance(value, str):
        return ["nope", 3]
    if isinstance(value, tuple):
        return [(), ("x",), ((-5,) * len(value[0]),) if isinstance(value[0], tuple) else (-1,)]
    return ["nope"]


CASES = [pytest.param(cfg, field.name, bad, id=f"{type(cfg).__name__}.{field.name}={bad!r:.20}")
         for cfg in _configs() for field in dataclasses.fields(cfg)
         for bad in _bad_values(getattr(cfg, field.name))]


@pytest.mark.parametrize(("cfg", "name", "bad"), CASES)
def test_every_config_refuses_a_bad_value_of_each_field_naming_it(cfg, name, bad):
    with pytest.raises(ValueError, match=name) as err:
        dataclasses.replace(cfg, **{name: bad})
    assert "\n" not in str(err.value)


# --- NaN and infinity never become a number ----------------------------------------------------

RNG = np.random.default_rng(0)
W25, W24, W63 = RNG.normal(size=(2, 5)), RNG.normal(size=(2, 4)), RNG.normal(size=(6, 3))
ACC8, VALUES8 = np.linspace(1.0, 0.6, 8), RNG.uniform(size=(8, 3))
DENSITY = np.geomspace(1.0, 0.01, 6)


def _poison(x, bad: float) -> np.ndarray:
    """A float copy of ``x`` with its second entry replaced by ``bad``."""
    out = np.array(x, dtype=np.float64)
    out.flat[1] = bad
    return out


MEASURES = {
    "superposition.squared_frobenius": lambda bad: sp.squared_frobenius(_poison(W25, bad)),
    "superposition.represented": lambda bad: sp.represented(_poison(W25, bad)),
    "superposition.keeps_top": lambda bad: sp.keeps_top(_poison(W25, bad), 2),
    "superposition.antipodal_share": lambda bad: sp.antipodal_share(_poison(W25, bad)),
    "superposition.mean_pair_cosine": lambda bad: sp.mean_pair_cosine(_poison(W24, bad)),
    "superposition.pentagon_error_degrees": lambda bad: sp.pentagon_error_degrees(_poison(W25, bad)),
    "superposition.neighbour_gap_degrees": lambda bad: sp.neighbour_gap_degrees(_poison(W25, bad), 0),
    "superposition.live_top_share": lambda bad: sp.live_top_share(_poison(W25, bad)),
    "superposition.abs_circuit_share": lambda bad: sp.abs_circuit_share(_poison(W63, bad)),
    "superposition.intermediate_norm_share": lambda bad: sp.intermediate_norm_share(_poison(W25, bad)),
    "superposition.dimensions_per_feature": lambda bad: sp.dimensions_per_feature(_poison(W25, bad)),
    "superposition.nearest_fraction_share": lambda bad: sp.nearest_fraction_share(_poison([0.5, 0.4], bad)),
    "superposition.clustering_over_chance": lambda bad: sp.clustering_over_chance(_poison([0.5, 0.4], bad)),
    "superposition.packed_dims": lambda bad: sp.packed_dims(DENSITY, _poison(np.ones(6), bad),
                                                            np.ones((6, 2))),
    "superposition.median_dims_per_hidden": lambda bad: sp.median_dims_per_hidden(
        DENSITY, _poison(np.ones((6, 2)), bad), 2),
    "superposition.plateau_ratio": lambda bad: sp.plateau_ratio(DENSITY, _poison(np.ones(6), bad), 1.0),
    "superposition.analytic_agreement": lambda bad: sp.analytic_agreement(
        np.ones((6, 6)), _poison(DENSITY, bad), DENSITY * 10, 2),
    "superposition.superposition_share_above_bound": lambda bad: sp.superposition_share_above_bound(
        np.ones((6, 6)), _poison(DENSITY, bad)),
    "abstraction.attenuation_violations": lambda bad: am.attenuation_violations([bad], [0.5]),
    "abstraction.attenuation_violations before": lambda bad: am.attenuation_violations([0.5], [bad]),
    "abstraction.attenuation_excess": lambda bad: am.attenuation_excess([0.1, bad], [0.5, 0.5]),
    "abstraction.depth_profile_deviation": lambda bad: am.depth_profile_deviation([[0.5, bad, 0.2]]),
    "abstraction.up_fraction": lambda bad: am.up_fraction(np.zeros((2, 2)), _poison(np.ones((2, 2)), bad)),
    "abstraction.same_direction": lambda bad: am.same_direction(
        np.zeros((2, 2)), _poison(np.ones((2, 2)), bad), np.zeros((2, 2)), np.ones((2, 2))),
    "abstraction.largest_gap": lambda bad: am.largest_gap(_poison([0.1, 0.2], bad), [0.1, 0.2]),
    "abstraction.perfectly_abstract": lambda bad: am.perfectly_abstract(_poison([0.99, 0.5], bad), 0.05),
    "schur_rnn.cc_pairs_gap": lambda bad: sm.cc_pairs_gap(_poison(ACC8, bad)),
    "schur_rnn.accuracy_drop": lambda bad: sm.accuracy_drop(_poison(ACC8, bad), {"RR"}),
    "schur_rnn.cr_lowest": lambda bad: sm.cr_lowest(_poison(ACC8, bad)),
    "schur_rnn.profile_holds": lambda bad: sm.profile_holds(_poison(ACC8, bad)),
    "schur_rnn.seeds_within": lambda bad: sm.seeds_within(_poison(VALUES8, bad), ACC8),
    "schur_rnn.largest_change": lambda bad: sm.largest_change(_poison(VALUES8, bad)),
    "schur_rnn.seed_spread": lambda bad: sm.seed_spread(_poison(VALUES8, bad)),
    "schur_rnn.task_learned": lambda bad: sm.task_learned(_poison([1e-3, 1e-3, 1e-3], bad)),
    "schur_rnn.every_seed_learned": lambda bad: sm.every_seed_learned(_poison([1e-3, 1e-3], bad)),
    "schur_rnn.stabilizer_sets": lambda bad: sm.stabilizer_sets(
        {"delta_fvu": _poison(VALUES8, bad), "mass": VALUES8}),
    "schur_rnn.fvu": lambda bad: sm.fvu(_poison(VALUES8, bad), VALUES8),
    "schur_rnn.split_interval": lambda bad: sm.split_interval(_poison(np.eye(3), bad), 0.9),
    "modular_addition.linear_cka": lambda bad: ma.linear_cka(_poison(VALUES8, bad), VALUES8),
    "modular_addition.mmd_permutation_test": lambda bad: ma.mmd_permutation_test(
        _poison(VALUES8, bad), VALUES8, 1.0, n_permutations=5),
}


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("measure", MEASURES)
def test_a_measure_refuses_nan_and_infinity(measure, bad):
    with pytest.raises(ValueError, match="finite|NaN|inf|1]") as err:
        MEASURES[measure](bad)
    assert "\n" not in str(err.value)


def test_the_measures_accept_their_valid_inputs():
    for measure, call in MEASURES.items():
        if measure != "abstraction.depth_profile_deviation":
            call(0.5)
    assert am.depth_profile_deviation([[0.5, 0.3, 0.2]]) >= 0


def test_a_profile_value_outside_minus_one_one_is_refused_not_dropped():
    with pytest.raises(ValueError, match="profile row 0"):
        am.depth_profile_deviation([[0.5, 1.5, 0.2]])


def test_split_interval_refuses_a_zero_spectrum():
    with pytest.raises(ValueError, match="spectral radius 0"):
        sm.split_interval(np.zeros((3, 3)), 0.9)


def test_linear_cka_does_not_depend_on_scale_even_at_extremes():
    x, y = RNG.normal(size=(20, 3)), RNG.normal(size=(20, 4))
    assert ma.linear_cka(x * 1e-200, y * 1e-200) == pytest.approx(ma.linear_cka(x, y), rel=1e-12)
    assert ma.linear_cka(x * 1e200, y) == pytest.approx(ma.linear_cka(x, y), rel=1e-12)


@pytest.mark.parametrize("bad", [math.nan, np.float64("inf"), np.float32("-inf")])
def test_recording_a_non_finite_value_names_the_claim(bad, tmp_path, monkeypatch):
    monkeypatch.setenv("INTERP_REPRO_RECORD", str(tmp_path / "records.json"))
    claim_id = next(iter(load_claims()))
    with pytest.raises(ValueError, match=rf"{claim_id}: a claim value must be finite"):
        record(claim_id, bad, "ci")
    assert not (tmp_path / "records.json").exists()


# --- models refuse shapes they cannot train; small ones ------------------------------------------


@pytest.mark.parametrize("shape", [(1, 0, 0), (1, 5, 0), (0, 5, 2), (1, 5.0, 2)])
def test_toy_model_refuses_a_shape_it_cannot_train(shape):
    with pytest.raises(ValueError, match="n_instances|n_features|n_hidden"):
        ToyModel(*shape, "relu", torch_generator(0))


@pytest.mark.parametrize("make", [
    lambda generator: ToyModel(1, 5, 2, "relu", generator),
    lambda generator: RecurrentNet(1, 2, 3, 2, "default", generator),
])
@pytest.mark.parametrize("generator", [None, 0, np.random.default_rng(0)])
def test_a_model_never_falls_back_on_the_global_random_state(make, generator):
    with pytest.raises(ValueError, match="generator must be a torch.Generator"):
        make(generator)


def test_the_rnn_refuses_zero_time_steps_and_takes_numpy_inputs():
    model = RecurrentNet(2, 3, 4, 2, "default", torch_generator(0))
    with pytest.raises(ValueError, match="at least one time step"):
        model(torch.zeros(0, 5, 3))
    inputs = RNG.normal(size=(6, 5, 3))
    weights = [w.detach().numpy() for w in (model.W_xh, model.W_hh, model.W_hy)]
    torch.testing.assert_close(rollout(*weights, inputs), model(torch.as_tensor(inputs, dtype=torch.float32)))


def test_torch_and_numpy_accept_the_same_seeds():
    torch_generator(2**64 - 1), numpy_rng(2**64 - 1)
    for make in (torch_generator, numpy_rng):
        with pytest.raises(ValueError, match="below 2\\*\\*64"):
            make(2**64)


def test_a_bad_cache_namespace_is_refused_before_any_file_is_read(monkeypatch, tmp_path):
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path / "cache"))
    read = []
    monkeypatch.setattr(cache, "study_sources", lambda study: read.append(study) or [])
    with pytest.raises(ValueError, match="cache namespace '../x'"):
        cached("../x", {}, lambda: {})
    assert read == []


def test_a_diverged_training_run_stops_and_is_not_cached(monkeypatch, tmp_path):
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("INTERP_REPRO_QUIET", "1")

    def diverged():
        return train_best("relu", 3, 2, np.array([1.0, math.nan, 1.0]), np.array([1.0]), seeds=1, steps=2,
                          batch=8, seed=0, desc="nan importance")
    with pytest.raises(ValueError, match="training loss of nan importance .* must be finite"):
        cached("superposition/diverged", {"n": 1}, diverged)
    assert not list((tmp_path / "cache").rglob("*.npz"))
