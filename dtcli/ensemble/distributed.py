"""Grow a forest's trees on a Dask cluster (`dtree train --model forest --scheduler`).

The data are presorted here once and the prepared data and the forest's plan are
scattered to every worker once (`broadcast=True`); each task then names a few
trees by index and ships back their arrays. A tree depends only on the data, the
plan and its index (growth.py), so the forest equals the one grown locally.
dtcli must be installed on the workers.
"""
from __future__ import annotations

from dtcli.ensemble.growth import grow_trees
from dtcli.errors import DtreeError
from dtcli.scheduler.connection import check_address, connect, first_line, quiet_client

TREES_PER_TASK = 4  # small enough to spread 100 trees over many workers


def _grow_on_worker(prepared, plan, indices):
    return grow_trees(prepared, plan, indices, 1)


def fit_on_cluster(forest, dataset, address: str):
    """forest.fit_dataset(dataset), its trees grown on the cluster at `address`."""
    check_address(address)
    client = connect(address)  # before the data are prepared: a dead scheduler fails at once

    def grower(prepared, plan, n_jobs):
        shipped_data, shipped_plan = client.scatter([prepared, plan], broadcast=True,
                                                    hash=False)
        n = forest.n_estimators
        chunks = [list(range(lo, min(lo + TREES_PER_TASK, n)))
                  for lo in range(0, n, TREES_PER_TASK)]
        futures = [client.submit(_grow_on_worker, shipped_data, shipped_plan, chunk,
                                 pure=False) for chunk in chunks]
        return [tree for future in futures for tree in future.result()]

    with quiet_client():
        try:
            return forest.fit_dataset(dataset, grower=grower)
        except (DtreeError, KeyboardInterrupt):
            raise
        except Exception as exc:  # noqa: BLE001 - the cluster failed, not the forest
            raise DtreeError(f"the Dask cluster at {address} failed mid-run "
                             f"({first_line(exc)}): the forest was not trained") from None
        finally:
            client.close()
