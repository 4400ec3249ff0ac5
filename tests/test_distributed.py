"""`compare --scheduler`: the same tasks on a Dask cluster give the same results."""
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from dtcli.cli import cli
from dtcli.crossval.method_syntax import fixed_choices

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DATA = [EXAMPLES / "imbalanced" / "new-thyroid1.dat", EXAMPLES / "imbalanced" / "ecoli-0-6-7_vs_5.dat"]
ARGS = ("--cv", 3, "--criteria", "gini,entropy,gain-ratio", "--metric", "auc", "-q", "-f", "json")


def dtree(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def without_timing(doc):
    return {k: v for k, v in doc.items() if k != "timing"}


def test_missing_dask_is_one_clear_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # makes `import distributed` fail
    result = dtree("compare", *DATA, *ARGS, "--scheduler", "tcp://127.0.0.1:1")
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [
        'Error: --scheduler needs Dask distributed; install the extra: pip install "dtcli[dask]"']


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        yield cluster


def test_local_cluster_gives_the_local_results(tmp_path, cluster):
    local = dtree("compare", *DATA, *ARGS, "-j", 1)
    assert local.exit_code == 0, local.output
    results = tmp_path / "runs.jsonl"
    remote = dtree("compare", *DATA, *ARGS, "--scheduler", cluster.scheduler_address,
                   "--results", results)
    assert remote.exit_code == 0, remote.output
    assert json.dumps(without_timing(json.loads(remote.stdout))) == json.dumps(
        without_timing(json.loads(local.stdout)))
    assert len(results.read_text().splitlines()) == 2 * 3 * 3


def test_every_worker_holds_each_dataset_once(cluster):
    import distributed

    from dtcli.crossval import runner, tasks
    from dtcli.io import load_dataset

    datasets = [load_dataset(str(path)) for path in DATA]
    held = {}

    def look(done, total):
        if done == 1:  # while tasks run: what do the workers keep?
            with distributed.Client(cluster) as client:
                held.update(client.run(lambda dask_worker: sorted(
                    type(value).__name__ for value in dask_worker.data.values())))

    runner.run_grid(["a", "b"], datasets, fixed_choices(["gini,entropy"]),
                    tasks.TreeOptions(), tasks.Protocol(3, 1, 0),
                    scheduler=cluster.scheduler_address, progress=look)
    assert len(held) == 2
    # At most one copy of each dataset per worker, never one per task. (Not
    # "exactly": dask's active memory manager may drop a replica that no
    # waiting task on that worker needs; seen under load.)
    assert all(1 <= kinds.count("Dataset") <= 2 for kinds in held.values()), held


def test_a_tuned_method_on_a_local_cluster_gives_the_local_results(cluster):
    """Nested cross-validation (dtcli.tuning) runs its inner searches through the same
    runner: on Dask it chooses and scores as in this process."""
    tuned = ("--cv", 3, "--criteria", "gini,tsallis:q=auto", "--grid", "q=0.5,4",
             "--inner-cv", 2, "-q", "-f", "json")
    local = dtree("compare", *DATA, *tuned, "-j", 1)
    assert local.exit_code == 0, local.output
    remote = dtree("compare", *DATA, *tuned, "--scheduler", cluster.scheduler_address)
    assert remote.exit_code == 0, remote.output
    local_doc, remote_doc = (without_timing(json.loads(r.stdout)) for r in (local, remote))
    assert remote_doc == local_doc
    assert set(local_doc["tuning"]["methods"]["tsallis:q=auto"]) == {d.stem for d in DATA}
