#!/usr/bin/env python3
"""Draws a run's report as pictures: per-step cycles stacked by unit busy time (load,
compute, store, densify, host), MAC utilization per step, and a roofline (MACs per DRAM
byte against achieved MACs per cycle, under the array's peak and the DRAM bandwidth).

    build/cli/nncosim run MODEL --report report.json
    scripts/plot_report.py report.json -o report.png

The drawing is python/nncosim/plots.py (what Report.plot() and nncosim.plot_report() use
from Python), loaded here by path so that only matplotlib is needed, not the built module.
"""
import argparse
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PLOTS = os.path.join(HERE, "..", "python", "nncosim", "plots.py")


def load_plots():
    spec = importlib.util.spec_from_file_location("nncosim_plots", PLOTS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("report", help="the JSON of `nncosim run --report`")
    ap.add_argument("-o", "--output", required=True, help="the picture (.png, .svg, .pdf)")
    ap.add_argument("--title", help="the figure's title (default: model on backend)")
    ap.add_argument("--dpi", type=int, default=100)
    args = ap.parse_args()
    try:
        plots = load_plots()
    except ImportError as e:
        sys.exit(f"plot_report: {e} (install python3-matplotlib: scripts/setup.sh)")
    try:
        plots.plot_report(args.report, args.output, title=args.title, dpi=args.dpi)
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"plot_report: {args.report}: {e}")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
