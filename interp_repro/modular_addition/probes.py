"""What the analyses read off a trained network: its layer-1 pre-activations and logits on every
input pair, and Zhong et al.'s gradient symmetricity."""

import numpy as np
import torch

from interp_repro.core import check_positive_int, torch_generator
from interp_repro.modular_addition.data import all_pairs
from interp_repro.modular_addition.model import ModAddNet


@torch.no_grad()
def tables(model: ModAddNet) -> tuple[np.ndarray, np.ndarray]:
    """Layer-1 (MLP) pre-activations (K, p, p, d_mlp) and logits (K, p, p, p) on all p^2 pairs,
    indexed [instance, a, b, ...] (the paper's neuron tables, §3)."""
    p = model.p
    a, b, _ = all_pairs(p)
    logits, pre = model(a, b, return_preacts=True)
    K = model.n_instances
    return pre.reshape(K, p, p, -1).numpy(), logits.reshape(K, p, p, p).numpy()


def gradient_symmetricity(model: ModAddNet, n_triples: int = 100, seed: int = 0) -> np.ndarray:
    """Zhong et al. (2023, §4): the cosine similarity between the gradients of logit c with respect to
    the embeddings of a and of b, averaged over ``n_triples`` random triples (a, b, c) drawn from
    ``seed`` (the same triples for every instance). Pizza-like networks score near 1, Clock-like
    ones near 1/3. Returns (K,)."""
    check_positive_int("n_triples", n_triples)
    gen = torch_generator(seed)
    a, b, c = (torch.randint(0, model.p, (n_triples,), generator=gen) for _ in range(3))
    K = model.n_instances
    ea = model.embed(a.expand(K, -1)).detach().requires_grad_(True)
    eb = model.embed(b.expand(K, -1)).detach().requires_grad_(True)
    logits = model.from_embeddings(ea, eb)
    chosen = logits.gather(-1, c.expand(K, -1).unsqueeze(-1)).sum()
    ga, gb = torch.autograd.grad(chosen, (ea, eb))
    return torch.nn.functional.cosine_similarity(ga, gb, dim=-1).mean(-1).detach().numpy()
