"""numba support below the engine and the criteria: compilation flags (`flags`), the
disk cache and its key (`cache`), fast typing of unfingerprinted arguments
(`dispatch`), calls of compiled functions by address (`indirect`) and the thread
pool that runs serial kernels on chunks of work (`threads`)."""
