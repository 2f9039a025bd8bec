"""Models, training and experiment plumbing of the modular-addition study (fast checks)."""

import math

import numpy as np
import pytest
import torch

from interp_repro.core import torch_generator
from interp_repro.modular_addition import experiments as ex
from interp_repro.modular_addition.data import all_pairs, check_modulus, split
from interp_repro.modular_addition.measures import gradient_symmetricity, tables
from interp_repro.modular_addition.model import ModAddNet
from interp_repro.modular_addition.train import train

SMALL = dict(d_model=8, n_heads=2, d_mlp=16)


@pytest.mark.parametrize("p", [2, 0, -5, 3.5, True])
def test_bad_modulus_is_rejected(p):
    with pytest.raises(ValueError, match="modulus"):
        check_modulus(p)


def test_pairs_and_split():
    a, b, y = all_pairs(5)
    assert torch.equal(a * 5 + b, torch.arange(25)) and torch.equal(y, (a + b) % 5)
    tr, te = split(7, 0.8, [0, 1])
    assert tr.shape == (2, 39) and te.shape == (2, 10)
    for k in range(2):
        assert sorted(tr[k].tolist() + te[k].tolist()) == list(range(49))
    assert not torch.equal(tr[0], tr[1])
    assert torch.equal(split(7, 0.8, [1])[0][0], tr[1])
    with pytest.raises(ValueError):
        split(3, 0.01, [0])


@pytest.mark.parametrize("arch", ["attention", "mlp_add", "mlp_concat"])
def test_the_reference_init_has_zhongs_scales_and_fan_in_its_own(arch):
    """Zhong et al.'s code: W_in N(0, 1/d_mlp), W_out N(0, 1/d_model), W_U N(0, 1/p), the rest
    N(0, 1/d_model); the fan_in init divides every matrix by its fan-in instead."""
    p, d, d_mlp = 59, 128, 512
    d_in = 2 * d if arch == "mlp_concat" else d
    d_unembed = d if arch == "attention" else d_mlp
    reference = ModAddNet(1, p, arch, torch_generator(0), d_model=d, d_mlp=d_mlp)
    fan_in = ModAddNet(1, p, arch, torch_generator(0), d_model=d, d_mlp=d_mlp, init="fan_in")
    expected = {"W_E": (d, d), "W_in": (d_mlp, d_in), "W_U": (p, d_unembed)}
    if arch == "attention":
        expected |= {"W_Q": (d, d), "W_O": (d, d), "W_out": (d, d_mlp)}
    for name, (ref_scale, fan_scale) in expected.items():
        for model, scale in ((reference, ref_scale), (fan_in, fan_scale)):
            std = getattr(model, name).std().item()
            assert std == pytest.approx(1 / math.sqrt(scale), rel=0.1), (name, std)
    with pytest.raises(ValueError, match="unknown init"):
        ModAddNet(1, p, arch, torch_generator(0), init="xavier")


@pytest.mark.parametrize("arch", ["attention", "mlp_add", "mlp_concat"])
def test_shapes(arch):
    model = ModAddNet(3, 7, arch, torch_generator(0), **SMALL)
    a, b, _ = all_pairs(7)
    logits, pre = model(a, b, return_preacts=True)
    assert logits.shape == (3, 49, 7) and pre.shape == (3, 49, 16)
    pre_t, logit_t = tables(model)
    assert pre_t.shape == (3, 7, 7, 16) and logit_t.shape == (3, 7, 7, 7)


def test_bad_settings_are_rejected():
    with pytest.raises(ValueError, match="rate"):
        ModAddNet(1, 7, "attention", torch_generator(0), rate=1.5, **SMALL)
    with pytest.raises(ValueError, match="model kind 'lstm'"):
        ModAddNet(1, 7, "lstm", torch_generator(0))
    with pytest.raises(ValueError, match="multiple"):
        ModAddNet(1, 7, "attention", torch_generator(0), d_model=10, n_heads=4, d_mlp=8)


def _naive_attention_logits(model: ModAddNet, a: int, b: int) -> torch.Tensor:
    """Both positions, explicit softmax over keys, read at the last position (instance 0)."""
    x = torch.stack([model.W_E[0, a] + model.W_pos[0, 0], model.W_E[0, b] + model.W_pos[0, 1]])
    out = torch.zeros_like(x)
    for h in range(model.W_Q.shape[1]):
        q, k, v = x @ model.W_Q[0, h], x @ model.W_K[0, h], x @ model.W_V[0, h]
        weights = model.rate * torch.softmax(q @ k.T / math.sqrt(q.shape[-1]), dim=-1) + (1 - model.rate)
        out = out + (weights @ v) @ model.W_O[0, h]
    r = x + out
    r = r + torch.relu(r @ model.W_in[0] + model.b_in[0, 0]) @ model.W_out[0] + model.b_out[0, 0]
    return r[-1] @ model.W_U[0]


@pytest.mark.parametrize("rate", [0.0, 0.3, 1.0])
def test_attention_matches_a_naive_two_position_transformer(rate):
    model = ModAddNet(1, 7, "attention", torch_generator(1), rate=rate, **SMALL)
    with torch.no_grad():
        model.b_in.normal_(generator=torch_generator(2))
        model.b_out.normal_(generator=torch_generator(3))
        fast = model(torch.tensor([3, 6]), torch.tensor([5, 0]))[0]
        for i, (a, b) in enumerate([(3, 5), (6, 0)]):
            torch.testing.assert_close(fast[i], _naive_attention_logits(model, a, b), atol=1e-5, rtol=1e-5)


def test_uniform_attention_ignores_queries_and_keys():
    model = ModAddNet(1, 7, "attention", torch_generator(0), rate=0.0, **SMALL)
    a, b, _ = all_pairs(7)
    before = model(a, b).detach()
    with torch.no_grad():
        model.W_Q.normal_(generator=torch_generator(5))
        model.W_K.normal_(generator=torch_generator(6))
    torch.testing.assert_close(model(a, b), before)


def test_training_is_deterministic_and_independent_of_stacking():
    kw = dict(steps=6, eval_every=2, **SMALL)
    one = train("attention", 7, [4], **kw, quiet=True)
    again = train("attention", 7, [4], **kw, quiet=True)
    both = train("attention", 7, [3, 4], **kw, quiet=True)
    np.testing.assert_array_equal(one.train_loss, again.train_loss)
    np.testing.assert_allclose(both.train_loss[:, 1], one.train_loss[:, 0], rtol=1e-4)
    assert one.steps.tolist() == [0, 2, 4, 6]
    assert one.train_loss[-1, 0] < one.train_loss[0, 0]


def test_a_checkpoint_is_the_network_of_that_many_steps(tmp_path, monkeypatch):
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path))
    kw = dict(steps=8, eval_every=2, **SMALL)
    long = train("attention", 7, [4], **kw, checkpoints=(4, 8), quiet=True)
    short = train("attention", 7, [4], **kw | dict(steps=4), quiet=True)
    for name, value in short.model.state_dict().items():
        np.testing.assert_array_equal(long.checkpoints[4][name], value.numpy())
    spec = ex.TrainSpec("learnable", 7, 4, 8, 1e-3, 2.0, 0.8, eval_every=2, **SMALL)
    specs = ex.train_lengths([spec], (4, 8))[0]
    model, curves = ex.train_or_load(specs[0])
    direct = ex._train([specs[0]], (4,))[0][4]
    np.testing.assert_array_equal(curves["train_loss"], direct["train_loss"])
    for name, value in model.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), direct[f"param.{name}"])
    with pytest.raises(ValueError, match="multiples of eval_every"):
        ex.train_lengths([spec], (3, 8))
    with pytest.raises(ValueError, match="beyond"):
        train("attention", 7, [4], **kw, checkpoints=(9,), quiet=True)


def test_stacked_networks_match_their_own_runs(tmp_path, monkeypatch):
    """The GPU path trains many networks per program; on the CPU the stacked numbers match the
    per-network ones up to float rounding."""
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path))
    specs = [ex.TrainSpec("uniform", 7, seed, 6, 1e-3, 2.0, 0.8, eval_every=2, **SMALL) for seed in (1, 2)]
    stacked = ex._train(specs, (2, 6))
    for spec, arrays in zip(specs, stacked, strict=True):
        alone = ex._train([spec], (2, 6))[0]
        for n in (2, 6):
            assert arrays[n].keys() == alone[n].keys()
            for name, value in alone[n].items():
                np.testing.assert_allclose(arrays[n][name], value, rtol=1e-4, atol=1e-6, err_msg=name)
    trained = ex.train_lengths(specs, (2, 6))
    assert [[s.steps for s in t] for t in trained] == [[2, 6], [2, 6]]
    np.testing.assert_allclose(ex.train_or_load(trained[1][1])[1]["train_loss"], stacked[1][6]["train_loss"])
    with pytest.raises(ValueError, match="seeds only"):
        ex._train([specs[0], ex.TrainSpec("learnable", 7, 3, 6, 1e-3, 2.0, 0.8, eval_every=2, **SMALL)], (6,))


def test_a_gpu_stacks_the_networks_and_the_cpu_runs_one_per_job(monkeypatch):
    cfg = ex.ModAddConfig.preset("paper", seeds=130)
    on_cpu = ex._jobs(cfg, views=True)
    assert len(on_cpu) == 4 * cfg.length_seeds + 4 * 130 + 4 - len(ex.FULL_RIPS_SKIPPED)  # + topology checks
    monkeypatch.setenv("INTERP_REPRO_DEVICE", "cuda")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    stacked = ex._jobs(cfg)
    heads = [job for job in stacked if len(job.args[2]) > 1]
    assert [len(job.args[1]) for job in heads] == [cfg.length_seeds] * 4
    assert heads[0].args[2] == cfg.lengths and heads[0].args[3] == "cuda"
    seeds = sorted(s.seed for job in stacked for s in job.args[1] if s.architecture == "uniform")
    assert seeds == list(range(130)) and max(len(job.args[1]) for job in stacked) == ex.STACK


def test_gradient_symmetricity_is_one_for_mlp_add():
    model = ModAddNet(2, 7, "mlp_add", torch_generator(0), **SMALL)
    np.testing.assert_allclose(gradient_symmetricity(model), 1.0, rtol=1e-5)
    concat = ModAddNet(1, 7, "mlp_concat", torch_generator(0), **SMALL)
    assert gradient_symmetricity(concat)[0] < 0.9


@pytest.mark.parametrize("overrides", [dict(architectures=("transformer",)), dict(p=2), dict(seeds=0),
                                       dict(min_cluster=0), dict(architectures=()), dict(train_frac=1.5),
                                       dict(weight_decay=-1.0),
                                       dict(architectures=("uniform", "uniform")), dict(lr=float("inf")),
                                       dict(lengths=()), dict(lengths=(1000, 500)), dict(lengths=(30,)),
                                       dict(length_seeds=0), dict(full_rips_clusters=-1),
                                       dict(full_rips_clusters=4), dict(full_rips_clusters=True)])
def test_config_rejects_bad_settings(overrides):
    with pytest.raises(ValueError):
        ex.ModAddConfig.preset("ci", **overrides)


def test_length_moves_reads_zhongs_metrics_towards_his_algorithms():
    """Summary columns are measures.NETWORK_SUMMARY: gradient symmetricity, distance irrelevance, ..."""
    width = len(ex.measures.NETWORK_SUMMARY)
    uniform = np.zeros((2, 3, width))
    uniform[:, :, 0] = [0.90, 0.95, 0.99]          # towards the Pizza's 0.99
    uniform[:, :, 1] = [0.30, 0.50, 0.60]          # away from the Pizza's 0.17
    learnable = np.zeros((1, 3, width))
    learnable[:, :, :2] = [[0.7, 0.7], [0.5, 0.8], [0.4, 0.85]]  # both towards the Clock
    moves = ex.length_moves({"uniform": uniform, "learnable": learnable, "mlp_add": uniform})
    assert [(a, m, nearer) for a, m, _, _, nearer in moves] == [
        ("uniform", "gradient symmetricity", True), ("uniform", "distance irrelevance", False),
        ("learnable", "gradient symmetricity", True), ("learnable", "distance irrelevance", True)]
    assert moves[1][2:4] == pytest.approx((0.30, 0.60))
    assert ex.length_moves({"mlp_add": uniform}) == []


def test_topology_check_agrees_with_the_analysis_where_both_use_every_point(tmp_path, monkeypatch):
    """With at least as many landmarks as points, the analysis's Rips runs on every point, so its
    Betti numbers must equal full Rips' (another library, with edge collapse); the check is cached."""
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path))
    cfg = ex.ModAddConfig.preset("ci", p=13, steps=100, lengths=(100,), seeds=1, d_model=16, n_heads=2,
                                 d_mlp=64, full_rips_clusters=2, min_cluster=2, n_landmarks=200)
    spec = cfg.spec("mlp_add", 0)
    check = ex.run_topology_check(cfg, spec)
    n = min(2, len(ex._unit(cfg, spec).measured["cluster_freqs"]))
    assert n >= 1 and check["full"].shape == check["alpha"].shape == (n, 3)
    np.testing.assert_array_equal(check["full"], check["landmarks"])
    assert (check["size"] >= cfg.min_cluster).all()
    assert ((check["pca4"] > 0) & (check["pca4"] <= 1 + 1e-9)).all()
    monkeypatch.setattr(ex, "full_rips_persistence", lambda *a, **k: pytest.fail("not read from the cache"))
    np.testing.assert_array_equal(ex.run_topology_check(cfg, spec)["full"], check["full"])


def test_training_flushes_denormals_only_while_it_trains(monkeypatch):
    """Long runs' gradients turn denormal once the loss is small (benchmarks/modular_addition_training.py
    measures the cost); the trainer flushes them to zero for its steps and puts the setting back."""
    seen = []

    def spy(flag):
        seen.append(flag)
        return real(flag)

    real = torch.set_flush_denormal
    monkeypatch.setattr(torch, "set_flush_denormal", spy)
    train("mlp_add", 7, [0], steps=2, d_model=8, d_mlp=16, quiet=True)
    assert seen == [True, False]
