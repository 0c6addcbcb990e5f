"""The Python module against the loom binary: same tables, same errors, sweeps, threads."""

import json
import os
import subprocess
import threading
import time

import numpy
import pandas
import pandas.testing
import pytest

import loom
import loom._tables
from loom._sweep import loom_binary

SOURCE = os.environ.get("LOOM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT = os.path.join(SOURCE, "examples", "default.yaml")
SMALL = {
    "topology": {"blueprint": "leaf-spine", "hosts": 2, "gpus_per_host": 2, "nic_bandwidth": "100Gbps"},
    "workload": {"collectives": [{"op": "all-reduce", "size": "1MiB", "repeat": 2}]},
    "output": {"timeline": False},
}


def cli_run(experiment, out, *args):
    """`loom run EXPERIMENT --out OUT ARGS`; fails the test when it fails."""
    done = subprocess.run([loom_binary(), "run", experiment, "--out", str(out), *args], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    return out


def read_csv(path):
    """A file the CLI wrote, parsed as the module parses tables (numbers exactly)."""
    return pandas.read_csv(path, float_precision="round_trip")


def without_run_folder(summary):
    """A summary without what differs between runs into different folders or into none."""
    summary = json.loads(json.dumps(summary))
    summary.pop("outputs")
    summary["config"]["output"].pop("dir")
    return summary


def test_default_experiment_tables_equal_the_cli_files(tmp_path):
    result = loom.run(DEFAULT)
    files = cli_run(DEFAULT, tmp_path / "cli")
    assert set(result.tables) == {"collectives", "flows", "ranks"}
    assert list(result.collectives.columns)[:5] == ["label", "op", "group", "communicator", "members"]
    assert "busbw_GBps" in result.collectives.columns
    assert list(result.flows.columns) == ["src_rank", "dst_rank", "src_node", "dst_node", "size_bytes", "start_ns",
                                          "fct_ns", "ideal_fct_ns", "slowdown", "transfer"]
    assert len(result.flows) > 100
    for name in ("collectives", "flows", "ranks"):
        pandas.testing.assert_frame_equal(result.tables[name], read_csv(files / f"{name}.csv"), check_exact=True)
    cli_summary = json.loads((files / "summary.json").read_text())
    assert result.summary["outputs"] == []
    assert without_run_folder(result.summary) == without_run_folder(cli_summary)
    assert result.summary["totals"]["makespan_us"] > 0


def test_a_run_with_out_writes_what_loom_run_writes(tmp_path):
    result = loom.load(DEFAULT, overrides={"network.mode": "flow"}, seed=3).run(out=tmp_path / "py")
    cli_run(DEFAULT, tmp_path / "cli", "--set", "network.mode=flow", "--seed", "3")
    assert result.out == str(tmp_path / "py")
    for name in ("collectives.csv", "flows.csv", "ranks.csv", "links.csv", "timeline.json"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    py_summary = json.loads((tmp_path / "py" / "summary.json").read_text())
    assert without_run_folder(py_summary) == without_run_folder(json.loads((tmp_path / "cli" / "summary.json").read_text()))
    assert py_summary["seed"] == 3 and py_summary["backend"] == "flow"
    assert result.summary == py_summary


def test_a_bad_key_raises_with_its_location(tmp_path):
    with pytest.raises(loom.LoomError, match=r"^--set topology\.hostz=4: unknown key 'hostz' in topology; "
                                             r"did you mean 'hosts'\?$"):
        loom.load(DEFAULT, overrides={"topology.hostz": 4})
    bad = tmp_path / "bad.yaml"
    bad.write_text("topology:\n  blueprint: single-switch\n  hosts: 2\n  nic_bandwdith: 400Gbps\n")
    with pytest.raises(loom.LoomError) as error:
        loom.run(str(bad))
    assert str(error.value) == f"{bad}:4:3: unknown key 'nic_bandwdith' in topology; did you mean 'nic_bandwidth'?"
    assert isinstance(error.value, ValueError)
    with pytest.raises(loom.LoomError, match=r"^<dict>:\d+:\d+: unknown key 'topologgy' at the top level"):
        loom.load({"topologgy": {}})


def test_an_experiment_from_a_dict_runs_like_its_file(tmp_path):
    from_dict = loom.run(SMALL)
    path = tmp_path / "small.yaml"
    path.write_text(json.dumps(SMALL))
    from_file = loom.run(str(path))
    assert from_dict.summary["totals"] == from_file.summary["totals"]
    pandas.testing.assert_frame_equal(from_dict.collectives, from_file.collectives)
    exp = loom.load({**SMALL, "seed": numpy.int64(4)}, overrides={"topology.hosts": numpy.int64(3)})
    assert exp.config["seed"] == 4
    assert exp.config["topology"]["hosts"] == 3 and not exp.is_cluster
    assert exp.run().summary["totals"]["transfers"] > from_dict.summary["totals"]["transfers"]


def test_tables_without_pandas_are_numpy_arrays(monkeypatch):
    frame = loom.run(SMALL).flows
    monkeypatch.setattr(loom._tables, "pandas", None)
    arrays = loom.run(SMALL).flows
    assert list(arrays) == list(frame.columns)
    for name in arrays:
        assert list(arrays[name]) == list(frame[name]), name
    assert arrays["size_bytes"].dtype.kind == "i" and arrays["slowdown"].dtype.kind == "f"


def test_a_four_variant_sweep(tmp_path):
    table = loom.sweep(SMALL, vary={"topology.hosts": [2, 3], "network.mode": ["analytical", "flow"]}, jobs=2,
                       out=tmp_path / "sweep")
    assert list(table["variant"]) == ["hosts-2_mode-analytical", "hosts-2_mode-flow", "hosts-3_mode-analytical",
                                      "hosts-3_mode-flow"]
    assert list(table["status"]) == ["ran"] * 4
    for _, row in table.iterrows():
        single = loom.run(SMALL, overrides={"topology.hosts": row["topology.hosts"], "network.mode": row["network.mode"]})
        assert row["makespan_us"] == single.summary["totals"]["makespan_us"]
        assert row["events"] == single.summary["totals"]["events"]
    again = loom.sweep(SMALL, vary={"topology.hosts": [2, 3], "network.mode": ["analytical", "flow"]}, jobs=2,
                       out=tmp_path / "sweep")
    assert list(again["status"]) == ["reused"] * 4
    with pytest.raises(loom.LoomError, match="variant 'hostz-2' failed: --set topology.hostz=2: unknown key"):
        loom.sweep(SMALL, vary={"topology.hostz": [2]}, out=tmp_path / "bad")


def test_the_gil_is_released_while_simulating():
    exp = loom.load(DEFAULT, overrides={"network.mode": "flow"})
    span = []
    # The simulation alone (parsing the tables afterwards is pandas' and may release the GIL).
    simulate = exp._loaded.run
    runner = threading.Thread(target=lambda: span.extend([time.perf_counter(), simulate(False), time.perf_counter()]))
    ticks = []
    runner.start()
    while runner.is_alive():
        ticks.append(time.perf_counter())
    runner.join()
    started, _, ended = span
    during = [t for t in ticks if started <= t <= ended]
    longest_pause = max(b - a for a, b in zip([started] + during, during + [ended]))
    # Holding the GIL, the run would stop this loop for its whole length.
    assert ended - started > 0.05, "the run is too short to tell"
    assert longest_pause < (ended - started) / 2, (longest_pause, ended - started)


def test_a_cluster_run_gives_its_jobs_table(tmp_path):
    cluster = os.path.join(SOURCE, "examples", "cluster_jobs.yaml")
    result = loom.run(cluster)
    files = cli_run(cluster, tmp_path / "cli")
    assert loom.load(cluster).is_cluster
    pandas.testing.assert_frame_equal(result.jobs, read_csv(files / "jobs.csv"), check_exact=True)
    pandas.testing.assert_frame_equal(result.cluster, read_csv(files / "cluster.csv"), check_exact=True)
    assert result.summary["jobs"]["count"] == len(result.jobs)
    assert result.collectives is None


def test_topology_generate():
    t = loom.topology.generate("leaf-spine", hosts=4, gpus_per_host=8, nic_bandwidth="400Gbps")
    assert t.summary["gpus"] == 32 and t.summary["hosts"] == 4
    assert "leaf-spine" in t.yaml and "leaf-spine" in loom.topology.blueprints()
    exp = loom.load({"topology": t.section, "workload": {"collectives": [{"op": "all-reduce", "size": "1MiB"}]}})
    assert exp.config["topology"]["hosts"] == 4
    with pytest.raises(loom.LoomError, match="hostz"):
        loom.topology.generate("leaf-spine", hostz=4)


def test_workload_synthesise():
    w = loom.workload.synthesise(model="gpt-13b", tp=2, pp=2, dp=2)
    assert w.summary["ranks"] == 8 and len(w.per_rank) == 8
    assert w.summary["memory"]["total_bytes"] > 0 and w.summary["critical_path_us"] > 0
    assert (w.per_rank["compute_nodes"] > 0).all()
    with pytest.raises(loom.LoomError, match="<workload>:.*unknown key 'tpp'"):
        loom.workload.synthesise(model="gpt-13b", tpp=2)


def test_every_public_function_has_a_docstring():
    import inspect
    for module in (loom, loom.topology, loom.workload):
        for name in module.__all__:
            item = getattr(module, name)
            if inspect.isfunction(item) or inspect.isclass(item):
                assert inspect.getdoc(item), f"{module.__name__}.{name}"
                for _, member in inspect.getmembers(item, lambda m: inspect.isfunction(m) or isinstance(m, property)):
                    assert inspect.getdoc(member), f"{module.__name__}.{name} member"
