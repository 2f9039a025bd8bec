"""Jobs for the Ctrl-C test (``test_interrupt.py``), in a module of their own so that a spawned pool
worker can import them: each computes one cache entry, slowly, with a progress bar as a training has,
and notes in ``$INTERRUPT_LOG`` each time it computes."""

import os
import time

import numpy as np

from interp_repro.core.cache import cached
from interp_repro.core.progress import progress


def work(index: int, seconds: float) -> None:
    """Cache ``{"x": [index]}`` under ``tests/interrupt``, computing it for ``seconds``."""
    def compute() -> dict[str, np.ndarray]:
        with open(os.environ["INTERRUPT_LOG"], "a") as log:
            log.write(f"{index}\n")
        for _ in progress(range(10), f"job {index}"):
            time.sleep(seconds / 10)
        return {"x": np.array([index])}

    cached("tests/interrupt", {"index": index}, compute)
