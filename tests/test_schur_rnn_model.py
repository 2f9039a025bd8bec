"""Tasks, model constructions and training of the Schur-RNN study (fast checks)."""

import numpy as np
import pytest
import torch

from interp_repro.core import cpu_threads, torch_generator
from interp_repro.schur_rnn import train as train_module
from interp_repro.schur_rnn.data import (
    TASKS,
    context_batch,
    copy_batch,
    flipflop_batch,
    make_batch,
    sine_batch,
    sine_frequencies,
    task_dims,
)
from interp_repro.schur_rnn.model import RecurrentNet
from interp_repro.schur_rnn.train import evaluate, full_replay_steps, train


@pytest.fixture(autouse=True)
def one_thread():
    """Train on one thread, as cached training does (``core.cached``): on a busy machine a second
    thread waiting on these small tensors slows each step down many times."""
    with cpu_threads(1):
        yield


@pytest.mark.parametrize("task, dims", [("copy", (8, 8)), ("flipflop", (3, 3)), ("sine", (1, 1)),
                                        ("context", (4, 1))])
def test_task_shapes_and_determinism(task, dims):
    a = make_batch(task, 5, torch_generator(3))
    b = make_batch(task, 5, torch_generator(3))
    c = make_batch(task, 5, torch_generator(4))
    inputs, targets, mask = a
    assert inputs.shape[1:] == (5, dims[0]) and targets.shape[1:] == (5, dims[1])
    assert mask.shape == inputs.shape[:2]
    assert task_dims(task) == dims
    for x, y in zip(a, b, strict=True):
        assert torch.equal(x, y)
    assert not torch.equal(a[0], c[0]) or not torch.equal(a[1], c[1])


def test_copy_targets_replay_cyclically():
    inputs, targets, mask = copy_batch(4, torch_generator(0), replay=20)
    assert inputs.shape == (28, 4, 8)
    assert torch.equal(mask[:8], torch.zeros(8, 4)) and torch.equal(mask[8:], torch.ones(20, 4))
    assert torch.equal(inputs[8:], torch.zeros(20, 4, 8))
    assert set(inputs[:8].unique().tolist()) == {-1.0, 1.0}
    for lag in range(1, 21):
        assert torch.equal(targets[8 + lag - 1], inputs[(lag - 1) % 8])
    cued, _, _ = copy_batch(4, torch_generator(0), replay=20, go_cue=True)
    assert cued.shape[-1] == 9 and cued[:, :, 8].sum() == 4 and torch.all(cued[8, :, 8] == 1)


def test_flipflop_holds_last_pulse_sign():
    inputs, targets, mask = flipflop_batch(6, torch_generator(2), length=200, pulse_prob=0.1)
    assert torch.equal(mask, torch.ones(200, 6))
    x, y = inputs.numpy(), targets.numpy()
    for b in range(6):
        for i in range(3):
            last = 0.0
            for t in range(200):
                if x[t, b, i] != 0:
                    last = x[t, b, i]
                assert y[t, b, i] == last


def test_sine_and_context_targets():
    inputs, targets, _ = sine_batch(4, torch_generator(0), length=30)
    index = torch.round((inputs[0, :, 0] - 0.25) * 51).long()
    t = torch.arange(1, 31, dtype=torch.float32).unsqueeze(1)
    assert torch.allclose(targets[:, :, 0], torch.sin(t * sine_frequencies()[index]))
    assert len(sine_frequencies()) == 51
    inputs, targets, mask = context_batch(8, torch_generator(0), length=10)
    ctx = inputs[0, :, 2:].argmax(-1)
    cued = inputs[:, torch.arange(8), ctx]
    assert torch.allclose(targets[:, :, 0], cued.cumsum(0) / 10)
    _, _, mask = context_batch(8, torch_generator(0), length=10, target="sign")
    assert mask.sum() == 8 and mask[-1].sum() == 8


def test_bad_task_arguments_raise():
    with pytest.raises(ValueError, match="unknown task 'nope'"):
        make_batch("nope", 4, torch_generator(0))
    with pytest.raises(ValueError, match="batch must be a positive integer, got 0"):
        copy_batch(0, torch_generator(0))
    with pytest.raises(ValueError, match="pulse_prob must be a number in"):
        flipflop_batch(2, torch_generator(0), pulse_prob=1.5)
    with pytest.raises(ValueError, match="unknown context target 'mean'"):
        context_batch(2, torch_generator(0), target="mean")
    assert set(TASKS) == {"copy", "flipflop", "sine", "context"}


def test_cayley_matrix_is_normal_and_conjugate_of_D():
    model = RecurrentNet(3, 8, 12, 8, "cayley", torch_generator(0), dtype=torch.float64)
    W = model.recurrent_matrix().detach()
    Q, D = (x.detach() for x in model.cayley_factors())
    eye = torch.eye(12, dtype=torch.float64)
    assert torch.allclose(Q @ Q.transpose(1, 2), eye.expand(3, 12, 12), atol=1e-12)
    assert torch.allclose(W, Q @ D @ Q.transpose(1, 2), atol=1e-12)
    WWt, WtW = W @ W.transpose(1, 2), W.transpose(1, 2) @ W
    assert (WWt - WtW).abs().max() < 1e-10
    # D is block-diagonal: nothing outside the 2x2 diagonal blocks.
    block = torch.block_diag(*[torch.ones(2, 2)] * 6).bool()
    assert torch.all(D[:, ~block] == 0)


def test_orthogonal_init_is_orthogonal_and_default_is_bounded():
    model = RecurrentNet(2, 8, 16, 8, "orthogonal", torch_generator(0), dtype=torch.float64)
    W = model.recurrent_matrix().detach()
    assert torch.allclose(W @ W.transpose(1, 2), torch.eye(16, dtype=torch.float64).expand(2, 16, 16),
                          atol=1e-12)
    default = RecurrentNet(2, 8, 16, 8, "default", torch_generator(0)).recurrent_matrix().detach()
    assert default.abs().max() <= 16 ** -0.5
    normal = RecurrentNet(2, 8, 16, 8, "normal", torch_generator(0), dtype=torch.float64)
    Wn = normal.recurrent_matrix().detach()
    assert torch.allclose(Wn @ Wn.transpose(1, 2), Wn.transpose(1, 2) @ Wn, atol=1e-12)


def test_rollout_with_own_matrix_equals_forward_and_matches_a_loop():
    model = RecurrentNet(2, 8, 10, 8, "default", torch_generator(1), dtype=torch.float64)
    inputs, _, _ = copy_batch(3, torch_generator(0), replay=5)
    with torch.no_grad():
        out = model(inputs)
        assert torch.equal(model.rollout(model.recurrent_matrix(), inputs), out)
        k = 1
        h = torch.zeros(3, 10, dtype=torch.float64)
        for t in range(inputs.shape[0]):
            h = torch.tanh(inputs[t].double() @ model.W_xh[k].T + h @ model.W_hh[k].T)
            assert torch.allclose(out[k, t], h @ model.W_hy[k].T, atol=1e-12)
        zero = model.rollout(torch.zeros(2, 10, 10), inputs)
        assert torch.allclose(zero[0, 0], out[0, 0]) and not torch.allclose(zero[0, -1], out[0, -1])


def test_bad_model_arguments_raise():
    with pytest.raises(ValueError, match="unknown construction 'unitary'"):
        RecurrentNet(1, 8, 8, 8, "unitary", torch_generator(0))
    with pytest.raises(ValueError, match="n_hidden must be a positive integer"):
        RecurrentNet(1, 8, 0, 8, "default", torch_generator(0))
    model = RecurrentNet(2, 8, 8, 8, "default", torch_generator(0))
    with pytest.raises(ValueError, match=r"W_hh must have shape \(2, 8, 8\)"):
        model.rollout(torch.zeros(8, 8), torch.zeros(3, 1, 8))
    with pytest.raises(ValueError, match="inputs must be"):
        model(torch.zeros(3, 1, 5))
    with pytest.raises(ValueError, match="needs the 'cayley' construction"):
        model.cayley_factors()


@pytest.mark.parametrize("construction", ["orthogonal", "cayley"])
def test_tiny_training_lowers_the_loss(construction):
    options = {"n_symbols": 2, "dim": 2, "replay": 16}
    result = train("copy", construction, 16, seeds=2, steps=60, seed=0, batch=16, lr=1e-2, warmup=0,
                   train_replay=8, task_options=options, quiet=True)
    assert result.curve.shape == (60, 2)
    assert np.all(result.curve[-10:].mean(0) < result.curve[:10].mean(0))
    # the held-out scores are those of the returned weights on sequences from seed + 2
    np.testing.assert_array_equal(result.W_hh, result.model.recurrent_matrix().detach().numpy())
    loss, acc = evaluate(result.model, "copy", seed=2, task_options=options)
    np.testing.assert_array_equal(loss, result.loss)
    np.testing.assert_array_equal(acc, result.accuracy)
    # without recurrence the state is zero during the replay (zero input): outputs 0, so MSE 1 on the
    # +-1 targets and no sign right
    loss, acc = evaluate(result.model, "copy", seed=5, batch=8, task_options=options,
                         W_hh=torch.zeros(2, 16, 16))
    np.testing.assert_array_equal(loss, [1.0, 1.0])
    np.testing.assert_array_equal(acc, [0.0, 0.0])


@pytest.mark.parametrize(("share", "short"), [(0.0, 8), (0.25, 6), (0.5, 4), (1.0, 0)])
def test_the_last_share_of_the_steps_trains_on_the_full_replay(monkeypatch, share, short):
    """``full_replay_share`` ends training on the evaluated replay: the first steps draw copy
    batches with ``train_replay``, the last ones with the task's replay; evaluation uses the latter."""
    replays = []

    def recording(task, batch, generator, **options):
        replays.append(options["replay"])
        return make_batch(task, batch, generator, **options)

    monkeypatch.setattr(train_module, "make_batch", recording)
    options = {"n_symbols": 2, "dim": 2, "replay": 12}
    train("copy", "orthogonal", 8, seeds=1, steps=8, seed=0, batch=4, warmup=0, train_replay=4,
          full_replay_share=share, task_options=options, eval_batch=4, quiet=True)
    assert replays == [4] * short + [12] * (8 - short) + [12]  # 8 training steps, then the held-out batch
    assert full_replay_steps(8, share) == 8 - short
    assert full_replay_steps(6000, 0.25) == 1500


def test_bad_training_arguments_raise():
    with pytest.raises(ValueError, match=r"unknown schedule \['step'\]"):
        train("copy", "default", 8, seeds=1, steps=1, seed=0, schedule="step")
    with pytest.raises(ValueError, match="train_replay applies to the copy task only"):
        train("sine", "default", 8, seeds=1, steps=1, seed=0, train_replay=4)
    with pytest.raises(ValueError, match="lr must be a finite number > 0, got -1"):
        train("copy", "default", 8, seeds=1, steps=1, seed=0, lr=-1)
    with pytest.raises(ValueError, match=r"full_replay_share must be a number in \[0, 1\], got 1.5"):
        train("copy", "default", 8, seeds=1, steps=1, seed=0, train_replay=4, full_replay_share=1.5)
    with pytest.raises(ValueError, match="full_replay_share=0.25 needs a shorter train_replay"):
        train("copy", "default", 8, seeds=1, steps=1, seed=0, full_replay_share=0.25)


def test_training_on_a_missing_gpu_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="no CUDA GPU"):
        train("flipflop", "orthogonal", 4, seeds=1, steps=1, seed=0, device="cuda", quiet=True)
    with pytest.raises(ValueError, match="unknown device"):
        train("flipflop", "orthogonal", 4, seeds=1, steps=1, seed=0, device="tpu", quiet=True)
