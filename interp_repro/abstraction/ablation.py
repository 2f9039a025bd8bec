"""Local GELU ablation in a small residual GELU network trained here (after Yang, Saxe, Latham 2026).

The paper replaces GELU by the identity in one block of pretrained models (DINOv3, Gemma), without
retraining, and reports that the abstraction score and the cross-context linear-probe accuracy of that
block's output go up. Those models cannot be downloaded here, so we train our own GELU network: a
residual MLP whose blocks are x + W2 GELU(W1 LayerNorm(x)), on two-factor data
(:func:`~interp_repro.abstraction.data.two_factor_data`) with input inverse SNR ``nu_x`` and isotropic
within-class noise. The task (our choice) is the 4-way class (s, c), trained with cross-entropy and
full-batch Adam: a target whose class kernel is flat (nu_y = 1), so it does not itself ask for abstract
representations. Scores are measured on held-out samples of the same classes.
"""

import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn.functional import cross_entropy, gelu

from interp_repro.abstraction.data import TwoFactorData, two_factor_data
from interp_repro.abstraction.theory import abstraction_score
from interp_repro.core import check_positive_int, progress, torch_generator

PROBE_CONCEPTS = {"shape": (0, 1), "colour": (1, 0)}
"""(label column probed, label column that sets the context) for each concept."""


@dataclass(frozen=True)
class GeluNetConfig:
    """Data, model and training settings of the GELU ablation (defaults: 5 seeds in a few seconds)."""

    nu_x: float = 0.5
    """Input inverse SNR lambda_SC / lambda_S of the class means."""
    noise_x: float = 0.3
    """Within-class noise sd per input coordinate (the Bayes 4-way accuracy is then about 0.96)."""
    n_per_class: int = 64
    """Training samples per class; as many again per class are held out for the measurements."""
    d_in: int = 16
    d_model: int = 32
    d_hidden: int = 64
    n_blocks: int = 3
    lr: float = 3e-3
    """Adam learning rate (full batch)."""
    steps: int = 300

    def __post_init__(self):
        for name in ("n_per_class", "d_in", "d_model", "d_hidden", "n_blocks", "steps"):
            check_positive_int(name, getattr(self, name))
        if not (math.isfinite(self.lr) and self.lr > 0):
            raise ValueError(f"lr must be a finite number > 0, got {self.lr!r}")


class Block(nn.Module):
    """Residual block x + W2 GELU(W1 LayerNorm(x)); ``ablate=True`` replaces GELU by the identity."""

    def __init__(self, d_model: int, d_hidden: int):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.fc1 = nn.utils.skip_init(nn.Linear, d_model, d_hidden)
        self.fc2 = nn.utils.skip_init(nn.Linear, d_hidden, d_model)

    def forward(self, x: torch.Tensor, ablate: bool = False) -> torch.Tensor:
        h = self.fc1(self.norm(x))
        return x + self.fc2(h if ablate else gelu(h))


class ResidualGeluMLP(nn.Module):
    """Linear embedding, ``n_blocks`` residual GELU blocks, LayerNorm and a 4-way linear head."""

    def __init__(self, cfg: GeluNetConfig, seed: int):
        super().__init__()
        self.embed = nn.utils.skip_init(nn.Linear, cfg.d_in, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg.d_model, cfg.d_hidden) for _ in range(cfg.n_blocks))
        self.norm = nn.LayerNorm(cfg.d_model)
        self.head = nn.utils.skip_init(nn.Linear, cfg.d_model, 4)
        gen = torch_generator(seed)
        with torch.no_grad():
            for module in self.modules():
                if isinstance(module, nn.Linear):  # N(0, 1 / fan_in) weights, zero biases
                    fan_in = module.weight.shape[1]
                    module.weight.copy_(torch.randn(module.weight.shape, generator=gen) / math.sqrt(fan_in))
                    module.bias.zero_()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.embed(x)
        for block in self.blocks:
            h = block(h)
        return self.head(self.norm(h))


@dataclass
class GeluNet:
    """A trained network and its held-out evaluation samples."""

    model: ResidualGeluMLP
    X_test: np.ndarray
    """(4 n, d_in) held-out inputs, grouped by class."""
    labels_test: np.ndarray
    """(4 n, 2) their (s, c) labels."""
    test_accuracy: float
    """4-way accuracy on the held-out samples."""


def _split(data: TwoFactorData, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Boolean masks of the first n samples of each class (training) and the rest (held out)."""
    first = (np.arange(data.labels.shape[0]) % data.n_per_class) < n
    return first, ~first


def train_gelu_net(cfg: GeluNetConfig, seed: int) -> GeluNet:
    """Draw the data (``seed``), then train the network from a ``seed`` init with full-batch Adam."""
    n = cfg.n_per_class
    # the task is the class index; the regression targets two_factor_data also draws are not used
    data = two_factor_data(cfg.nu_x, 0.0, 2 * n, cfg.d_in, 4, seed, noise_x=cfg.noise_x)
    train, test = _split(data, n)
    X_train, X_test = (torch.as_tensor(data.X[m], dtype=torch.float32) for m in (train, test))
    y_train, y_test = (torch.as_tensor(data.class_index[m]) for m in (train, test))
    model = ResidualGeluMLP(cfg, seed)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, foreach=True)
    for _ in range(cfg.steps):
        opt.zero_grad()
        cross_entropy(model(X_train), y_train).backward()
        opt.step()
    with torch.no_grad():
        accuracy = (model(X_test).argmax(-1) == y_test).double().mean().item()
    return GeluNet(model=model, X_test=data.X[test], labels_test=data.labels[test], test_accuracy=accuracy)


@torch.no_grad()
def block_representations(model: ResidualGeluMLP, X, ablate_block: int | None = None) -> np.ndarray:
    """(n_blocks, N, d_model) residual stream after every block, GELU -> identity in ``ablate_block``.

    The ablation acts at evaluation only (no retraining); blocks before ``ablate_block`` are unchanged,
    later ones see the changed stream.
    """
    n_blocks = len(model.blocks)
    if ablate_block is not None and not (isinstance(ablate_block, int) and 0 <= ablate_block < n_blocks):
        raise ValueError(f"ablate_block must be None or a block index in 0..{n_blocks - 1}, "
                         f"got {ablate_block!r}")
    h = model.embed(torch.as_tensor(X, dtype=torch.float32))
    stream = []
    for i, block in enumerate(model.blocks):
        h = block(h, ablate=i == ablate_block)
        stream.append(h)
    return torch.stack(stream).numpy()


def probe_transfer(reps, labels, concept: str = "shape") -> float:
    """Cross-context linear-probe accuracy for ``concept`` (after Yang, Saxe, Latham 2026).

    For shape: a least-squares probe (targets s = +-1, unpenalised intercept, minimum-norm weights) is
    fitted on the colour = +1 samples and tested on the colour = -1 ones, and vice versa; returns the
    mean of the two accuracies. 1 when the concept is coded the same way in both contexts; 0 when it
    flips (anti-abstract).
    """
    if concept not in PROBE_CONCEPTS:
        raise ValueError(f"unknown concept {concept!r}: choose one of {', '.join(PROBE_CONCEPTS)}")
    reps, labels = np.asarray(reps, dtype=np.float64), np.asarray(labels)
    if reps.ndim != 2 or labels.shape != (reps.shape[0], 2):
        raise ValueError(f"reps must be (N, d) and labels (N, 2), got {reps.shape} and {labels.shape}")
    col, ctx = PROBE_CONCEPTS[concept]
    accuracies = []
    for side in (1, -1):
        fit, test = labels[:, ctx] == side, labels[:, ctx] == -side
        if len(np.unique(labels[fit, col])) < 2 or not test.any():
            raise ValueError(f"probe_transfer needs both values of {concept} in both contexts")
        x_mean, y_mean = reps[fit].mean(0), labels[fit, col].mean()
        w = np.linalg.lstsq(reps[fit] - x_mean, labels[fit, col] - y_mean, rcond=None)[0]
        prediction = y_mean + (reps[test] - x_mean) @ w
        accuracies.append(np.mean(np.sign(prediction) == labels[test, col]))
    return float(np.mean(accuracies))


@dataclass(frozen=True)
class AblationTable:
    """Scores of every block's output, intact and with that block's GELU ablated.

    Arrays are (n_seeds, n_blocks, 2) over seeds, blocks and concepts (shape, colour).
    """

    seeds: tuple[int, ...]
    alpha_intact: np.ndarray
    alpha_ablated: np.ndarray
    probe_intact: np.ndarray
    probe_ablated: np.ndarray
    test_accuracy: np.ndarray
    """(n_seeds,) 4-way held-out accuracy of the intact networks."""

    def summary(self) -> dict[str, float]:
        """Means over everything, and the fraction of (seed, block) pairs whose score (averaged over the
        two concepts) goes up under the ablation."""
        a_up = self.alpha_ablated.mean(-1) > self.alpha_intact.mean(-1)
        p_up = self.probe_ablated.mean(-1) > self.probe_intact.mean(-1)
        return {"alpha_intact": float(self.alpha_intact.mean()),
                "alpha_ablated": float(self.alpha_ablated.mean()),
                "probe_intact": float(self.probe_intact.mean()),
                "probe_ablated": float(self.probe_ablated.mean()),
                "alpha_up_fraction": float(a_up.mean()), "probe_up_fraction": float(p_up.mean()),
                "test_accuracy": float(self.test_accuracy.mean())}


def _scores(reps: np.ndarray, labels: np.ndarray) -> tuple[list[float], list[float]]:
    concepts = tuple(PROBE_CONCEPTS)
    return ([float(abstraction_score(reps, labels, c)) for c in concepts],
            [probe_transfer(reps, labels, c) for c in concepts])


def ablation_table(cfg: GeluNetConfig, seeds) -> AblationTable:
    """Train one network per seed; score each block's output intact and with its own GELU ablated."""
    seeds = tuple(seeds)
    if not seeds:
        raise ValueError("seeds must hold at least one seed")
    arrays = {k: np.zeros((len(seeds), cfg.n_blocks, 2))
              for k in ("alpha_intact", "alpha_ablated", "probe_intact", "probe_ablated")}
    accuracy = np.zeros(len(seeds))
    for i, seed in enumerate(progress(seeds, "GELU ablation")):
        net = train_gelu_net(cfg, seed)
        accuracy[i] = net.test_accuracy
        intact = block_representations(net.model, net.X_test)
        for b in range(cfg.n_blocks):
            arrays["alpha_intact"][i, b], arrays["probe_intact"][i, b] = _scores(intact[b], net.labels_test)
            ablated = block_representations(net.model, net.X_test, ablate_block=b)[b]
            arrays["alpha_ablated"][i, b], arrays["probe_ablated"][i, b] = _scores(ablated, net.labels_test)
    return AblationTable(seeds=seeds, test_accuracy=accuracy, **arrays)
