"""The modular-addition chapters' tables: summaries of analysed networks, built from small stand-ins."""

from types import SimpleNamespace

import numpy as np
import pytest

from interp_repro.core import Unit
from interp_repro.modular_addition import experiments as ex
from interp_repro.modular_addition import measures


def _net(seed: int = 0, *, steps=(0, 100, 200), test_acc=(0.1, 1.0, 1.0), **measured) -> Unit:
    trained = {"steps": np.array(steps), "test_acc": np.array(test_acc)}
    return Unit(SimpleNamespace(p=7, seed=seed), trained, {k: np.asarray(v) for k, v in measured.items()})


def test_training_table_takes_the_worst_accuracy_and_the_median_first_step():
    nets = [_net(0), _net(1, test_acc=(0.1, 0.9, 1.0)), _net(2, test_acc=(0.1, 0.5, 0.97))]
    (row,) = ex.training_table({"uniform": nets})
    assert row == {"architecture": "uniform", "networks": 3, "final test accuracy (min)": pytest.approx(0.97),
                   "first step at 100% test (median)": row["first step at 100% test (median)"]}
    assert np.isnan(row["first step at 100% test (median)"])  # one network never gets there
    (row,) = ex.training_table({"uniform": nets[:2]})
    assert row["first step at 100% test (median)"] == 150


def test_metric_spread_gives_median_min_and_max_per_metric():
    nets = [_net(s, gradient_symmetricity=g, distance_irrelevance=d, distance_irrelevance_top_incorrect=t)
            for s, (g, d, t) in enumerate([(0.9, 0.2, 0.3), (0.5, 0.6, 0.7), (0.7, 0.4, 0.1)])]
    rows = {r["measure"]: r for r in ex.metric_spread({"learnable": nets})}
    assert list(rows) == list(ex.NETWORK_METRICS)
    assert (rows["gradient symmetricity"]["median"], rows["gradient symmetricity"]["min"],
            rows["gradient symmetricity"]["max"]) == pytest.approx((0.7, 0.5, 0.9))
    assert rows["distance irrelevance (top incorrect)"]["median"] == pytest.approx(0.3)


def test_algorithm_shares_count_each_network_by_its_nearest_example():
    pizza, clock = measures.ZHONG_ALGORITHMS["pizza"], measures.ZHONG_ALGORITHMS["clock"]
    nets = [_net(gradient_symmetricity=g, distance_irrelevance=d) for g, d in (pizza, clock, clock, clock)]
    shares = ex.algorithm_shares({"learnable": nets, "uniform": nets[:1]})
    assert shares == {"learnable": {"pizza": 0.25, "clock": 0.75}, "uniform": {"pizza": 1.0, "clock": 0.0}}


def test_length_report_counts_curves_settled_by_the_budget():
    lengths = (100, 1000, 10000)
    n = len(measures.NETWORK_SUMMARY)
    flat = np.full((2, 3, n), 0.5)  # two seeds, three lengths: every curve flat, settled from the start
    moving = flat.copy()
    moving[:, :2, 0] = 0.9  # gradient symmetricity settles only at the longest length
    report = ex.length_report({"uniform": flat, "learnable": moving}, lengths, budget=1000)
    assert report["curves"] == 2 * n
    assert report["settled_by_budget"] == 2 * n - 1
    assert report["settled"]["learnable"][0] == 10000
    assert report["final"]["learnable"]["gradient symmetricity"] == 0.5
    assert [m[:2] for m in report["moves"]] == [("uniform", "gradient symmetricity"),
                                                 ("uniform", "distance irrelevance"),
                                                 ("learnable", "gradient symmetricity"),
                                                 ("learnable", "distance irrelevance")]


def test_cluster_manifold_and_logit_tables_reduce_over_every_network():
    first = _net(n_clusters=3, cluster_sizes=[40, 20, 10], r2=[0.9, 0.8, 0.7],
                 pca=[[0.6, 0.35, 0.05, 0.0], [0.5, 0.3, 0.2, 0.0]], cka=[[0.9, 0.2, 0.1], [0.7, 0.4, 0.1]],
                 logit_betti=[(1, 1), (1, 0)], logit_betti_unit=[(1, 1), (1, 1)], logit_pizza=[0.1, 0.3])
    second = _net(n_clusters=5, cluster_sizes=[60, 5], r2=[0.6], pca=[[0.4, 0.3, 0.2, 0.1]],
                  cka=[[0.5, 0.6, 0.2]], logit_betti=[(1, 1)], logit_betti_unit=[(1, 0)], logit_pizza=[0.5])
    res = {"uniform": [first, second], "mlp_add": [second]}
    clusters = {r["architecture"]: r for r in ex.cluster_table(res)}
    assert clusters["uniform"]["clusters (median)"] == 4
    assert clusters["uniform"]["largest cluster (median neurons)"] == 50
    assert clusters["uniform"]["simple-neuron R² (median)"] == pytest.approx(0.75)
    manifolds = {r["architecture"]: r for r in ex.manifold_table(res)}
    assert manifolds["uniform"]["top-2 PCA share (median)"] == pytest.approx(0.8)
    assert manifolds["uniform"]["top-4 PCA share (median)"] == pytest.approx(1.0)
    assert manifolds["uniform"]["CKA with disc (mean)"] == pytest.approx(0.7)
    logits = ex.logit_table(res)
    assert list(logits) == ["uniform", "mlp_add", "all"]
    assert logits["uniform"]["circles (projection)"] == pytest.approx(2 / 3)
    assert logits["all"]["circles (phases alone)"] == pytest.approx(2 / 4)
    assert logits["all"]["radius ~ Pizza's (median r)"] == pytest.approx(0.4)


def test_topology_agreement_compares_each_way_with_full_rips():
    disc = (1, 0, 0)
    rows = [{"landmarks": disc, "alpha (top-4 PCA)": disc, "full Rips": disc, "full Rips (s)": 30.0},
            {"landmarks": (1, 1, 0), "alpha (top-4 PCA)": disc, "full Rips": disc, "full Rips (s)": 80.0}]
    assert ex.topology_agreement(rows) == {"clusters": 2, "landmarks": 0.5, "alpha": 1.0,
                                           "longest full Rips (s)": 80.0}
    with pytest.raises(ValueError, match="full_rips_clusters"):
        ex.topology_agreement([])


def test_pad_tests_run_every_pair_once_in_order():
    diagonal = [_net(phase_alignment=[[k, k] for k in range(7)] * 3)]
    spread = [_net(phase_alignment=[[k, (3 * k + 1) % 7] for k in range(7)] * 3)]
    rows = ex.pad_tests({"uniform": diagonal, "learnable": diagonal, "mlp_concat": spread}, n_permutations=50)
    assert [r["pair"] for r in rows] == [("uniform", "learnable"), ("uniform", "mlp_concat"),
                                         ("learnable", "mlp_concat")]
    assert rows[0]["permutation p"] > rows[1]["permutation p"]
