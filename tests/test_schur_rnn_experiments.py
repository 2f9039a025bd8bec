"""Experiment plumbing of the Schur-RNN study: configs, units, jobs and claims (fast checks)."""

import numpy as np
import pandas as pd
import pytest

from interp_repro.core import Unit
from interp_repro.reproduction.claims import load_claims
from interp_repro.schur_rnn import experiments as ex
from interp_repro.schur_rnn import measures
from interp_repro.schur_rnn.data import task_dims


def _spec(task="copy", construction="orthogonal", n=72, seeds=3, share=0.0):
    replay = 32 if task == "copy" else None
    return ex.TrainSpec(task, construction, n, seeds, 10, 4, 1e-3, 1.0, "cosine", 0, replay, 0, share)


def _copy_unit(acc_mean, construction="orthogonal", n=72, seeds=3):
    acc = np.repeat(np.asarray(acc_mean, dtype=float)[:, None], seeds, axis=1)
    return Unit(_spec("copy", construction, n, seeds), {}, {"accuracy": acc})


def _neuro_unit(task, construction, fvu_full, dfvu):
    """A unit whose 7 ablations all change FVU by ``dfvu`` (8, K) rows 1.., seeds as columns."""
    fvu_full = np.asarray(fvu_full, dtype=float)
    delta = np.vstack([np.zeros_like(fvu_full), np.asarray(dfvu, dtype=float)])
    measured = {"fvu": fvu_full + delta, "delta_fvu": delta, "mass": np.full(delta.shape, 0.1)}
    return Unit(_spec(task, construction, 64, len(fvu_full)), {}, measured)


def test_copy_claims_read_the_headline_unit():
    paper = np.array(ex.PAPER_COPY_ACCURACY)
    cayley = _copy_unit(np.r_[0.975, np.full(7, 0.97)], "cayley")
    res = ex.CopyResults(
        grid={("orthogonal", 72): _copy_unit(paper), ("cayley", 72): cayley},
        sweep={}, alphas={0.9: {"accuracy": _copy_unit(paper).measured["accuracy"]},
                          0.8: {"accuracy": _copy_unit(np.ones(8)).measured["accuracy"]}},
        headline=("orthogonal", 72))
    claims = ex.copy_claims(res)
    assert claims["schur_rnn.copy_full_accuracy"].value == pytest.approx(1.0)
    assert claims["schur_rnn.copy_rr_accuracy"].value == pytest.approx(0.876)
    assert claims["schur_rnn.copy_cr_accuracy"].value == pytest.approx(0.639)
    assert claims["schur_rnn.copy_all_removed_accuracy"].value == pytest.approx(0.624)
    assert claims["schur_rnn.copy_rr_drop"].value == pytest.approx(0.124)
    assert claims["schur_rnn.copy_cr_drop"].value == pytest.approx(0.361)
    assert claims["schur_rnn.copy_cc_pairs_gap"] == pytest.approx(0.001)
    assert claims["schur_rnn.copy_cr_lowest"] is True
    assert claims["schur_rnn.table1_alphas_holding"] == 1
    assert claims["schur_rnn.copy_cayley_max_change"] == pytest.approx(0.005)


def test_neuro_claims_count_tasks_profiles_and_seed_spread():
    seven = np.ones((7, 2))
    free_cc = seven.copy()
    free_cc[0] = 0.0  # -T_CC is an epsilon-stabilizer of both seeds
    res = {
        ("flipflop", "orthogonal"): _neuro_unit("flipflop", "orthogonal", [0.01, 0.02], free_cc),
        ("flipflop", "cayley"): _neuro_unit("flipflop", "cayley", [0.01, 0.02], seven * 1e-7),
        ("sine", "orthogonal"): _neuro_unit("sine", "orthogonal", [0.05, 0.9], seven),  # median 0.475
        ("sine", "cayley"): _neuro_unit("sine", "cayley", [0.5, 0.5], seven * 2e-7),
        ("context", "orthogonal"): _neuro_unit("context", "orthogonal", [0.0, 0.1], free_cc * [1, 4]),
        ("context", "cayley"): _neuro_unit("context", "cayley", [0.0, 0.1], seven * 0),
    }
    claims = ex.neuro_claims(res)
    assert claims["schur_rnn.neuro_tasks_learned"] == 2
    assert claims["schur_rnn.neuro_cayley_max_dfvu"] == pytest.approx(2e-7)
    assert claims["schur_rnn.neuro_tasks_distinct_profiles"] == 2  # {-T_CC} twice, none on sine
    share = claims["schur_rnn.neuro_seed_dependent_share"]  # flipflop and context: every seed learned
    assert (share.value, share.n) == (0.0, 2)  # both units' seeds agree: -T_CC alone is free
    assert ex.neuro_levels(res)["neuro_seed_dfvu_spread"] == pytest.approx(3.0)  # context, seeds 1 vs 4
    fvu = [claims[f"schur_rnn.neuro_fvu_{t}"].value for t in ("flipflop", "sine", "context")]
    assert fvu == pytest.approx([0.015, 0.475, 0.05])  # the orthogonal units' median seeds


def _copy_results() -> ex.CopyResults:
    """A headline unit of 2 seeds (the paper's levels, and 0.04 below them on the first two ablations,
    0.1 below on the others; Schur masses 0.1 and 0.3; |R| 2 and 3; weights whose moduli / rho are
    1, 0.95, 0.5 and 1, 0.92, 0.7) and a dense normal unit of 3 seeds with full-model accuracy 0.6."""
    paper = np.array(ex.PAPER_COPY_ACCURACY)
    acc = np.stack([paper, paper - np.r_[0.04, 0.04, np.full(6, 0.1)]], axis=1)
    W_hh = np.stack([np.diag([2.0, -1.9, 1.0]), np.diag([-1.0, 0.92, 0.7])])
    head = Unit(_spec("copy", "orthogonal", 72, 2, share=0.5), {"W_hh": W_hh},
                {"accuracy": acc, "mass": np.tile([0.1, 0.3], (8, 1)), "r": np.array([2, 3])})
    grid = {("orthogonal", 72): head, ("normal", 72): _copy_unit(np.full(8, 0.6), "normal")}
    alphas = {0.8: {"accuracy": np.ones((8, 2)), "r": np.array([3, 3])}, 0.9: head.measured}
    return ex.CopyResults(grid=grid, sweep={}, alphas=alphas, headline=("orthogonal", 72))


def test_copy_units_table_has_a_row_per_unit_and_names_its_schedule():
    res = _copy_results()
    table = ex.copy_units_table(res)
    assert table["construction"].tolist() == ["dense orthogonal", "dense normal"]
    assert table["N_h"].tolist() == [72, 72] and table["seeds"].tolist() == [2, 3]
    assert table["replay accuracy (mean)"].tolist() == pytest.approx([0.98, 0.6])
    assert table["min over seeds"].tolist() == pytest.approx([0.96, 0.6])
    assert table["trained on"].tolist() == ["32-step replay, last 5 steps on 128", "32-step replay"]
    assert ex.best_other_accuracy(res) == pytest.approx(0.6)
    del res.grid[("normal", 72)]
    assert ex.best_other_accuracy(res) is None


def test_the_headline_tables_count_the_seeds_near_the_papers_levels():
    res = _copy_results()
    table = ex.headline_ablation_table(res)
    paper = np.array(ex.PAPER_COPY_ACCURACY)
    assert table["ablation"].tolist() == list(measures.SUBSET_LABELS)
    assert table["paper"].tolist() == list(ex.PAPER_COPY_ACCURACY)
    assert table["ours (mean)"].to_numpy() == pytest.approx(paper - np.r_[0.02, 0.02, np.full(6, 0.05)])
    assert table["ours (max)"].to_numpy() == pytest.approx(paper)
    assert table["ours (min)"].to_numpy() == pytest.approx(paper - np.r_[0.04, 0.04, np.full(6, 0.1)])
    assert table["seeds within 0.05"].tolist() == ["2 of 2"] * 2 + ["1 of 2"] * 6
    assert table["Schur mass removed"].to_numpy() == pytest.approx(np.full(8, 0.2))
    assert ex.copy_seed_levels(res) == {"copy_headline_seeds": 2, "copy_within_full": 2, "copy_within_cc": 2,
                                        "copy_within_rr": 1, "copy_within_cr": 1, "copy_within_all": 1}


def test_table1_has_a_column_per_alpha_and_the_split_levels_read_the_headline_seeds():
    res = _copy_results()
    table = ex.table1(res)
    assert table.columns.tolist() == ["alpha = 0.8", "alpha = 0.9"]
    assert table.index.tolist() == [*measures.SUBSET_LABELS, "|R| (mean)", "profile shape holds"]
    assert table["alpha = 0.8"].iloc[:8].tolist() == [1.0] * 8
    assert table.loc["|R| (mean)"].tolist() == [3.0, 2.5]
    # flat accuracy at 0.8 has no drops; the seed means at 0.9 keep the paper's shape
    assert table.loc["profile shape holds"].tolist() == [False, True]
    levels = ex.split_levels(res, 0.9)
    assert (levels["split_lo"], levels["split_hi"]) == pytest.approx((0.7, 0.92), rel=1e-12)
    assert levels["split_r"] == "2, 3"


def _neuro_units() -> ex.NeuroUnits:
    """Dense orthogonal flip-flop networks whose seeds both have -T_CC as their one epsilon-stabilizer,
    a Cayley flip-flop pair that changes nothing, and dense orthogonal sine networks that disagree
    (-T_RR free for seed 0 only); every unit with |R| 2 and 4 and diagonal blocks holding 90% and 70%
    of ||T||^2."""
    seven = np.ones((7, 2))
    free_cc, free_rr = seven.copy(), seven.copy()
    free_cc[0] = 0.0
    free_rr[1, 0] = 0.0
    res = {("flipflop", "orthogonal"): _neuro_unit("flipflop", "orthogonal", [0.01, 0.03], free_cc),
           ("flipflop", "cayley"): _neuro_unit("flipflop", "cayley", [0.02, 0.02], seven * 0),
           ("sine", "orthogonal"): _neuro_unit("sine", "orthogonal", [0.2, 0.4], free_rr)}
    for unit in res.values():
        unit.measured.update(r=np.array([2, 4]), parts=np.array([[0.9, 0.1, 0, 0], [0.7, 0.1, 0.1, 0.1]]))
    return res


def test_the_neuro_fvu_table_has_a_row_per_unit():
    table = ex.neuro_fvu_table(_neuro_units())
    assert table[["task", "construction"]].values.tolist() == [
        ["flipflop", "dense orthogonal"], ["flipflop", "Cayley"], ["sine", "dense orthogonal"]]
    assert table["seeds"].tolist() == [2, 2, 2]
    assert table["FVU (median)"].tolist() == pytest.approx([0.02, 0.02, 0.3])
    assert table["FVU (worst seed)"].tolist() == pytest.approx([0.03, 0.02, 0.4])
    assert table["paper's FVU"].tolist()[0::2] == [ex.PAPER_NEURO_FVU["flipflop"], ex.PAPER_NEURO_FVU["sine"]]
    assert pd.isna(table["paper's FVU"][1])  # the paper reports its dense orthogonal networks only
    assert table["|R| (mean)"].tolist() == [3.0] * 3
    assert table["coupling share of ||T||²"].tolist() == pytest.approx([0.2] * 3)


def test_the_stabilizer_table_and_the_neuro_levels_read_each_seed():
    res = _neuro_units()
    table = ex.stabilizer_table(res)
    assert table.index.tolist() == [("flipflop", "Cayley"), ("flipflop", "dense orthogonal"),
                                    ("sine", "dense orthogonal")]
    assert table.columns.tolist() == [0, 1]
    every = ", ".join(measures.SUBSET_LABELS[1:])
    assert table.values.tolist() == [[every, every], ["-T_CC", "-T_CC"], ["-T_RR", "none"]]
    assert ex.stabilizer_table(res, eps=1.0).values.tolist() == [[every, every]] * 3
    # the Cayley seeds, stabilized by every ablation, count in neither level
    assert ex.neuro_levels(res) == {"seed_dependent_units": 1, "flipflop_rr_free": "0 of 2",
                                    "flipflop_cc_free": "2 of 2", "neuro_seed_dfvu_spread": 0.0}


def test_target_variances_are_those_of_the_profiles_held_out_batch():
    cfg = ex.NeuroConfig.preset("ci", eval_batch=8, seed=5)
    assert ex.target_variances(cfg) == {t: measures.target_variance(t, seed=7, batch=8) for t in cfg.tasks}


def test_neuro_rollouts_take_the_first_dense_orthogonal_seed_without_any_coupling():
    rng = np.random.default_rng(0)
    res = {}
    for task, construction in (("flipflop", "orthogonal"), ("flipflop", "cayley"), ("sine", "orthogonal")):
        n_in, n_out = task_dims(task)
        weights = {"W_xh": rng.normal(0, 0.5, (2, 6, n_in)).astype(np.float32),
                   "W_hh": rng.normal(0, 0.5, (2, 6, 6)),
                   "W_hy": rng.normal(0, 0.5, (2, n_out, 6)).astype(np.float32)}
        res[(task, construction)] = Unit(_spec(task, construction, 6, 2), weights, {})
    rollouts = ex.neuro_rollouts(res, 0.9)
    assert list(rollouts) == ["flipflop", "sine"]
    for task, example in rollouts.items():
        expected = measures.example_rollout(res[(task, "orthogonal")].trained, task, ("RR", "CR", "CC"), 0.9)
        assert example.keys() == expected.keys()
        for name, value in expected.items():
            np.testing.assert_array_equal(example[name], value)


def test_the_paper_neuro_fvus_are_the_claims_paper_values():
    claims = load_claims()
    paper = {t: claims[f"schur_rnn.neuro_fvu_{t}"].paper_value for t in ex.PAPER_NEURO_FVU}
    assert paper == ex.PAPER_NEURO_FVU


def test_every_unit_is_scheduled_once(monkeypatch):
    """``run_all`` hands each unit of ``jobs`` to ``run_jobs`` once, and reads it back once."""
    scheduled, read = [], []
    monkeypatch.setattr(ex, "run_jobs", lambda jobs, desc: scheduled.extend(job.args[0] for job in jobs))

    def run_unit(spec, alpha, eval_batch):
        read.append(spec)
        seeds = spec.seeds
        measured = {"accuracy": np.ones((8, seeds)), "fvu": np.zeros((8, seeds)),
                    "delta_fvu": np.zeros((8, seeds)), "mass": np.ones((8, seeds))}
        return Unit(spec, {}, measured)

    monkeypatch.setattr(ex, "run_unit", run_unit)
    monkeypatch.setattr(ex, "profile_unit",
                        lambda spec, trained, alpha, eval_batch: {"accuracy": np.ones((8, spec.seeds))})
    claims = ex.run_all("ci")
    units = [job.args[0] for job in ex.jobs("ci")]
    assert len(set(units)) == len(units) == 4  # 1 copy unit, 3 tasks x 1 construction
    assert scheduled == units and read == units
    assert claims["schur_rnn.copy_full_accuracy"].value == 1.0


@pytest.mark.parametrize(("overrides", "message"), [
    (dict(headline=("orthogonal", 50)), "headline"), (dict(constructions=("dense",)), "dense"),
    (dict(alphas=(1.5,)), "alphas"), (dict(seeds=0), "seeds"), (dict(alpha=0.0), "alpha"),
    (dict(n_hiddens=()), "n_hiddens"), (dict(schedule="linear"), "linear"),
    (dict(full_replay_share=1.5), r"full_replay_share must be a number in \[0, 1\], got 1.5"),
    (dict(full_replay_for="grid"), r"full_replay_for.*'grid'.*\('headline', 'all'\)"),
    (dict(headline_seeds=0), "headline_seeds must be a positive integer, got 0")])
def test_copy_config_rejects_bad_settings(overrides, message):
    with pytest.raises(ValueError, match=message):
        ex.CopyConfig.preset("ci", **overrides)


@pytest.mark.parametrize("overrides", [dict(tasks=("copy",)), dict(tasks=("flipflop", "flipflop")),
                                       dict(n_hidden=-3), dict(eval_batch=0), dict(headline_seeds=0),
                                       dict(headline="normal", constructions=("orthogonal",))])
def test_neuro_config_rejects_bad_settings(overrides):
    with pytest.raises(ValueError):
        ex.NeuroConfig.preset("ci", **overrides)


def test_copy_specs_cover_the_grid_then_the_sweep():
    cfg = ex.CopyConfig.preset("book")
    specs = cfg.specs()
    assert [(s.construction, s.n_hidden) for s in specs[:12]] == [(c, n) for c in cfg.constructions
                                                                  for n in cfg.n_hiddens]
    assert [(s.construction, s.n_hidden) for s in specs[12:]] == [("orthogonal", 48), ("orthogonal", 80)]
    assert all(s.task == "copy" and s.train_replay == cfg.train_replay for s in specs)


def test_the_headline_unit_alone_ends_on_the_full_replay_unless_all_do():
    """The units the claims read (the headline one) train their last steps on the full replay with
    ``headline_seeds`` seeds; the others train on the short replay alone, or as the headline unit
    with ``full_replay_for="all"``."""
    cfg = ex.CopyConfig.preset("book")
    assert cfg.headline_seeds >= 10 and cfg.full_replay_share > 0
    by_unit = {(s.construction, s.n_hidden): s for s in cfg.specs()}
    head = by_unit.pop(cfg.headline)
    assert (head.seeds, head.full_replay_share) == (cfg.headline_seeds, cfg.full_replay_share)
    assert {(s.seeds, s.full_replay_share) for s in by_unit.values()} == {(cfg.seeds, 0.0)}
    assert ex.jobs("book")[0].args[0] == head  # the longest job starts first
    every = ex.CopyConfig.preset("book", full_replay_for="all")
    assert {s.full_replay_share for s in every.specs()} == {cfg.full_replay_share}
    (ci,) = ex.CopyConfig.preset("ci").specs()
    assert (ci.construction, ci.n_hidden, ci.full_replay_share) == (*cfg.headline, cfg.full_replay_share)
    assert all(s.full_replay_share == 0.0 for s in ex.NeuroConfig.preset("ci").specs())
    neuro = ex.NeuroConfig.preset("book")
    assert {(s.construction, s.seeds) for s in neuro.specs() if s.task == "sine"} == {
        (c, neuro.headline_seeds if c == neuro.headline else neuro.seeds) for c in neuro.constructions}
    with pytest.raises(ValueError, match="full_replay_share must be a number in"):
        ex.TrainSpec("copy", "orthogonal", 8, 1, 10, 4, 1e-3, 1.0, "cosine", 0, 4, 0, -0.5)
    with pytest.raises(ValueError, match="full_replay_share=0.5 needs a shorter train_replay"):
        ex.TrainSpec("copy", "orthogonal", 8, 1, 10, 4, 1e-3, 1.0, "cosine", 0, None, 0, 0.5)
