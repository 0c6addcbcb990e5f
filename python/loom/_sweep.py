"""``loom.sweep``: the ``loom sweep`` command from Python (each variant is its own process)."""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import Any, Mapping, Optional, Sequence

from ._loom import LoomError
from ._tables import to_table
from ._values import to_json, yaml_text

__all__ = ["sweep"]


def loom_binary() -> str:
    """The ``loom`` binary to run: $LOOM_BINARY, else the build tree's, else ``loom`` on PATH."""
    if os.environ.get("LOOM_BINARY"):
        return os.environ["LOOM_BINARY"]
    try:
        from ._build_paths import LOOM_BINARY
        if os.path.exists(LOOM_BINARY):
            return LOOM_BINARY
    except ImportError:
        pass
    found = shutil.which("loom")
    if found is None:
        raise LoomError("cannot find the loom binary: set LOOM_BINARY or put loom on PATH")
    return found


def sweep(experiment: Any, vary: Mapping[str, Sequence[Any]], jobs: Optional[int] = None,
          out: os.PathLike = "results/sweep", overrides: Optional[Mapping[str, Any]] = None,
          seed: Optional[int] = None):
    """Runs every point of the grid ``vary`` ({key: [values]}, the first key slowest) with
    ``loom sweep``, at most ``jobs`` variants at once, one folder per variant under ``out``, and
    returns ``out/sweep.csv`` as a table (variant, the keys, status, headline metrics, error).
    ``experiment`` is a path, or a dict written to ``out/experiment.yaml`` first. Finished
    variants of an earlier call with the same settings are reused. Raises
    :class:`loom.LoomError` with loom's error lines when arguments are wrong or a variant fails."""
    out = os.fspath(out)
    if isinstance(experiment, Mapping):
        os.makedirs(out, exist_ok=True)
        path = os.path.join(out, "experiment.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(to_json(experiment, indent=2))
        experiment = path
    command = [loom_binary(), "sweep", os.fspath(experiment), "--out", out]
    for key, values in vary.items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
            raise LoomError(f"vary: {key}: expected a list of values, got {values!r}")
        command += ["--vary", f"{key}=" + ",".join(yaml_text(v) for v in values)]
    for key, value in (overrides or {}).items():
        command += ["--set", f"{key}={yaml_text(value)}"]
    if seed is not None:
        command += ["--seed", str(int(seed))]
    if jobs is not None:
        command += ["-j", str(int(jobs))]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines = [line.removeprefix("loom: ") for line in done.stderr.splitlines() if line.strip()]
        raise LoomError("\n".join(lines) or f"loom sweep exited with code {done.returncode}")
    with open(os.path.join(out, "sweep.csv"), encoding="utf-8") as f:
        return to_table(f.read())
