"""Zhong et al.'s shipped networks and sweep table (``modular_addition.zhong``): every network loads
into our model and computes his logits, our measures print his notebook's values on Models A and B,
and the claims' bands are his population's."""

import json
import math
import shutil

import numpy as np
import pytest
import torch

from interp_repro.core import Unit
from interp_repro.modular_addition import experiments as ex
from interp_repro.modular_addition import measures, zhong
from interp_repro.modular_addition.data import all_pairs
from interp_repro.modular_addition.topology import persistence
from interp_repro.reproduction.claims import load_claims


def _his_logits(state: dict, cfg: dict, tokens: torch.Tensor) -> torch.Tensor:
    """His one-layer transformer's last-position logits, in his layout, written from his paper's
    description: embed, add positions, attention rate * softmax + (1 - rate) with no mask, residual
    MLP, unembed."""
    x = state["embed.W_E"][:, tokens].permute(1, 2, 0) + state["pos_embed.W_pos"]
    W = {k.removeprefix("blocks.0."): v for k, v in state.items() if k.startswith("blocks.0.")}
    q, k, v = (torch.einsum("hed,bpd->bhpe", W[f"attn.W_{n}"], x) for n in "QKV")
    d_head = q.shape[-1]
    scores = torch.softmax(torch.einsum("bhqe,bhpe->bhqp", q, k) / math.sqrt(d_head), dim=-1)
    attn = cfg["attn_coeff"] * scores + (1 - cfg["attn_coeff"])
    z = torch.einsum("bhqp,bhpe->bqhe", attn, v).flatten(2)
    x = x + z @ W["attn.W_O"].T
    hidden = torch.relu(x @ W["mlp.W_in"].T + W["mlp.b_in"])
    x = x + hidden @ W["mlp.W_out"].T + W["mlp.b_out"]
    return (x @ state["unembed.W_U"])[:, -1]


@pytest.mark.parametrize("runid", zhong.NETWORKS)
def test_every_shipped_network_loads_and_gives_his_logits_on_every_pair(runid):
    path = zhong.path(runid)
    model = zhong.load(path)
    cfg = zhong.config(path)
    assert model.rate == cfg["attn_coeff"] and model.p == cfg["C"] == 59
    a, b, _ = all_pairs(model.p)
    with torch.no_grad():
        ours = model(a, b)[0]
        state = torch.load(path, map_location="cpu", weights_only=True)
        his = _his_logits(state, cfg, torch.stack([a, b], 1))
    scale = his.abs().max().item()
    assert scale > 1
    torch.testing.assert_close(ours, his, rtol=0, atol=1e-5 * scale)


@pytest.mark.parametrize(("runid", "why"), [("dy65ktpiij", "activation is 'GeLU'"),
                                            ("18c9ev5v5p", "its own vocabulary")])
def test_networks_our_model_cannot_represent_are_refused_in_one_line(runid, why):
    with pytest.raises(ValueError, match=why) as err:
        zhong.load(zhong.path(runid))
    assert "\n" not in str(err.value)


def test_bad_save_files_are_refused_in_one_line(tmp_path):
    with pytest.raises(ValueError, match="no shipped network .* 'nope'"):
        zhong.path("nope")
    alone = tmp_path / "model_x.pt"
    shutil.copy(zhong.path(zhong.MODEL_A), alone)
    with pytest.raises(ValueError, match="config_x.json beside it"):
        zhong.load(alone)
    cfg = json.loads(zhong.path(zhong.MODEL_A).with_name(f"config_{zhong.MODEL_A}.json").read_text())
    (tmp_path / "config_x.json").write_text(json.dumps(cfg | {"n_layers": 2}))
    with pytest.raises(ValueError, match="2 layers"):
        zhong.load(alone)
    (tmp_path / "config_x.json").write_text(json.dumps(cfg | {"funcs": "lambda x: (x[0]-x[1])%59"}))
    with pytest.raises(ValueError, match=r"not \(a \+ b\) mod p"):
        zhong.load(alone)
    (tmp_path / "config_x.json").write_text(json.dumps(cfg | {"d_model": 64}))
    with pytest.raises(ValueError, match="do not fit its config"):
        zhong.load(alone)
    (tmp_path / "config_x.json").write_text("{not json")
    with pytest.raises(ValueError, match="not a JSON config"):
        zhong.load(alone)
    for text in ("[1, 2]", json.dumps({k: v for k, v in cfg.items() if k != "d_model"})):
        (tmp_path / "config_x.json").write_text(text)
        with pytest.raises(ValueError, match="not a config of Zhong's: it lacks .*'d_model'"):
            zhong.load(alone)


@pytest.mark.parametrize("runid", [zhong.MODEL_A, zhong.MODEL_B])
def test_our_measures_print_his_notebook_values_on_models_a_and_b(runid):
    """His procedure: the correct logit for distance irrelevance, his 100 triples for gradient
    symmetricity; his notebook's values to the third decimal."""
    model = zhong.load(zhong.path(runid))
    grad_sym, dist_irr = zhong.NOTEBOOK[runid]
    correct, _ = measures.logit_tables(measures.tables(model)[1][0])
    assert measures.distance_irrelevance(correct) == pytest.approx(dist_irr, abs=5e-4)
    triples = zhong.notebook_triples(model.p)
    assert measures.gradient_symmetricity(model, triples)[0] == pytest.approx(grad_sym, abs=5e-4)


def test_notebook_triples_are_distinct_and_fixed():
    triples = zhong.notebook_triples(59)
    assert triples.shape == (100, 3) and triples.min() >= 0 and triples.max() < 59
    assert len({tuple(t) for t in triples}) == 100
    np.testing.assert_array_equal(triples, zhong.notebook_triples(59))
    assert not np.array_equal(triples, zhong.notebook_triples(59, seed=0))


def test_gradient_symmetricity_over_every_triple_is_the_mean_of_the_cosines():
    model = zhong.load(zhong.path(zhong.MODEL_B))
    cos = measures.gradient_cosines(model)
    assert cos.shape == (1, 59, 59, 59) and np.abs(cos).max() <= 1 + 1e-6
    assert measures.gradient_symmetricity(model)[0] == pytest.approx(cos.mean(), rel=1e-6)
    some = np.array([[0, 1, 2], [5, 5, 5], [58, 0, 3]])
    assert measures.gradient_symmetricity(model, some)[0] == pytest.approx(
        cos[0, some[:, 0], some[:, 1], some[:, 2]].mean(), rel=1e-6)
    with pytest.raises(ValueError, match="triples must be"):
        measures.gradient_symmetricity(model, [[0, 1, 59]])
    with torch.no_grad():
        model.W_U[0, 0, 0] = float("nan")
    with pytest.raises(ValueError, match="non-finite weights in \\['W_U'\\]"):
        measures.gradient_cosines(model)


def test_logit_tables_and_accuracy_on_a_small_case():
    p = 5
    logits = np.zeros((p, p, p))
    a, b = np.meshgrid(np.arange(p), np.arange(p), indexing="ij")
    np.put_along_axis(logits, ((a + b) % p)[..., None], 2.0, axis=-1)
    logits[..., 0] += 1.0  # class 0 is the top incorrect logit, except where it is correct
    correct, top = measures.logit_tables(logits)
    np.testing.assert_array_equal(correct, np.where((a + b) % p == 0, 3.0, 2.0))
    np.testing.assert_array_equal(top, np.where((a + b) % p == 0, 0.0, 1.0))
    assert measures.task_accuracy(logits) == 1.0
    logits[0, 0, 0] = -5.0  # now pair (0, 0) answers another class
    assert measures.task_accuracy(logits) == pytest.approx(1 - 1 / p**2)
    with pytest.raises(ValueError, match=r"\(p, p, p\)"):
        measures.logit_tables(np.zeros((5, 5, 4)))


def test_population_is_his_table_near_a_rate():
    table = zhong.sweep()
    assert len(table) == 2381 and table["attn_coeff"].between(0, 1).all()
    near0, near1 = zhong.population(0.0), zhong.population(1.0)
    assert len(near0) == 121 and len(near1) == 110
    assert near0["attn_coeff"].max() <= 0.05 and near1["attn_coeff"].min() >= 0.95
    low, q1, q3, high = zhong.quantiles(1.0, "grad_sym", (0.05, 0.25, 0.75, 0.95))
    assert low < q1 < near1["gradient_sim"].median() < q3 < high
    with pytest.raises(ValueError, match="rate"):
        zhong.population(1.5)


def test_zhong_claims_bands_are_where_a_median_of_his_networks_lands():
    """The Clock and Pizza claims hold our median of the paper scale's networks to where the median
    of as many of his networks at the same attention rate lands (``zhong.median_band``), the paper
    value his median; the alternative is the other algorithm's median, outside the band; and the
    claims are not checked where our networks train shorter than his."""
    claims = load_claims()
    n = ex.ModAddConfig.preset("paper").seeds
    for arch, rate in ex.ZHONG_RATES.items():
        other = 1.0 - rate
        for suffix in zhong.POPULATION_METRICS:
            claim = claims[f"modular_addition.{arch}_{suffix}"]
            band = zhong.median_band(rate, suffix, n)
            assert (claim.band.min, claim.band.max) == pytest.approx(band, abs=5e-5)
            [median] = zhong.quantiles(rate, suffix, (0.5,))
            assert claim.paper_value == pytest.approx(median, abs=5e-5)
            [clock_or_pizza] = zhong.quantiles(other, suffix, (0.5,))
            assert claim.alternative.value == pytest.approx(clock_or_pizza, abs=5e-5)
            assert set(claim.skipped) >= {"ci", "book"} and "20,000 steps" in claim.skipped["book"]
    eight = zhong.median_band(1.0, "grad_sym", 8)
    assert eight == pytest.approx((0.341, 0.564), abs=2e-3)  # the median-of-8 range, recomputed
    with pytest.raises(ValueError, match="positive integer"):
        zhong.median_band(1.0, "grad_sym", 0)


def test_algorithm_reference_points_are_models_a_and_b():
    assert measures.ZHONG_ALGORITHMS == {"pizza": zhong.NOTEBOOK[zhong.MODEL_A],
                                         "clock": zhong.NOTEBOOK[zhong.MODEL_B]}
    with pytest.raises(ValueError, match="finite"):
        measures.algorithm(float("nan"), float("nan"))


def test_population_tests_pass_his_own_networks_and_tell_a_shifted_sample():
    his = zhong.population(1.0)["gradient_sim"].to_numpy()
    shuffled = np.random.default_rng(0).permutation(his)
    bounds = zhong.quantiles(1.0, "grad_sym", (0.25, 0.75))
    rate = measures.median_in_range_rate(his, 8, bounds, draws=2000, seed=1)
    assert 0.8 < rate < 1.0
    assert measures.median_in_range_rate(his, 8, (0.9, 1.0), draws=2000, seed=1) == 0
    assert measures.median_in_range_rate(his, 8, bounds, draws=2000, seed=1) == rate
    assert measures.mann_whitney_p(shuffled[:20], shuffled[20:]) > 0.05
    assert measures.mann_whitney_p(shuffled[:20] + 0.5, shuffled[20:]) < 1e-6
    with pytest.raises(ValueError, match="finite"):
        measures.mann_whitney_p([np.nan], his)


def test_zhong_sides_leave_out_a_network_that_never_learned_the_task():
    def unit(runid, rate, accuracy):
        return Unit(ex.ZhongSpec(runid, 59, rate), {}, {"accuracy": np.array(accuracy)})

    units = [unit("a", 0.0, 1.0), unit("n", 0.033, 0.58), unit("m", 0.8, 1.0), unit("b", 1.0, 0.995),
             unit("q", 0.97, 1.0)]
    sides = ex.zhong_sides(units)
    assert [u.spec.runid for u in sides["uniform"]] == ["a"]
    assert [u.spec.runid for u in sides["learnable"]] == ["b", "q"]
    assert [u.spec.runid for u in ex.zhong_learned(units)] == ["a", "m", "b", "q"]


def test_analysis_reports_his_triples_from_the_one_set_of_cosines(monkeypatch):
    """``analyse`` with his notebook's triples prints his value, computing the cosines once; its H1
    diagram of the largest cluster is the one a separate run would give."""
    model = zhong.load(zhong.path(zhong.MODEL_B))
    calls = []
    cosines = measures.gradient_cosines
    monkeypatch.setattr(measures, "gradient_cosines", lambda m: calls.append(m) or cosines(m))
    measured = measures.analyse(model, min_cluster=5, max_clusters=1, n_landmarks=60,
                                triples=zhong.notebook_triples(model.p))
    assert len(calls) == 1
    assert float(measured["gradient_symmetricity_triples"]) == pytest.approx(zhong.NOTEBOOK[zhong.MODEL_B][0],
                                                                               abs=5e-4)
    assert "gradient_symmetricity_triples" not in measures.analyse(model, 5, 1, 60)
    # the largest cluster's H1, taken from its Betti run's diagrams, is what a run up to H1 alone gives
    largest = measures.largest_cluster(model, measured)
    np.testing.assert_array_equal(measured["h1"], persistence(largest, maxdim=1, n_landmarks=60)[1])
