"""One pool of workers for a whole experiment: every batch of folds it runs (a compare's
grid and its tuned methods' searches, a tune's grid, a reproduce run's tables, a
train's search of an auto parameter) shares
the workers the first batch that pays for them started (crossval.workers)."""
from __future__ import annotations

import functools


def one_pool(experiment):
    """`experiment` run inside crossval.workers.shared_workers."""
    @functools.wraps(experiment)
    def run(*args, **kwargs):
        from dtcli.crossval.workers import shared_workers

        with shared_workers():
            return experiment(*args, **kwargs)
    return run
