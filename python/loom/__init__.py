"""Loom from Python: load an experiment, run it, get its results as Python objects.

    import loom
    result = loom.run("examples/default.yaml", overrides={"topology.hosts": 8}, seed=7)
    result.summary["totals"]["makespan_us"]      # summary.json as a dict
    result.collectives                            # collectives.csv as a pandas DataFrame

A run simulates in memory and writes nothing unless ``out`` names a folder (then it writes
what ``loom run --out`` writes). Tables are pandas DataFrames when pandas is importable, else
dicts of NumPy arrays. A mistake in the experiment raises :class:`LoomError` with the same
``file:line:col: message`` the ``loom`` command prints. The GIL is released while simulating,
so runs in threads proceed in parallel.
"""

from __future__ import annotations

import json
import os
from typing import Any, Mapping, Optional, Union

from . import _loom
from ._loom import LoomError
from ._values import assignments, to_json
from ._tables import to_table
from . import topology, workload
from ._sweep import sweep

__all__ = ["Experiment", "LoomError", "Result", "load", "run", "sweep", "topology", "workload"]

ExperimentSource = Union[str, os.PathLike, Mapping[str, Any]]


def _table(name: str, doc: str) -> property:
    """A :class:`Result` property: its table ``name``, or None when the run has none."""
    return property(lambda self: self.tables.get(name), doc=doc)


class Result:
    """The results of one run.

    Attributes:
        summary: summary.json's content as a dict (an in-memory run's lists no files).
        collectives, flows, ranks: a run's tables (None when ``output`` switched them off).
        jobs, cluster: a cluster run's tables.
        tables: every table by name.
        warnings: what loading and running warned about.
        out: the folder the results were written to, or None.
    """

    def __init__(self, summary: dict, tables: dict, warnings: list, out: Optional[str]):
        """Builds a result from a summary dict, tables by name, warnings and the output folder."""
        self.summary = summary
        self.tables = tables
        self.warnings = warnings
        self.out = out

    collectives = _table("collectives", "collectives.csv's rows, or None.")
    flows = _table("flows", "flows.csv's rows, or None.")
    ranks = _table("ranks", "ranks.csv's rows, or None.")
    jobs = _table("jobs", "A cluster run's jobs.csv rows, or None.")
    cluster = _table("cluster", "A cluster run's cluster.csv samples, or None.")

    def __repr__(self) -> str:
        """A one-line description: the tables and their row counts."""
        shown = ", ".join(f"{k}: {len(next(iter(v.values()))) if isinstance(v, dict) and v else len(v)} rows"
                          for k, v in self.tables.items())
        return f"<loom.Result {shown}>"


class Experiment:
    """A loaded experiment: checked, its configuration effective (defaults and overrides applied)."""

    def __init__(self, source: ExperimentSource, overrides: Optional[Mapping[str, Any]], seed: Optional[int]):
        """Loads ``source`` (see :func:`load`)."""
        self._source = source
        self._overrides = dict(overrides or {})
        self._seed = seed
        self._loaded = self._load(None)

    def _load(self, out: Optional[Union[str, os.PathLike]]):
        """The C++ experiment, with output.dir set to ``out`` when given."""
        extra = {} if out is None else {"output.dir": os.fspath(out)}
        settings = assignments({**self._overrides, **extra}, self._seed)
        if isinstance(self._source, Mapping):
            text = to_json(self._source, indent=2)
            return _loom.load(None, text, "<dict>", settings)
        return _loom.load(os.fspath(self._source), None, "", settings)

    @property
    def config(self) -> dict:
        """The effective configuration (what summary.json records as ``config``)."""
        return json.loads(self._loaded.config_json)

    @property
    def is_cluster(self) -> bool:
        """Whether this is a cluster experiment (it has a ``cluster:`` section)."""
        return self._loaded.is_cluster

    @property
    def warnings(self) -> list:
        """What loading the inputs warned about."""
        return list(self._loaded.warnings)

    def run(self, out: Optional[Union[str, os.PathLike]] = None) -> Result:
        """Simulates the experiment and returns its :class:`Result`.

        Without ``out`` nothing is written; with ``out`` the results also go into that folder
        exactly as ``loom run --out OUT`` writes them. The GIL is released while simulating.
        """
        loaded = self._loaded if out is None else self._load(out)
        summary, tables, warnings = loaded.run(out is not None)
        return Result(json.loads(summary), {name: to_table(csv) for name, csv in tables},
                      self.warnings + list(warnings), None if out is None else os.fspath(out))

    def __repr__(self) -> str:
        """The source and the kind of experiment."""
        kind = "cluster experiment" if self.is_cluster else "experiment"
        source = "<dict>" if isinstance(self._source, Mapping) else os.fspath(self._source)
        return f"<loom.Experiment {kind} {source}>"


def load(experiment: ExperimentSource, overrides: Optional[Mapping[str, Any]] = None,
         seed: Optional[int] = None) -> Experiment:
    """Loads an experiment from a YAML file's path or from a dict of its sections.

    ``overrides`` maps dotted keys to values, as ``--set key=value`` does
    (``{"topology.hosts": 8, "network.mode": "flow"}``); ``seed`` overrides ``seed``. Relative
    paths in a dict are relative to the current folder. Raises :class:`LoomError` at the
    mistake's location (``exp.yaml:3:5: ...``, ``--set topology.hostz=8: ...``).
    """
    return Experiment(experiment, overrides, seed)


def run(experiment: ExperimentSource, overrides: Optional[Mapping[str, Any]] = None, seed: Optional[int] = None,
        out: Optional[Union[str, os.PathLike]] = None) -> Result:
    """Loads and runs an experiment: ``load(experiment, overrides, seed).run(out)``."""
    return load(experiment, overrides, seed).run(out)
