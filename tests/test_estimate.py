"""Unit tests for interp_repro.core.estimate: a value over samples, with its interval."""

import json

import pytest

from interp_repro.core.estimate import LEVEL, Estimate


def test_a_share_has_the_exact_clopper_pearson_interval():
    share = Estimate.share([True] * 19 + [False] * 5, "clusters")
    assert (share.value, share.n, share.stat) == (19 / 24, 24, "share")
    assert share.interval == pytest.approx((0.5785, 0.9287), abs=1e-4)  # tables of the exact interval
    assert Estimate.share([True] * 3, "clusters").interval == pytest.approx((0.2924, 1.0), abs=1e-4)


@pytest.mark.parametrize("stat", ["mean", "median"])
def test_a_bootstrap_interval_is_seeded_and_holds_the_estimate(stat):
    samples = [0.51, 0.62, 0.48, 0.70, 0.55, 0.66]
    first, again = (getattr(Estimate, stat)(samples, "seeds") for _ in range(2))
    assert first == again  # the same samples always give the same interval
    low, high = first.interval
    assert min(samples) <= low <= first.value <= high <= max(samples)
    assert first.level == LEVEL


def test_two_seeds_give_their_range_and_one_seed_or_equal_seeds_a_point():
    assert Estimate.mean([0.9914, 0.9897], "networks").interval == pytest.approx((0.9897, 0.9914))
    assert Estimate.median([0.4], "seeds").interval == (0.4, 0.4)
    assert Estimate.mean([1.0, 1.0, 1.0], "seeds").interval == (1.0, 1.0)


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
    mean = Estimate.mean([0.70, 0.74, 0.78, 0.72], "seeds")  # 0.735, its interval about 0.71-0.76
    far, near = mean.samples_to_decide(0.75), mean.samples_to_decide(0.74)
    assert mean.n < far < near
    share = Estimate.share([True] * 11 + [False] * 19, "pairs")  # 0.367 against an edge at 1/2
    assert share.samples_to_decide(0.5) == pytest.approx(1.96**2 * (11 / 30) * (19 / 30) / (0.5 - 11 / 30)**2,
                                                         abs=1)
    assert Estimate.mean([0.5, 0.5], "seeds").samples_to_decide(0.9) is None  # no spread to scale
    assert share.samples_to_decide(11 / 30) is None


def test_an_estimate_round_trips_through_json_and_a_tampered_one_is_refused():
    for estimate in (Estimate.median([0.2, 0.3, 0.9], "seeds"), Estimate.share([True, False], "clusters")):
        data = json.loads(json.dumps(estimate.as_dict()))
        assert Estimate.from_dict(estimate.value, data) == estimate
    data = Estimate.mean([0.2, 0.4], "seeds").as_dict()
    with pytest.raises(ValueError, match="not the mean of its samples"):
        Estimate.from_dict(0.35, data)
    with pytest.raises(ValueError, match="interval is two finite numbers around its value 0.9"):
        Estimate.from_dict(0.9, data)
    with pytest.raises(ValueError, match="exactly"):
        Estimate.from_dict(0.3, {**data, "extra": 1})
    with pytest.raises(ValueError, match="finite numbers"):
        Estimate.from_dict(0.3, {**data, "samples": [0.2, "x"]})
    with pytest.raises(ValueError, match="bools"):
        Estimate.from_dict(0.5, {**Estimate.share([True, False], "c").as_dict(), "samples": [1, 0]})


def test_describe_names_the_statistic_the_samples_and_the_interval():
    assert Estimate.share([True] * 20 + [False] * 4, "clusters").describe() == (
        "0.8333 (20 of 24 clusters; 95% CI 0.6262-0.9526)")
    assert Estimate.median([0.9914, 0.9897], "networks").describe().startswith("0.9906 (median of 2 networks")
