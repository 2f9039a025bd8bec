"""Seeded task generators for the recurrent networks (Draeger 2026, §4; task specs ours where noted).

Every generator returns ``(inputs, targets, mask)`` as float32 tensors of shapes (T, B, N_x),
(T, B, N_y) and (T, B): time first, then the batch. ``mask`` is 1 at the steps that count in the loss
and the metric, 0 elsewhere. Each draw takes a ``torch.Generator`` (see ``core.torch_generator``), so a
batch is a function of the seed alone.
"""

import torch

from interp_repro.core import check_nonnegative, check_positive_int, check_probability

Batch = tuple[torch.Tensor, torch.Tensor, torch.Tensor]

TASKS = ("copy", "flipflop", "sine", "context")
"""Names accepted by :func:`make_batch`."""

COPY_SYMBOLS = 8
COPY_DIM = 8
COPY_REPLAY = 128
"""Copy task defaults (Draeger 2026): s = 8 symbols in {-1, +1}^8, replayed for 128 steps."""

SINE_FREQUENCIES = 51
SINE_OMEGA_MIN, SINE_OMEGA_MAX = 0.1, 0.6
"""Sine-wave task (ours, after Sussillo and Barak 2013): 51 angular frequencies evenly spaced in
[0.1, 0.6] rad/step; frequency j (0-based) is cued by the static input level j / 51 + 0.25."""


def copy_batch(batch: int, generator: torch.Generator, *, n_symbols: int = COPY_SYMBOLS,
               dim: int = COPY_DIM, replay: int = COPY_REPLAY, go_cue: bool = False) -> Batch:
    """Cyclic copy task (Draeger 2026, §4): store ``n_symbols`` random symbols, then replay them.

    Steps 0..s-1 present symbols x_1..x_s in {-1, +1}^dim; the ``replay`` steps after that have zero
    symbol input, and the target at replay lag l = 1..replay is x_{((l - 1) mod s) + 1}. The mask
    covers the replay steps only. With ``go_cue`` (ours) an extra input channel is 1 at the first
    replay step and 0 elsewhere, so N_x = dim + 1; without it the drop to zero input is the cue.
    Shapes: (s + replay, B, dim [+ 1]), (s + replay, B, dim), (s + replay, B).
    """
    for name, value in (("batch", batch), ("n_symbols", n_symbols), ("dim", dim), ("replay", replay)):
        check_positive_int(name, value)
    s = n_symbols
    symbols = torch.randint(0, 2, (s, batch, dim), generator=generator).float().mul_(2).sub_(1)
    T = s + replay
    inputs = torch.zeros(T, batch, dim + int(go_cue))
    inputs[:s, :, :dim] = symbols
    if go_cue:
        inputs[s, :, dim] = 1.0
    targets = torch.zeros(T, batch, dim)
    lags = torch.arange(replay) % s
    targets[s:] = symbols[lags]
    mask = torch.zeros(T, batch)
    mask[s:] = 1.0
    return inputs, targets, mask


def flipflop_batch(batch: int, generator: torch.Generator, *, length: int = 100, n_bits: int = 3,
                   pulse_prob: float = 0.05) -> Batch:
    """3-bit flip-flop (Sussillo and Barak 2013); specs ours.

    Each of ``n_bits`` channels gets a pulse with probability ``pulse_prob`` per step, of random sign
    +-1 (0 otherwise). Output channel i holds the sign of channel i's last pulse, from the pulse step
    on, and is 0 before channel i's first pulse. Every step counts (mask all ones).
    """
    check_positive_int("batch", batch)
    check_positive_int("length", length)
    check_positive_int("n_bits", n_bits)
    p = check_probability("pulse_prob", pulse_prob)
    shape = (length, batch, n_bits)
    fire = torch.rand(shape, generator=generator) < p
    sign = torch.randint(0, 2, shape, generator=generator).float().mul_(2).sub_(1)
    inputs = torch.where(fire, sign, torch.zeros(()))
    targets = torch.empty(shape)
    state = torch.zeros(batch, n_bits)
    for t in range(length):
        state = torch.where(fire[t], sign[t], state)
        targets[t] = state
    return inputs, targets, torch.ones(length, batch)


def sine_frequencies() -> torch.Tensor:
    """The 51 angular frequencies (rad/step) of the sine-wave task, in input-level order (ours)."""
    return torch.linspace(SINE_OMEGA_MIN, SINE_OMEGA_MAX, SINE_FREQUENCIES)


def sine_input_level(index: torch.Tensor) -> torch.Tensor:
    """Static input level cueing frequency ``index`` (0..50): index / 51 + 0.25 (ours)."""
    return index.float() / SINE_FREQUENCIES + 0.25


def sine_batch(batch: int, generator: torch.Generator, *, length: int = 100) -> Batch:
    """Sine-wave generation (Sussillo and Barak 2013); specs ours.

    Each sequence draws a frequency index j uniformly from 0..50; the single input channel holds the
    level j / 51 + 0.25 at every step and the target is sin(omega_j t) for t = 1..length, with omega_j
    from :func:`sine_frequencies`. Every step counts.
    """
    check_positive_int("batch", batch)
    check_positive_int("length", length)
    index = torch.randint(0, SINE_FREQUENCIES, (batch,), generator=generator)
    inputs = sine_input_level(index).expand(length, batch).unsqueeze(-1).clone()
    t = torch.arange(1, length + 1, dtype=torch.float32).unsqueeze(1)
    targets = torch.sin(t * sine_frequencies()[index]).unsqueeze(-1)
    return inputs, targets, torch.ones(length, batch)


CONTEXT_COHERENCES = (-0.5, -0.25, -0.1, -0.05, 0.05, 0.1, 0.25, 0.5)
"""Signed mean evidence per step of each stream (ours, in the spirit of Mante et al. 2013)."""


def context_batch(batch: int, generator: torch.Generator, *, length: int = 100, noise: float = 1.0,
                  target: str = "integral") -> Batch:
    """Context-dependent integration (Mante et al. 2013); specs ours.

    Inputs (N_x = 4): two evidence streams c_i + noise * N(0, 1), with coherences c_i drawn
    independently from :data:`CONTEXT_COHERENCES`, then a one-hot context on channels 2-3 (channel
    2 + k cues stream k) held for the whole trial. ``target="integral"``: the output tracks the running
    mean-scaled integral (1 / length) sum_{tau <= t} u_k(tau) of the cued stream at every step;
    ``target="sign"``: only the last step counts, with target sign(c_k) of the cued stream.
    """
    check_positive_int("batch", batch)
    check_positive_int("length", length)
    noise = check_nonnegative("noise", noise)
    if target not in ("integral", "sign"):
        raise ValueError(f"unknown context target {target!r}: choose 'integral' or 'sign'")
    coh = torch.tensor(CONTEXT_COHERENCES)
    c = coh[torch.randint(0, len(coh), (batch, 2), generator=generator)]
    streams = c + noise * torch.randn(length, batch, 2, generator=generator)
    ctx = torch.randint(0, 2, (batch,), generator=generator)
    onehot = torch.nn.functional.one_hot(ctx, 2).float().expand(length, batch, 2)
    inputs = torch.cat([streams, onehot], dim=-1)
    cued = streams.gather(2, ctx.view(1, batch, 1).expand(length, batch, 1))
    if target == "integral":
        return inputs, cued.cumsum(0) / length, torch.ones(length, batch)
    targets = torch.zeros(length, batch, 1)
    targets[-1, :, 0] = torch.sign(c.gather(1, ctx.view(batch, 1))[:, 0])
    mask = torch.zeros(length, batch)
    mask[-1] = 1.0
    return inputs, targets, mask


_GENERATORS = {"copy": copy_batch, "flipflop": flipflop_batch, "sine": sine_batch, "context": context_batch}


def make_batch(task: str, batch: int, generator: torch.Generator, **options) -> Batch:
    """Draw one batch of ``task`` (one of :data:`TASKS`) with that task's keyword ``options``."""
    if task not in _GENERATORS:
        raise ValueError(f"unknown task {task!r}: choose one of {TASKS}")
    return _GENERATORS[task](batch, generator, **options)


def task_dims(task: str, **options) -> tuple[int, int]:
    """(N_x, N_y) of ``task`` with ``options``, read off a one-sequence batch."""
    inputs, targets, _ = make_batch(task, 1, torch.Generator().manual_seed(0), **options)
    return inputs.shape[-1], targets.shape[-1]

