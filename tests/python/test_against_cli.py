"""The module against the CLI: the demo network on sim with check=True and a conformance
vector test give the outputs and cycles of `nncosim run`, step for step; errors carry the
CLI's messages; the process's one simulated SoC refuses a second configuration; prepare's
fuse=False is `--no-fuse`."""
import json
import subprocess
import sys

import numpy as np
import pytest

import nncosim

# Per-step fields that do not depend on this machine's speed (host.model_ns does: CPU
# steps are timed here, and energy_pj's CPU share with them).
STEP_KEYS = ("step", "operation", "where", "macs", "note", "cycles", "start_cycle", "utilization",
             "dram_read_bytes", "dram_write_bytes", "counters", "jobs", "commands", "check")
HOST_KEYS = ("packed_bytes", "copied_in_bytes", "unpacked_bytes", "copied_out_bytes", "dram_bytes")
needs_sim = pytest.mark.skipif("sim" not in nncosim.backends, reason="a build without hardware")

TOTAL_KEYS = ("npu_steps", "cpu_steps", "macs", "npu_macs", "npu_cycles", "dram_bytes",
              "mismatches", "utilization", "host_dram_bytes", "host_layout_bytes", "host_bytes_between_npu_steps",
              "upload_bytes")


def cli_report(run_cli, tmp_path, *args):
    path = tmp_path / "cli_report.json"
    proc = run_cli("run", *args, "--report", path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(path.read_text())


def assert_same_run(result, cli, test=None):
    mine = result.report.to_dict()
    # The CLI names a run by its file; the module names a vector file's test "file:test".
    assert mine["model"] == (f"{cli['model']}:{test}" if test else cli["model"])
    assert len(mine["steps"]) == len(cli["steps"])
    for a, b in zip(mine["steps"], cli["steps"]):
        for k in STEP_KEYS:
            assert a.get(k) == b.get(k), f"step {a['step']} {k}: module {a.get(k)}, CLI {b.get(k)}"
        for k in HOST_KEYS:
            assert a["host"][k] == b["host"][k], f"step {a['step']} host {k}"
    for k in TOTAL_KEYS:
        assert mine["totals"][k] == cli["totals"][k], k
    for k in ("backend", "preference", "soc", "array", "clock_mhz",
              "dram_bytes_per_cycle", "checked", "validations"):
        assert mine[k] == cli[k], k
    assert result.report.cycles == cli["totals"]["npu_cycles"]
    assert len(result.outputs) == len(cli["outputs"])
    for out, ref in zip(result.outputs, cli["outputs"]):
        assert list(out.shape) == ref["dimensions"]
        assert out.dtype == np.dtype(nncosim_dtype(ref["type"]))
        assert np.array_equal(out, np.array(ref["data"], dtype=out.dtype).reshape(out.shape))


def nncosim_dtype(operand_type):
    return {"TENSOR_FLOAT32": "float32", "TENSOR_QUANT8_ASYMM": "uint8",
            "TENSOR_QUANT8_ASYMM_SIGNED": "int8", "TENSOR_INT32": "int32",
            "TENSOR_QUANT16_SYMM": "int16"}[operand_type]


@needs_sim
def test_demo_on_sim_with_check_equals_the_cli(run_cli, tmp_path):
    cli = cli_report(run_cli, tmp_path, "--backend", "sim", "--check")
    result = nncosim.demo().prepare(backend="sim").run(check=True)
    assert_same_run(result, cli)
    steps = result.report.steps()
    assert [s["check"] for s in steps if s["where"] == "npu"] == ["ok"] * 5
    assert result.report.mismatches == 0 and result.report.checked
    t = result.report.totals
    assert result.report.end_to_end_us == pytest.approx(t["device_us"] + t["host_model_us"])
    assert "every NPU step bit-exact" in result.report.table()


def test_demo_on_isa_equals_the_cli(run_cli, tmp_path):
    cli = cli_report(run_cli, tmp_path, "--backend", "isa")
    assert_same_run(nncosim.demo().prepare(backend="isa").run(), cli)


@needs_sim
def test_isa_takes_the_socs_dram_settings_as_the_cli(run_cli, tmp_path):
    cli = cli_report(run_cli, tmp_path, "--backend", "isa", "--set", "dram_latency_cycles=400")
    slow = nncosim.demo().prepare(backend="isa", config={"dram_latency_cycles": 400}).run()
    assert_same_run(slow, cli)
    assert slow.report.cycles > nncosim.demo().prepare(backend="isa").run().report.cycles
    with pytest.raises(nncosim.Error, match="ref backend has no SoC"):
        nncosim.demo().prepare(backend="ref", config={"dram_latency_cycles": 400})


@needs_sim
def test_a_conformance_test_equals_the_cli(run_cli, conformance_dir, tmp_path):
    # `nncosim run` takes a file of one model: this vector file's first test on its own.
    source = f"{conformance_dir}/V1_0/conv_quant8_large.json"
    vectors = json.load(open(source))
    name = vectors["tests"][0]["name"]
    vectors["tests"] = vectors["tests"][:1]
    single = tmp_path / "conv_quant8_large_1.json"
    single.write_text(json.dumps(vectors))
    cli = cli_report(run_cli, tmp_path, single, "--backend", "sim", "--check")
    model = nncosim.load(str(single))
    assert model.name == f"{single}:{name}" and len(model.inputs) == 1
    result = model.prepare(backend="sim").run(check=True)
    assert_same_run(result, cli, test=name)
    assert result.report.totals["npu_steps"] == 1
    # The same test picked from the whole file runs the same.
    whole = nncosim.load(source, test=name).prepare(backend="sim").run(check=True)
    assert whole.report.cycles == result.report.cycles
    assert all(np.array_equal(a, b) for a, b in zip(whole.outputs, result.outputs))
    assert len(nncosim.load_all(source)) == len(json.load(open(source))["tests"])


def cli_error(run_cli, *args):
    proc = run_cli("run", *args)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    return proc.stderr.strip()


def test_load_errors_carry_the_cli_messages(run_cli, tmp_path):
    missing = tmp_path / "missing.json"
    with pytest.raises(nncosim.Error) as e:
        nncosim.load(str(missing))
    assert str(e.value) == cli_error(run_cli, missing)
    malformed = tmp_path / "malformed.json"
    malformed.write_text('{"format": "nncosim-model/1", "main": {"operands": [')
    with pytest.raises(nncosim.Error) as e:
        nncosim.load(str(malformed))
    assert str(e.value) == cli_error(run_cli, malformed)


def test_prepare_errors_carry_the_cli_messages(run_cli, tmp_path):
    bad = tmp_path / "bad_zero_point.json"
    operand = {"type": "TENSOR_QUANT8_ASYMM", "dimensions": [1, 4], "scale": 0.5,
               "zeroPoint": 300, "lifetime": "SUBGRAPH_INPUT"}
    bad.write_text(json.dumps({"format": "nncosim-model/1", "main": {
        "operands": [operand, dict(operand, zeroPoint=0, lifetime="SUBGRAPH_OUTPUT")],
        "operations": [{"type": "RELU", "inputs": [0], "outputs": [1]}],
        "inputIndexes": [0], "outputIndexes": [1]}}))
    model = nncosim.load(str(bad))
    with pytest.raises(nncosim.Error) as e:
        model.prepare(backend="isa")
    assert str(e.value) == cli_error(run_cli, bad, "--backend", "isa")
    assert "zeroPoint 300" in str(e.value)
    with pytest.raises(nncosim.Error, match="zeroPoint 300"):
        model.info()


def test_info_is_nncosim_info(run_cli):
    info = nncosim.demo().info()
    text = run_cli("info", "--no-operands").stdout
    assert f"total: {info['macs']} MACs, {info['constant_bytes']} constant bytes" in text
    assert [op["type"] for op in info["subgraphs"][0]["operations"]][:2] == ["CONV_2D",
                                                                            "DEPTHWISE_CONV_2D"]
    assert info["inputs"][0]["dtype"] == "int8" and info["inputs"][0]["name"] == "image"


@needs_sim
def test_the_soc_elaborates_once_per_process():
    demo = nncosim.demo()
    cycles = demo.prepare(backend="sim").run().report.cycles
    # The same settings, spelled out, share it.
    demo.prepare(backend="sim", config={"dram_latency_cycles": 40, "clock_mhz": 1000.0})
    with pytest.raises(nncosim.Error, match="elaborates once per process.*"
                                            "dram_latency_cycles 40 -> 80"):
        demo.prepare(backend="sim", config={"dram_latency_cycles": 80})
    with pytest.raises(nncosim.Error, match="host clock_mhz 2000 -> 1000"):
        demo.prepare(backend="sim", host={"clock_mhz": 1000})
    # Refused preparations leave the running SoC as it was.
    assert demo.prepare(backend="sim").run().report.cycles == cycles
    with pytest.raises(nncosim.Error, match="unknown key 'bogus'"):
        demo.prepare(backend="sim", config={"bogus": 1})
    with pytest.raises(nncosim.Error, match="unknown backend 'gpu'"):
        demo.prepare(backend="gpu")


def test_prepare_without_fusion_equals_the_cli_no_fuse(run_cli, source_dir, tmp_path):
    # A small MobileNet-v1: its depthwise -> pointwise pairs fuse unless told not to.
    model, inputs = tmp_path / "mobilenet.json", tmp_path / "inputs.json"
    subprocess.run([sys.executable, f"{source_dir}/scripts/gen_mobilenet_v1.py", "-o", model,
                    "--inputs-out", inputs, "--size", "64", "--width-multiplier", "0.25",
                    "--classes", "10"], check=True, capture_output=True)
    cli = cli_report(run_cli, tmp_path, model, "--inputs", inputs, "--backend", "isa", "--no-fuse")
    image = json.loads(inputs.read_text())["inputs"][0]
    x = np.array(image["data"], dtype=np.int8).reshape(image["dimensions"])
    m = nncosim.load(str(model))
    apart = m.prepare(backend="isa", fuse=False).run(x)
    assert_same_run(apart, cli)
    fused = m.prepare(backend="isa").run(x)
    assert not any(s["note"].startswith("fused") for s in apart.report.steps())
    assert any(s["note"].startswith("fused") for s in fused.report.steps())
    assert len(fused.outputs) == len(apart.outputs) == 1
    assert np.array_equal(fused.outputs[0], apart.outputs[0])
