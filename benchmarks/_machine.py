"""The machine a benchmark ran on: CPUs (nproc), CPU model, RAM, Python."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def machine() -> str:
    """`nproc` CPUs, the CPU model and the RAM of this machine (Linux), and Python."""
    cpu, ram = "unknown CPU", "unknown RAM"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem_kb = int(Path("/proc/meminfo").read_text().split()[1])
        ram = f"{mem_kb / 1024 / 1024:.1f} GiB RAM"
    except OSError:
        pass
    nproc = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{nproc} CPUs (nproc), {cpu}, {ram}, Python {sys.version.split()[0]}"
