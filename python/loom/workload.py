"""Workloads for scripts: synthesise a training step and look at it before simulating it.

    w = loom.workload.synthesise(model="llama-70b", tp=8, pp=4, dp=8, sharding="optimizer")
    w.summary["memory"]["total_bytes"], w.per_rank          # memory per GPU, nodes per rank
    exp = loom.load({"topology": {...}, "workload": w.section})
"""

from __future__ import annotations

import json
from typing import Any, Optional

from . import _loom
from ._tables import to_table

__all__ = ["Workload", "synthesise"]


class Workload:
    """A synthesised workload.

    Attributes:
        section: the experiment file's ``workload`` section for it (a dict).
        summary: ranks, nodes, dependencies, communicators, critical_path_us (at infinite
            bandwidth), memory (training: the per-rank estimate of the most loaded stage, bytes),
            effective (the section with every default), warnings.
        per_rank: one row per rank: compute/collective/send/recv nodes, flops, compute_us.
    """

    def __init__(self, section: dict, summary: dict):
        """Holds what :func:`synthesise` read."""
        per_rank = summary.pop("per_rank")
        self.section = section
        self.summary = summary
        columns = ["compute_nodes", "collective_nodes", "send_nodes", "recv_nodes", "flops", "compute_us"]
        csv = ",".join(["rank"] + columns) + "\n" + "".join(
            ",".join([str(r)] + [repr(row[c]) for c in columns]) + "\n" for r, row in enumerate(per_rank))
        self.per_rank = to_table(csv)

    def __repr__(self) -> str:
        """The workload's size."""
        s = self.summary
        return f"<loom.workload.Workload {s['ranks']} ranks, {s['nodes']} nodes>"


def synthesise(model: Any = "gpt-7b", tp: int = 1, pp: int = 1, dp: int = 1, cp: int = 1,
               gpus: Optional[int] = None, seed: int = 1, type: str = "training", **keys: Any) -> Workload:
    """Reads a ``workload`` section as an experiment would: ``type`` (training by default; also
    dlrm or microbenchmark), ``model`` (a preset's name or a dict of its shape), the parallelism
    ``tp``, ``pp``, ``dp``, ``cp`` and any other key of the section (``schedule``,
    ``micro_batch``, ``global_batch``, ``sharding``, ``recompute``, ...). ``gpus`` bounds the
    ranks (default tp x cp x pp x dp). Raises :class:`loom.LoomError` naming a bad key."""
    section = {"type": type, **keys}
    if type == "training":
        section.update(model=model, tp=tp, pp=pp, dp=dp, cp=cp)
    elif model != "gpt-7b":
        section["model"] = model
    count = gpus if gpus is not None else tp * cp * pp * dp
    summary = json.loads(_loom.synthesise_workload(json.dumps(section, indent=2), count, seed))
    return Workload(section, summary)
