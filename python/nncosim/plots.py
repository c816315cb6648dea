"""Pictures of a run's report: the JSON `nncosim run --report` writes, Report.to_dict().

    cycles per step  each step's busy cycles of the load, compute, store and densify
                     units and the modelled host's time (at the NPU clock), stacked, with
                     the step's elapsed time (device cycles + host) as a black tick; the
                     units work in parallel, so a stack may rise above its tick
    MAC utilization  MACs / (cycles x array size) of each NPU step, with the run's
                     utilization of the device cycles and of the end-to-end time as lines
    roofline         each NPU step's MACs per DRAM byte against the MACs per cycle it
                     achieved, under the array's peak and the DRAM bandwidth line

plot_report() draws all three on one figure (and the run's totals beside the roofline);
draw_cycles(), draw_utilization() and draw_roofline() draw one each on a given Axes.
matplotlib only, without pyplot, so no display is needed; scripts/plot_report.py is the
command line. This file imports nothing else from the package: the script loads it by path
to draw a report without the built extension.
"""

import json
import os

from matplotlib.figure import Figure

# One colour per unit, the same in every picture.
UNITS = [
    ("load", "load_busy", "#4c72b0"),
    ("compute", "compute_busy", "#dd8452"),
    ("store", "store_busy", "#55a868"),
    ("densify", "densify_busy", "#8172b3"),
]
HOST_COLOUR = "#937860"
# Roofline markers per operation type; others get the last one.
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def as_report(report):
    """A report dict from a dict, a Report (anything with to_dict()) or a JSON file path."""
    if isinstance(report, dict):
        return report
    if hasattr(report, "to_dict"):
        return report.to_dict()
    if isinstance(report, (str, os.PathLike)):
        with open(report, encoding="utf-8") as f:
            return json.load(f)
    raise TypeError(f"expected a report dict, a Report or a path, not {type(report).__name__}")


def _steps(report):
    steps = report.get("steps") or []
    if not steps:
        raise ValueError(
            "the report has no steps (a run on the ref backend reports none: run on isa or sim)")
    return steps


def _label(step):
    return f"{step['step']} {step['operation']}"


def _host_cycles(step, clock_mhz):
    # The modelled host's nanoseconds at the NPU clock: one axis for both.
    return step.get("host", {}).get("model_ns", 0.0) * clock_mhz / 1000.0


def draw_cycles(ax, report, labels=True):
    """Per step: unit busy cycles and host time stacked, the elapsed time as a tick."""
    report = as_report(report)
    steps = _steps(report)
    clock = report.get("clock_mhz", 1000.0)
    x = range(len(steps))
    bottom = [0.0] * len(steps)
    for name, key, colour in UNITS:
        values = [s.get("counters", {}).get(key, 0) for s in steps]
        if not any(values):
            continue  # e.g. no densify step: keep the legend to what ran
        ax.bar(x, values, 0.8, bottom=bottom, color=colour, label=f"{name} busy")
        bottom = [b + v for b, v in zip(bottom, values)]
    host = [_host_cycles(s, clock) for s in steps]
    ax.bar(x, host, 0.8, bottom=bottom, color=HOST_COLOUR, label="host (modelled)")
    elapsed = [s.get("cycles", 0) + h for s, h in zip(steps, host)]
    top = max(max(b + h for b, h in zip(bottom, host)), max(elapsed))
    ax.set_ylim(0, 1.3 * top if top > 0 else 1)  # room for the legend above the bars
    ax.hlines(elapsed, [i - 0.42 for i in x], [i + 0.42 for i in x], colors="black",
              linewidth=1.6, label="elapsed: device cycles + host")
    ax.set_ylabel(f"cycles at {clock:g} MHz")
    ax.set_title("Cycles per step, stacked by unit busy time (units overlap: a stack above "
                 "its tick is parallel work)", fontsize=10)
    ax.ticklabel_format(axis="y", style="sci", scilimits=(-3, 4))
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.legend(fontsize=8, ncol=3, loc="upper right")
    _step_axis(ax, steps, labels)


def draw_utilization(ax, report, labels=True):
    """Per NPU step: MAC utilization of its cycles; the run's as horizontal lines."""
    report = as_report(report)
    steps = _steps(report)
    totals = report.get("totals", {})
    x = list(range(len(steps)))
    util = [100.0 * s.get("utilization", 0.0) for s in steps]
    colours = ["#dd8452" if s["where"] == "npu" else "#cccccc" for s in steps]
    ax.bar(x, util, 0.8, color=colours)
    for i, s in enumerate(steps):
        if s["where"] != "npu":
            ax.text(i, 1, "cpu", ha="center", va="bottom", fontsize=7, color="#666666",
                    rotation=90)
    if "utilization" in totals:
        ax.axhline(100.0 * totals["utilization"], color="#c44e52", linestyle="--", linewidth=1.2,
                   label=f"run, device cycles: {100.0 * totals['utilization']:.1f}%")
    if "utilization_end_to_end" in totals:
        e2e = 100.0 * totals["utilization_end_to_end"]
        ax.axhline(e2e, color="#4c72b0", linestyle=":", linewidth=1.5,
                   label=f"run, end to end (with the host): {e2e:.1f}%")
    rows, cols = report.get("array", [16, 16])
    ax.set_ylim(0, 100)
    ax.set_ylabel("MAC utilization %")
    ax.set_title(f"MAC utilization per step: MACs / (cycles x {rows}x{cols} array)", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.legend(fontsize=8, loc="upper right")
    _step_axis(ax, steps, labels)


def _step_axis(ax, steps, labels):
    ax.set_xlim(-0.6, len(steps) - 0.4)
    ax.set_xticks(range(len(steps)))
    if labels:
        ax.set_xticklabels([_label(s) for s in steps], rotation=90, fontsize=8)
    else:  # an Axes sharing its steps with the one below: that one carries the names
        ax.tick_params(labelbottom=False)


def draw_roofline(ax, report):
    """Each NPU step with MACs and DRAM traffic: intensity against achieved MACs/cycle."""
    report = as_report(report)
    steps = _steps(report)
    rows, cols = report.get("array", [16, 16])
    peak = float(rows * cols)
    bandwidth = float(report.get("dram_bytes_per_cycle", 0) or 0)
    points = []
    for s in steps:
        dram = s.get("dram_read_bytes", 0) + s.get("dram_write_bytes", 0)
        if s["where"] == "npu" and s["macs"] > 0 and dram > 0 and s.get("cycles", 0) > 0:
            points.append((s["macs"] / dram, s["macs"] / s["cycles"], s))
    skipped = sum(1 for s in steps if s["where"] == "npu") - len(points)
    if not points:
        ax.text(0.5, 0.5, "no NPU step with MACs and DRAM traffic", ha="center",
                transform=ax.transAxes)
        return
    xs = [p[0] for p in points]
    lo = min(min(xs) / 3, (peak / bandwidth) / 3 if bandwidth else min(xs) / 3)
    hi = max(max(xs) * 3, (peak / bandwidth) * 3 if bandwidth else max(xs) * 3)
    grid = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    ax.plot(grid, [peak] * len(grid), color="black", linewidth=1.5,
            label=f"peak: {peak:g} MACs/cycle ({rows}x{cols} array)")
    if bandwidth:
        ax.plot(grid, [min(peak, bandwidth * g) for g in grid], color="#c44e52", linewidth=1.5,
                label=f"roof: DRAM {bandwidth:g} B/cycle x intensity, capped at the peak")
        ax.plot(grid, [bandwidth * g for g in grid], color="#c44e52", linewidth=0.8,
                linestyle=":")
    types = sorted({p[2]["operation"] for p in points})
    for k, t in enumerate(types):
        mine = [p for p in points if p[2]["operation"] == t]
        ax.scatter([p[0] for p in mine], [p[1] for p in mine], s=36,
                   marker=MARKERS[min(k, len(MARKERS) - 1)], label=t, zorder=3)
    for xi, yi, s in points:
        ax.annotate(str(s["step"]), (xi, yi), textcoords="offset points", xytext=(4, 3),
                    fontsize=7, color="#333333")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ys = [p[1] for p in points]
    ax.set_ylim(min(ys) / 3, peak * 2.5)
    ax.set_xlim(lo, hi)
    ax.set_xlabel("operational intensity: MACs per DRAM byte (NPU reads + writes)")
    ax.set_ylabel("achieved MACs per cycle")
    note = (f" ({skipped} NPU step{'s' if skipped > 1 else ''} without MACs left out)"
            if skipped else "")
    ax.set_title("Roofline: each NPU step, labelled by its step number" + note, fontsize=10)
    ax.grid(which="both", alpha=0.25)
    ax.legend(fontsize=8, loc="lower right")


def _totals_text(report):
    t = report.get("totals", {})
    lines = [
        f"model: {report.get('model', '?')}",
        f"backend: {report.get('backend', '?')}, preference {report.get('preference', '?')}",
        f"{t.get('npu_steps', 0)} steps on the NPU, {t.get('cpu_steps', 0)} on the CPU",
        f"{t.get('macs', 0):,} MACs ({t.get('npu_macs', 0):,} on the NPU)",
        "",
        f"end to end {t.get('end_to_end_us', 0):,.1f} us",
        f"  = device {t.get('npu_cycles', 0):,} cycles ({t.get('device_us', 0):,.1f} us)",
        f"  + host {t.get('host_model_us', 0):,.1f} us (modelled)",
        f"MAC utilization {100 * t.get('utilization', 0):.1f}% of the device cycles,",
        f"  {100 * t.get('utilization_end_to_end', 0):.1f}% of the end-to-end time",
        f"DRAM: NPU {t.get('dram_bytes', 0):,} B, host {t.get('host_dram_bytes', 0):,} B",
        f"energy {t.get('energy_uj', 0):,.2f} uJ",
    ]
    if report.get("checked"):
        bad = t.get("mismatches", 0)
        lines.append("cross-check: " + (f"{bad} NPU steps MISMATCH" if bad
                                        else "every NPU step bit-exact"))
    return "\n".join(lines)


def plot_report(report, path=None, title=None, dpi=100):
    """The three pictures and the totals on one figure; saved as `path` (PNG, or any format
    matplotlib knows by the extension) when given. Returns the matplotlib Figure."""
    report = as_report(report)
    steps = _steps(report)
    width = max(12.0, 4.0 + 0.42 * len(steps))
    fig = Figure(figsize=(width, 17), layout="constrained")
    grid = fig.add_gridspec(3, 2, height_ratios=[3.2, 2.6, 4.2], width_ratios=[2.2, 1])
    cycles = fig.add_subplot(grid[0, :])
    util = fig.add_subplot(grid[1, :], sharex=cycles)
    roof = fig.add_subplot(grid[2, 0])
    text = fig.add_subplot(grid[2, 1])
    draw_cycles(cycles, report, labels=False)
    draw_utilization(util, report)
    draw_roofline(roof, report)
    text.axis("off")
    text.text(0.0, 1.0, _totals_text(report), va="top", ha="left", family="monospace",
              fontsize=9, transform=text.transAxes)
    fig.suptitle(title or f"{report.get('model', 'run')} on {report.get('backend', '?')}",
                 fontsize=13)
    if path is not None:
        fig.savefig(path, dpi=dpi)
    return fig

