"""The machine a run happened on: what the benchmark results and the build's provenance line name."""

import os
import platform
import sys
from pathlib import Path
from typing import Any


def cpu_model() -> str:
    """The CPU's model name, from /proc/cpuinfo where there is one, else what ``platform`` says."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def host() -> dict[str, Any]:
    """The machine a result was measured on."""
    import torch

    return {"cpu": cpu_model(), "cores": os.cpu_count(),
            "system": f"{platform.system()} {platform.release()}", "python": sys.version.split()[0],
            "torch": torch.__version__, "torch_threads": torch.get_num_threads()}
