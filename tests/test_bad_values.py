"""No bad number becomes a result: every config refuses a bad value of any field when built, with one
``ValueError`` naming the field; measures that reduce to a verdict-bearing number refuse NaN and
infinity; models refuse shapes they cannot train."""

import dataclasses
import math
import types
import typing

import numpy as np
import pytest
import torch

from interp_repro.abstraction import measures as am
from interp_repro.abstraction.experiments import ablation, linear, nonlinear
from interp_repro.core import cache, cached, numpy_rng, torch_generator
from interp_repro.core.presets import Preset, seed_offset
from interp_repro.core.seeding import MAX_SEED, SEED_LIMIT
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


ZERO_ALLOWED = {"seed", "weight_decay", "full_rips_clusters", "warmup", "full_replay_share", "nu_x", "nu_y",
                "noise_x", "nus", "nu_xs", "noise_xs", "sparsities"}
"""Fields (or tuple fields whose items) that may legitimately be 0."""


def _wrong_values(tp, name: str) -> list:
    """Values of the wrong type or range for a field annotated ``tp``: a string, True where a number is
    meant, [], None, NaN, inf, a negative number, 0 where a positive is needed, a float where an int is,
    a complex number; for a tuple field, also a tuple holding one wrong item."""
    common = ["x", True, [], math.nan, math.inf, -1, 1 + 2j, np.complex128(1)]
    if typing.get_origin(tp) in (typing.Union, types.UnionType):  # X | None: None is allowed
        inner = next(a for a in typing.get_args(tp) if a is not type(None))
        return [v for v in _wrong_values(inner, name) if v is not None]
    if typing.get_origin(tp) is tuple:
        args = typing.get_args(tp)
        items = args[:1] if args[1:] == (Ellipsis,) else args
        return [v for v in common if v != "x"] + [None, (), "nope"] + [
            (bad,) for bad in _wrong_values(items[0], name)]
    if tp in (int, float):
        zero = [0] if name not in ZERO_ALLOWED else []
        return [*common, None, "0.5", *zero] + ([1.5] if tp is int else [])
    if tp is str:
        return ["nope", True, [], None, 1.5, 1 + 2j]
    return ["nope", True, [], None, 1.5]  # a nested config


TYPE_CASES = [pytest.param(cfg, field.name, id=f"{type(cfg).__name__}.{field.name}")
              for cfg in _configs() for field in dataclasses.fields(cfg)]


@pytest.mark.parametrize(("cfg", "name"), TYPE_CASES)
def test_every_field_refuses_a_value_of_the_wrong_type_with_one_value_error_naming_it(cfg, name):
    tp = typing.get_type_hints(type(cfg))[name]
    for bad in _wrong_values(tp, name):
        if isinstance(bad, tuple) and bad and typing.get_origin(tp) is tuple:
            bad = bad + getattr(cfg, name)[1:]  # one wrong item among valid ones
        with pytest.raises(ValueError, match=name) as err:
            dataclasses.replace(cfg, **{name: bad})
        assert "\n" not in str(err.value), bad


def test_a_string_nu_is_refused_not_trained_under_another_cache_key():
    for cfg in _configs():
        for name in ("nu_x", "nu_y"):
            if hasattr(cfg, name):
                with pytest.raises(ValueError, match=f"{name} must be a finite real number"):
                    dataclasses.replace(cfg, **{name: "0.5"})


def test_eval_every_zero_is_a_value_error_not_a_division_by_zero():
    with pytest.raises(ValueError, match="eval_every must be a positive integer"):
        modular_addition.ModAddConfig.preset("ci", eval_every=0)


def test_valid_configs_keep_their_values_and_types():
    cfg = modular_addition.ModAddConfig.preset("ci", lr=1, seed=np.int64(3))
    assert type(cfg.lr) is int and type(cfg.seed) is np.int64


# --- seeds fit the generators ---------------------------------------------------------------------


def test_max_seed_leaves_room_for_the_seeds_derived_from_it():
    torch_generator(MAX_SEED + 1000), numpy_rng(MAX_SEED + 1000)
    assert MAX_SEED + 2**63 == SEED_LIMIT - 1


@pytest.mark.parametrize("cls", [superposition.IntroConfig, modular_addition.ModAddConfig,
                                 linear.LinearConfig, ablation.AblationConfig, schur.CopyConfig])
def test_a_shifted_seed_beyond_max_seed_is_refused_when_the_config_is_built(cls):
    with seed_offset(MAX_SEED):
        assert cls.preset("ci").seed == MAX_SEED
        with pytest.raises(ValueError, match="seed must be an integer in \\[0, 2\\*\\*63 - 1\\]"):
            cls.preset("ci", seed=1)
    with pytest.raises(ValueError, match="^seed must"):
        cls.preset("ci", seed=MAX_SEED + 1)


@pytest.mark.parametrize("offset", [MAX_SEED + 1, 2**64, -1, True, 1.0])
def test_seed_offset_refuses_an_offset_above_max_seed(offset):
    with pytest.raises(ValueError, match="seed offset must be an integer in"), seed_offset(offset):
        pass


# --- measures refuse the wrong shape, complex and object arrays, and empty input --------------------

WRONG_LENGTH = [np.linspace(1, 0.6, 7), np.linspace(1, 0.6, 9), np.ones((8, 1)), 0.9]


@pytest.mark.parametrize("accuracy", WRONG_LENGTH, ids=["7", "9", "8x1", "scalar"])
@pytest.mark.parametrize("measure", [sm.cc_pairs_gap, sm.cr_lowest, lambda a: sm.accuracy_drop(a, {"RR"}),
                                     sm.profile_holds], ids=["cc_pairs_gap", "cr_lowest", "accuracy_drop",
                                                             "profile_holds"])
def test_a_profile_reading_refuses_an_accuracy_vector_not_of_eight(measure, accuracy):
    with pytest.raises(ValueError, match="accuracy must"):
        measure(accuracy)


LABELS = np.array([(s, c) for s in (1, -1) for c in (1, -1)] * 3)
REPS = np.random.default_rng(1).normal(size=(12, 3)) + LABELS[:, :1]
CURVES = {"steps": np.arange(4) * 10, "test_acc": np.array([0.2, 0.5, 1.0, 1.0])}
LOGITS = np.random.default_rng(2).normal(size=(5, 5, 5))


def _as(x, dtype) -> np.ndarray:
    """``x`` as an array of ``dtype`` (complex or object)."""
    return np.asarray(x).astype(dtype)


TYPED = {
    "abstraction.probe_transfer": lambda t: am.probe_transfer(_as(REPS, t), LABELS),
    "abstraction.probe_transfer labels": lambda t: am.probe_transfer(REPS, _as(LABELS, t)),
    "abstraction.whitened_abstraction": lambda t: am.whitened_abstraction(_as(REPS, t), LABELS),
    "abstraction.abstraction_score": lambda t: am.abstraction_score(_as(REPS, t), LABELS),
    "abstraction.depth_profile_deviation": lambda t: am.depth_profile_deviation(_as([[0.5, 0.3, 0.2]], t)),
    "abstraction.kernel_abstraction": lambda t: am.kernel_abstraction(_as(np.eye(4), t)),
    "abstraction.nu_abstraction": lambda t: am.nu_abstraction(_as([0.5], t)),
    "modular_addition.settled_at": lambda t: ma.settled_at([1, 2], _as([0.5, 0.5], t), 0.1),
    "modular_addition.first_step_at": lambda t: ma.first_step_at(
        {**CURVES, "test_acc": _as(CURVES["test_acc"], t)}),
    "modular_addition.logit_pizza_correlation": lambda t: ma.logit_pizza_correlation(_as(LOGITS, t), 1),
    "schur_rnn.sensitivity": lambda t: sm.sensitivity(VALUES8, _as(VALUES8, t)),
    "superposition.analytic_phase_2_1": lambda t: sp.analytic_phase_2_1(_as(DENSITY, t), 1.0),
    "superposition.feature_variance": lambda t: sp.feature_variance(_as(DENSITY, t)),
    "superposition.superposition_above_bound": lambda t: sp.superposition_above_bound(
        _as(np.ones((6, 6)), t), np.ones((6, 6)), DENSITY, DENSITY),
}


@pytest.mark.parametrize("dtype", [complex, object])
@pytest.mark.parametrize("measure", TYPED)
def test_a_measure_refuses_complex_and_object_arrays(measure, dtype):
    with pytest.raises(ValueError, match="must be a real") as err:
        TYPED[measure](dtype)
    assert "\n" not in str(err.value)


def test_the_typed_measures_accept_their_valid_inputs():
    for call in TYPED.values():
        call(np.float64)


EMPTY = {
    "schur_rnn.every_seed_learned": lambda: sm.every_seed_learned([]),
    "schur_rnn.task_learned": lambda: sm.task_learned([]),
    "schur_rnn.largest_change": lambda: sm.largest_change(np.zeros((8, 0))),
    "schur_rnn.seed_spread": lambda: sm.seed_spread(np.zeros((8, 0))),
    "schur_rnn.stabilizer_sets": lambda: sm.stabilizer_sets({"delta_fvu": np.zeros((8, 0)),
                                                             "mass": np.zeros((8, 0))}),
    "schur_rnn.seed_dependent_units": lambda: sm.seed_dependent_units([]),
    "schur_rnn.distinct_stabilizer_profiles": lambda: sm.distinct_stabilizer_profiles({}),
    "abstraction.perfectly_abstract": lambda: am.perfectly_abstract([], 0.05),
    "abstraction.depth_profile_deviation": lambda: am.depth_profile_deviation(np.zeros((0, 3))),
    "abstraction.attenuation_violations": lambda: am.attenuation_violations([], []),
    "abstraction.attenuation_excess": lambda: am.attenuation_excess([], []),
    "abstraction.largest_gap": lambda: am.largest_gap([], []),
    "abstraction.up_fraction": lambda: am.up_fraction(np.zeros((0, 2)), np.zeros((0, 2))),
    "modular_addition.disc_fraction": lambda: ma.disc_fraction([]),
    "modular_addition.betti_fraction": lambda: ma.betti_fraction([], (1, 1)),
    "modular_addition.mean_cka": lambda: ma.mean_cka([], "disc"),
    "modular_addition.pad_diagonal_share": lambda: ma.pad_diagonal_share([]),
    "modular_addition.first_step_at": lambda: ma.first_step_at({"steps": [], "test_acc": []}),
    "superposition.nearest_fraction_share": lambda: sp.nearest_fraction_share([]),
    "superposition.plateau_ratio": lambda: sp.plateau_ratio([], [], 1.0),
    "superposition.median_dims_per_hidden": lambda: sp.median_dims_per_hidden([1.0], np.ones((1, 2)), 2),
    "superposition.analytic_agreement": lambda: sp.analytic_agreement(np.ones((0, 0)), [], [], 2),
    "superposition.superposition_share_above_bound": lambda: sp.superposition_share_above_bound(
        np.ones((1, 1)), [0.1]),
    "superposition.squared_frobenius": lambda: sp.squared_frobenius(np.zeros((2, 0))),
    "superposition.abs_circuit_share": lambda: sp.abs_circuit_share(np.zeros((2, 0))),
}


@pytest.mark.parametrize("measure", EMPTY)
def test_a_measure_of_no_data_refuses_rather_than_giving_a_verdict(measure):
    with pytest.raises(ValueError) as err:
        EMPTY[measure]()
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_probe_transfer_refuses_non_finite_labels(bad):
    labels = LABELS.astype(float)
    labels[0, 0] = bad
    with pytest.raises(ValueError, match="labels"):
        am.probe_transfer(REPS, labels)


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_first_step_at_refuses_a_curve_with_nan_or_inf(bad):
    assert ma.first_step_at(CURVES) == 20
    for acc in ([0.2, bad, 1.0, 1.0], [0.2, 0.5, 0.9, bad]):
        with pytest.raises(ValueError, match="test_acc must be finite"):
            ma.first_step_at({**CURVES, "test_acc": np.array(acc)})


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
    with pytest.raises(ValueError, match=rf"claim {claim_id} takes a finite number"):
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
