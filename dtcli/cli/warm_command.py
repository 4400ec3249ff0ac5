"""`dtree warm`: compile the engine ahead, on all cores."""
from __future__ import annotations

import click

from dtcli.cli.options import CONTEXT, jobs_option, quiet_option
from dtcli.experiments.notes import stderr_console


@click.command(context_settings=CONTEXT)
@click.option("--criteria", "criteria_entries", multiple=True, metavar="LIST",
              help="Comma-separated criteria, NAME[:P=V...] as in compare (default: all).")
@click.option("--two-class/--any-classes", default=False,
              help="Only the two-class forms (what imbalanced binary data needs).")
@click.option("--numeric/--any-features", default=False,
              help="Only the forms for data without nominal features.")
@click.option("--check", is_flag=True,
              help="First read every file of the kernel cache; remove the damaged ones "
                   "(named on stderr), so that they are compiled again.")
@jobs_option("one process compiling per core (default: all cores)")
@quiet_option()
def warm(criteria_entries, two_class, numeric, check, jobs, quiet):
    """Compile the kernels of the given criteria for every form of data, in parallel.

    The first fit compiles the engine's drivers, once for every criterion, and
    the first fit of a criterion on a form of data (two classes or more,
    nominal features or not) its split search, once, into the cache; `warm`
    does it ahead, one unit per core. Run it after installing, or in a job
    script before timing anything.

    \b
    Examples:
      dtree warm --criteria gini,entropy,ihdw --two-class --numeric
      dtree warm --check     # verify and repair the cache, then warm it
    """
    import itertools
    import time

    from dtcli.criteria import CRITERIA
    from dtcli.engine.warm import Form, WarmTask, warm as compile_ahead
    from dtcli.crossval.method_syntax import fixed_choices, refuse_blank

    refuse_blank(criteria_entries)
    choices = fixed_choices(criteria_entries or [",".join(CRITERIA)])
    forms = [Form(two, nominal, levels) for two, nominal, levels
             in itertools.product((True, False), repeat=3)
             if (two or not two_class) and (not nominal or not numeric)]
    tasks = [WarmTask(c.name, c.params, form) for c in choices for form in forms]
    start = time.perf_counter()
    if check:
        from dtcli.engine.warm import check_cache

        for path in check_cache():
            click.echo(f"warm: removed the damaged cache file {path}", err=True)
    compiled = compile_ahead(tasks, jobs)
    if not quiet:
        stderr_console().print(f"warm: {compiled} units compiled in "
                               f"{time.perf_counter() - start:.1f} s for {len(tasks)} "
                               "(criterion, form) pairs; the others were warm already")
