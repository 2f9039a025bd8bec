"""Unit tests for interp_repro.core.estimate: a value over samples, with its interval."""

import json

import numpy as np
import pytest

from interp_repro.core.estimate import LEVEL, MIN_UNITS, Estimate


def test_a_share_has_the_exact_clopper_pearson_interval():
    share = Estimate.share([True] * 19 + [False] * 5, "clusters")
    assert (share.value, share.n, share.stat) == (19 / 24, 24, "share")
    assert share.interval == pytest.approx((0.5785, 0.9287), abs=1e-4)  # tables of the exact interval
    assert Estimate.share([True] * 5, "clusters").interval == pytest.approx((0.4782, 1.0), abs=1e-4)


@pytest.mark.parametrize("stat", ["mean", "median"])
def test_a_bootstrap_interval_is_seeded_and_holds_the_estimate(stat):
    samples = [0.51, 0.62, 0.48, 0.70, 0.55, 0.66]
    first, again = (getattr(Estimate, stat)(samples, "seeds") for _ in range(2))
    assert first == again  # the same samples always give the same interval
    low, high = first.interval
    assert min(samples) <= low <= first.value <= high <= max(samples)
    assert first.level == LEVEL


def test_fewer_than_five_units_give_no_interval_and_equal_samples_a_point():
    for few in (Estimate.mean([0.9914, 0.9897], "networks"), Estimate.median([0.4], "seeds"),
                Estimate.share([[True, True, False]] * 4, "clusters", of="networks")):
        assert few.interval is None and few.n_units < MIN_UNITS
        assert "too few units for an interval" in few.describe()
    assert Estimate.mean([1.0] * 5, "seeds").interval == (1.0, 1.0)


@pytest.mark.parametrize(("build", "samples", "match"), [
    (Estimate.mean, [], "at least one sample"),
    (Estimate.mean, [0.3, float("nan")], "finite samples"),
    (Estimate.median, [float("inf")], "finite samples"),
    (Estimate.share, [], "at least one sample"),
])
def test_no_sample_or_a_non_finite_one_is_refused(build, samples, match):
    with pytest.raises(ValueError, match=match):
        build(samples, "seeds")


def test_samples_to_decide_grow_as_the_estimate_nears_the_edge():
    mean = Estimate.mean([0.70, 0.74, 0.78, 0.72, 0.735], "seeds")  # 0.737, its interval about 0.72-0.76
    far, near = mean.samples_to_decide(0.75), mean.samples_to_decide(0.74)
    assert mean.n < far < near
    share = Estimate.share([True] * 11 + [False] * 19, "pairs")  # 0.367 against an edge at 1/2
    assert share.samples_to_decide(0.5) == pytest.approx(1.96**2 * (11 / 30) * (19 / 30) / (0.5 - 11 / 30)**2,
                                                         abs=1)
    assert Estimate.mean([0.5] * 5, "seeds").samples_to_decide(0.9) is None  # no spread to scale
    assert Estimate.mean([0.5, 0.6], "seeds").samples_to_decide(0.9) is None  # no interval
    assert share.samples_to_decide(11 / 30) is None


def test_an_estimate_round_trips_through_json_and_a_tampered_one_is_refused():
    for estimate in (Estimate.median([0.2, 0.3, 0.9], "seeds"), Estimate.share([True, False], "clusters"),
                     Estimate.mean([[0.2, 0.3], [0.5], [0.4, 0.1], [0.9], [0.6]], "clusters", of="networks"),
                     Estimate.pairs("median", [[1.0, 2.0], [3.0, 5.0]], "pairs", "networks")):
        data = json.loads(json.dumps(estimate.as_dict()))
        assert Estimate.from_dict(estimate.value, data) == estimate
    data = Estimate.mean([0.2, 0.4, 0.3, 0.3, 0.3], "seeds").as_dict()
    with pytest.raises(ValueError, match="not the mean of its samples"):
        Estimate.from_dict(0.35, data)
    with pytest.raises(ValueError, match="interval is two finite numbers around its value 0.9"):
        Estimate.from_dict(0.9, data)
    with pytest.raises(ValueError, match="one unit number"):
        Estimate.from_dict(0.3, {**data, "groups": [[0]], "of": "networks"})
    with pytest.raises(ValueError, match="an object with"):
        Estimate.from_dict(0.3, {**data, "extra": 1})
    with pytest.raises(ValueError, match="finite numbers"):
        Estimate.from_dict(0.3, {**data, "samples": [0.2, "x"]})
    with pytest.raises(ValueError, match="bools"):
        Estimate.from_dict(0.5, {**Estimate.share([True, False], "c").as_dict(), "samples": [1, 0]})


def test_describe_names_the_statistic_the_samples_and_the_interval():
    assert Estimate.share([True] * 20 + [False] * 4, "clusters").describe() == (
        "0.8333 (20 of 24 clusters; 95% CI 0.6262-0.9526)")
    assert Estimate.median([0.9914, 0.9897], "networks").describe().startswith("0.9906 (median of 2 networks")
    grouped = Estimate.share([[True, False, True]] * 3 + [[True] * 3] * 2, "clusters", of="networks")
    assert grouped.describe().startswith("0.8 (12 of 15 clusters in 5 networks; 95% CI")


def test_clusters_are_resampled_a_network_at_a_time():
    """Five networks of three clusters each: the clusters of one network move together, so the
    interval over networks is wider than the one that takes the 15 clusters for independent draws."""
    per_network = [[0.60, 0.61, 0.62], [0.90, 0.91, 0.92], [0.70, 0.71, 0.72], [0.80, 0.81, 0.82],
                   [0.95, 0.96, 0.97]]
    grouped = Estimate.mean(per_network, "clusters", of="networks")
    flat = Estimate.mean([c for n in per_network for c in n], "clusters")
    assert grouped.value == pytest.approx(flat.value) and (grouped.n_units, flat.n_units) == (5, 15)
    assert grouped.interval[1] - grouped.interval[0] > 1.5 * (flat.interval[1] - flat.interval[0])
    with pytest.raises(ValueError, match="one list per unit"):
        Estimate.mean([0.6, 0.7], "clusters", of="networks")


def test_pairs_are_resampled_by_both_sets_of_networks():
    matrix = np.add.outer(np.arange(6) * 0.01, np.arange(5) * 0.01) + 0.1
    pairs = Estimate.pairs("mean", matrix, "network pairs", "networks")
    assert pairs.n == 30 and pairs.n_units == 5 and pairs.resampled == "6 and 5 networks"
    assert pairs.value == pytest.approx(matrix.mean())
    assert pairs.interval[0] < pairs.value < pairs.interval[1]


def test_the_power_counts_how_often_an_alternative_would_be_told_apart():
    """Ten seeds near 0.9 against a band of at least 0.8: an alternative of 0.5 is told apart every
    time, one of 0.79 (inside the measured spread) rarely; one seed less than five, never."""
    estimate = Estimate.mean([0.88, 0.9, 0.92, 0.86, 0.94, 0.89, 0.91, 0.87, 0.93, 0.9], "seeds")

    def differs(e):
        return e.interval is not None and e.interval[1] < 0.8

    assert estimate.power(0.5, differs) == 1.0
    assert estimate.power(0.79, differs) < 0.5
    assert estimate.power(0.5, differs, n_units=4) == 0.0
    zero = Estimate.share([False] * 9, "units")  # a share of 0 against a floor of 0.01
    assert zero.power(0.0, lambda e: e.interval[1] < 0.01) == 0.0
    # the exact interval of 0 of n stops below 0.01 once 1 - 0.025 ** (1 / n) < 0.01, at n = 367
    assert 300 < zero.units_for_power(0.0, lambda e: e.interval[1] < 0.01) < 450
