"""Topologies for scripts: build a blueprint and look at its shape before simulating it.

    t = loom.topology.generate("clos", hosts=256, gpus_per_host=8, tiers=3, nic_bandwidth="400Gbps")
    t.summary["bisection_bps"], t.summary["tiers"]
    exp = loom.load({"topology": t.section, "workload": {...}})
"""

from __future__ import annotations

import json
from typing import Any

from . import _loom
from ._values import yaml_text

__all__ = ["Topology", "blueprints", "generate"]


class Topology:
    """A generated blueprint.

    Attributes:
        blueprint: its name.
        section: the experiment file's ``topology`` section for it (a dict).
        yaml: the blueprint YAML with every effective parameter (``loom topo generate``'s output).
        summary: ``loom topo show``'s numbers as a dict: hosts, gpus, nics, switches, cables,
            tiers (switches, capacities and oversubscription per tier), nic_bps, bisection_bps,
            diameter, mean_hops and ECMP path counts among sampled GPU pairs.
    """

    def __init__(self, blueprint: str, section: dict, yaml: str, summary: dict):
        """Holds what :func:`generate` built."""
        self.blueprint = blueprint
        self.section = section
        self.yaml = yaml
        self.summary = summary

    def write(self, path) -> None:
        """Writes the blueprint YAML to ``path`` (a file ``loom topo show`` and experiments read)."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.yaml)

    def __repr__(self) -> str:
        """The blueprint and its size."""
        s = self.summary
        return f"<loom.topology.Topology {self.blueprint}: {s['gpus']} GPUs on {s['hosts']} hosts>"


def blueprints() -> list:
    """The names of the blueprints ``generate`` builds (``loom topo list`` has their parameters)."""
    return list(_loom.blueprints())


def generate(blueprint: str, samples: int = 256, **parameters: Any) -> Topology:
    """Builds ``blueprint`` with ``parameters`` (names as in ``loom topo list``, '-' or '_';
    values with units as text, e.g. ``nic_bandwidth="400Gbps"``). ``samples`` random GPU pairs
    measure hops and ECMP paths. Raises :class:`loom.LoomError` for an unknown blueprint or
    parameter or a bad value."""
    pairs = [(name, yaml_text(value)) for name, value in parameters.items()]
    yaml, summary = _loom.generate_topology(blueprint, pairs, samples)
    section = {"blueprint": blueprint, **{name.replace("-", "_"): value for name, value in parameters.items()}}
    return Topology(blueprint, section, yaml, json.loads(summary))
