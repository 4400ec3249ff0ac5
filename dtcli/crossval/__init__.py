"""Running experiments: the methods (typed, and their --criteria syntax), cross-validation
folds, tasks and their keys, the batch path that grows every fold's tree from one presort,
in-process, worker-process and Dask runners, and the --results file that resumes a run."""
