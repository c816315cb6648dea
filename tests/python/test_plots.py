"""Pictures of reports: the MobileNet-v1 report of `nncosim run` (31 steps) through
scripts/plot_report.py and through the module, and a report the module made itself. Files
exist and are not trivial; no pixel is asserted."""
import json
import subprocess
import sys

import pytest

import nncosim


@pytest.fixture(scope="module")
def mobilenet_report(tmp_path_factory, source_dir, cli):
    out = tmp_path_factory.mktemp("mobilenet")
    subprocess.run([sys.executable, f"{source_dir}/scripts/gen_mobilenet_v1.py", "-o",
                    out / "mobilenet.json", "--inputs-out", out / "inputs.json"], check=True,
                   capture_output=True)
    subprocess.run([cli, "run", out / "mobilenet.json", "--inputs", out / "inputs.json",
                    "--report", out / "report.json"], check=True, capture_output=True)
    return out / "report.json"


def assert_picture(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    assert len(data) > 50_000, f"{path}: only {len(data)} bytes"


def test_plot_report_script_draws_mobilenet(mobilenet_report, source_dir, tmp_path):
    png = tmp_path / "mobilenet.png"
    proc = subprocess.run([sys.executable, f"{source_dir}/scripts/plot_report.py",
                           mobilenet_report, "-o", png], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(mobilenet_report.read_text())["steps"]) == 31
    assert_picture(png)


def test_the_module_draws_the_same_report(mobilenet_report, tmp_path):
    fig = nncosim.plot_report(str(mobilenet_report), tmp_path / "from_python.png")
    assert len(fig.axes) == 4  # cycles, utilization, roofline, totals
    assert_picture(tmp_path / "from_python.png")


def test_a_run_draws_its_own_report(tmp_path):
    report = nncosim.demo().prepare(backend="isa").run(check=True).report
    report.plot(tmp_path / "demo.png")
    assert_picture(tmp_path / "demo.png")
    report.save(tmp_path / "demo.json")  # the --report file draws the same
    nncosim.plot_report(str(tmp_path / "demo.json"), tmp_path / "demo_again.png")
    assert_picture(tmp_path / "demo_again.png")


def test_reports_without_steps_are_refused(tmp_path):
    report = nncosim.demo().prepare(backend="ref").run().report
    assert report.steps() == [] and report.totals == {}
    with pytest.raises(ValueError, match="no steps"):
        report.plot(tmp_path / "ref.png")
