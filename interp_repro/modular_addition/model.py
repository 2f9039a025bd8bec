"""One-hidden-layer networks for (a + b) mod p, K independent instances stacked on a leading axis.

Model kinds (:data:`KINDS`; with the attention rate they make the paper's four architectures,
``experiments.ARCHITECTURES``; Moisescu-Pareja et al. 2025, §2; Zhong et al. 2023, §3):

- ``attention``: Zhong's one-layer transformer on the tokens [a, b]: learned token and position
  embeddings, ``n_heads`` heads with attention ``rate * softmax(q k^T / sqrt(d_head)) + (1 - rate)``
  (rate 1: learnable attention, the Clock's "model B"; rate 0: every weight 1, uniform attention,
  the Pizza's "model A"), then a ReLU MLP with biases, residual stream, no LayerNorm, and an
  unembedding read at the last position;
- ``mlp_add``: logits = W_U ReLU(W_in (E_a + E_b) + b_in);
- ``mlp_concat``: logits = W_U ReLU(W_in [E_a; E_b] + b_in).

Only the last position's logits enter the loss, so the transformer computes the query, the MLP and
the unembedding at the last position only. Initialisation (:data:`INITS`), biases zero:

- ``reference`` (default): the scales of Zhong et al.'s code (``code/train-main.py``, after Nanda et
  al.): token and position embeddings, W_Q, W_K, W_V, W_O and the MLP's W_out N(0, 1/d_model), the
  MLP's W_in N(0, 1/d_mlp), the unembedding N(0, 1/p); the MLP-only kinds take the same
  scales for the weights they have;
- ``fan_in``: every weight matrix N(0, 1/fan_in), this project's first choice, kept to measure how
  much the initialisation matters.
"""

import math

import torch
from torch import nn

from interp_repro.core import check_choices, check_positive_int, check_probability
from interp_repro.modular_addition.data import check_modulus

KINDS = ("attention", "mlp_add", "mlp_concat")
"""The model kinds :class:`ModAddNet` builds."""
INITS = ("reference", "fan_in")


def _normal(shape: tuple[int, ...], scale: int, generator: torch.Generator) -> nn.Parameter:
    """N(0, 1/scale) entries."""
    return nn.Parameter(torch.randn(shape, generator=generator) / math.sqrt(scale))


class ModAddNet(nn.Module):
    """K networks of one ``kind`` (:data:`KINDS`) for (a + b) mod ``p``; ``rate`` is the attention rate
    (``attention`` only, any value in [0, 1]); ``init`` one of :data:`INITS`."""

    def __init__(self, n_instances: int, p: int, kind: str, generator: torch.Generator, *,
                 rate: float = 1.0, d_model: int = 128, n_heads: int = 4, d_mlp: int = 512,
                 init: str = "reference"):
        super().__init__()
        if kind not in KINDS:
            raise ValueError(f"unknown model kind {kind!r}: choose one of {KINDS}")
        if not isinstance(generator, torch.Generator):
            raise TypeError("generator must be a torch.Generator (e.g. core.torch_generator(seed)), "
                            f"got {generator!r}")
        p = check_modulus(p)
        for name, value in (("n_instances", n_instances), ("d_model", d_model), ("n_heads", n_heads),
                            ("d_mlp", d_mlp)):
            check_positive_int(name, value)
        check_probability("the attention rate", rate)
        check_choices("init", (init,), INITS)
        reference = init == "reference"
        if kind == "attention" and d_model % n_heads:
            raise ValueError(f"d_model ({d_model}) must be a multiple of n_heads ({n_heads})")
        self.kind, self.p, self.rate = kind, p, float(rate)
        K, d = n_instances, d_model
        self.W_E = _normal((K, p, d), d, generator)
        if kind == "attention":
            h, dh = n_heads, d // n_heads
            self.W_pos = _normal((K, 2, d), d, generator)
            self.W_Q = _normal((K, h, d, dh), d, generator)
            self.W_K = _normal((K, h, d, dh), d, generator)
            self.W_V = _normal((K, h, d, dh), d, generator)
            self.W_O = _normal((K, h, dh, d), d, generator)
            self.W_out = _normal((K, d_mlp, d), d if reference else d_mlp, generator)
            self.b_out = nn.Parameter(torch.zeros(K, 1, d))
            d_in, d_unembed = d, d
        else:
            d_in, d_unembed = (2 * d if kind == "mlp_concat" else d), d_mlp
        self.W_in = _normal((K, d_in, d_mlp), d_mlp if reference else d_in, generator)
        self.b_in = nn.Parameter(torch.zeros(K, 1, d_mlp))
        self.W_U = _normal((K, d_unembed, p), p if reference else d_unembed, generator)

    @property
    def n_instances(self) -> int:
        return self.W_E.shape[0]

    def embed(self, tokens: torch.Tensor) -> torch.Tensor:
        """E[tokens] per instance: tokens (K, N) -> (K, N, d)."""
        K = self.n_instances
        return self.W_E[torch.arange(K, device=tokens.device).unsqueeze(1), tokens]

    def _mlp_input(self, ea: torch.Tensor, eb: torch.Tensor) -> torch.Tensor:
        """The residual stream (or MLP input) at the last position, (K, N, d_in), from the two
        token embeddings (K, N, d)."""
        if self.kind == "mlp_add":
            return ea + eb
        if self.kind == "mlp_concat":
            return torch.cat([ea, eb], dim=-1)
        x0, x1 = ea + self.W_pos[:, 0:1], eb + self.W_pos[:, 1:2]
        return x1 + torch.bmm(self._heads(x0, x1), self.W_O.flatten(1, 2))

    def _heads(self, x0: torch.Tensor, x1: torch.Tensor) -> torch.Tensor:
        """The heads' outputs at the last position, concatenated (K, N, n_heads * d_head), from the
        residual streams of both positions. All heads' queries, keys and values come from one matrix
        product each; with rate 0 every attention weight is 1 and the heads read v0 + v1."""
        K, N, _ = x1.shape
        h, dh = self.W_Q.shape[1], self.W_Q.shape[3]

        def stacked(W: torch.Tensor) -> torch.Tensor:  # (K, h, d, dh) -> (K, d, h * dh)
            return W.permute(0, 2, 1, 3).flatten(2)

        if self.rate == 0.0:
            return torch.bmm(x0 + x1, stacked(self.W_V))
        q = torch.bmm(x1, stacked(self.W_Q)).view(K, N, h, dh)
        kv = torch.bmm(torch.cat([x0, x1], 1), torch.cat([stacked(self.W_K), stacked(self.W_V)], 2))
        (k0, v0), (k1, v1) = (part.view(K, N, 2, h, dh).unbind(2) for part in kv.split(N, 1))
        soft1 = torch.sigmoid((q * (k1 - k0)).sum(-1) / math.sqrt(dh))  # softmax over the 2 keys
        w1 = (self.rate * soft1 + (1.0 - self.rate)).unsqueeze(-1)
        w0 = (self.rate * (1.0 - soft1) + (1.0 - self.rate)).unsqueeze(-1)
        return (w0 * v0 + w1 * v1).flatten(2)

    def from_embeddings(self, ea: torch.Tensor, eb: torch.Tensor, return_preacts: bool = False):
        """The network after its embedding: logits (K, N, p) from token embeddings ``ea``, ``eb``
        (K, N, d); with ``return_preacts`` also the MLP pre-activations (K, N, d_mlp)."""
        x = self._mlp_input(ea, eb)
        pre = torch.baddbmm(self.b_in, x, self.W_in)
        hidden = torch.relu(pre)
        if self.kind == "attention":
            x = torch.baddbmm(self.b_out, hidden, self.W_out).add_(x)
        else:
            x = hidden
        logits = torch.bmm(x, self.W_U)
        return (logits, pre) if return_preacts else logits

    def forward(self, a: torch.Tensor, b: torch.Tensor, return_preacts: bool = False):
        """Logits (K, N, p) at the last position for pairs ``a``, ``b`` of shape (K, N) (or (N,),
        shared by all instances); with ``return_preacts`` also the MLP pre-activations (K, N, d_mlp)."""
        if a.ndim == 1:
            a, b = a.expand(self.n_instances, -1), b.expand(self.n_instances, -1)
        return self.from_embeddings(self.embed(a), self.embed(b), return_preacts)
