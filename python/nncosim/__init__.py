"""nncosim from Python: models in, NumPy arrays out, reports as dicts and pictures.

    import nncosim
    model = nncosim.demo()               # or nncosim.load("m.json" | "m.tflite" | vectors)
    run = model.prepare(backend="sim").run(check=True)
    run.outputs[0]                       # a numpy.ndarray of the output operand's type
    run.report.steps()                   # one dict per step, as `nncosim run --report`
    run.report.plot("report.png")        # cycles by unit, utilization, roofline

The simulated SoC elaborates once per process, as in the CLI: every prepare() on "sim"
shares it, and one asking for another SoC configuration or host model raises
nncosim.Error (use another process for that). Testbenches and difftests run in forked
processes. docs/python.md has the whole interface.
"""

from ._nncosim import (
    Error,
    InputError,
    MismatchError,
    Model,
    PreparedModel,
    Report,
    Result,
    backends,
    demo,
    difftest,
    load,
    load_all,
    testbench,
    testbenches,
)

__version__ = "0.1.0"


def plot_report(report, path=None, **options):
    """Draws a report (a Report, its to_dict(), or a --report JSON file's path): the
    pictures of nncosim.plots.plot_report. Imports matplotlib only when called."""
    from . import plots

    return plots.plot_report(report, path, **options)
