"""Testbenches and difftests from Python: the summaries of `nncosim testbench` and
`nncosim difftest`, run in forked processes that leave this process's SoC alone."""
import pytest

import nncosim

pytestmark = pytest.mark.skipif("sim" not in nncosim.backends, reason="a build without hardware")


def test_testbenches_are_listed():
    names = nncosim.testbenches()
    assert {"requant", "mac_array", "npu_top", "soc"} <= set(names)
    assert all(isinstance(d, str) and d for d in names.values())


def test_a_block_testbench_returns_its_summary():
    r = nncosim.testbench("requant", seed=3, ci=True)
    assert r["passed"] and r["name"] == "requant" and r["seed"] == 3
    assert r["iterations"] > 0 and r["cycles"] > 0 and r["mismatches"] == 0 and r["summary"]


def test_the_soc_testbench_leaves_the_process_soc_alone():
    prepared = nncosim.demo().prepare(backend="sim")
    before = prepared.run(check=True)
    r = nncosim.testbench("soc", ci=True)  # jobs of its own on a copy of this SoC
    assert r["passed"], r["summary"]
    after = prepared.run(check=True)  # the model's constants are still where it left them
    assert after.report.cycles == before.report.cycles
    assert (after.outputs[0] == before.outputs[0]).all()


def test_an_unknown_testbench_is_an_error():
    with pytest.raises(nncosim.Error, match="unknown testbench 'nope'"):
        nncosim.testbench("nope")


@pytest.mark.parametrize("backend, layers", [("isa", 40), ("sim", 8)])
def test_difftest_returns_its_summary(backend, layers):
    s = nncosim.difftest(layers=layers, seed=1, backend=backend)
    assert s["ok"] and s["layers"] == layers and s["mismatches"] == 0 and s["errors"] == 0
    assert s["npu_checked"] + s["fallbacks"] == layers and s["npu_checked"] > 0
    assert s["npu_backend"] == backend and s["npu_cycles"] > 0
    assert sum(t["layers"] for t in s["by_operation"].values()) == layers
    assert "mismatches" in s["text"]


def test_difftest_draws_the_elementwise_and_pooling_kinds():
    # ISA 1.7's units: ADD, SUB and MUL on the elementwise unit, MAX_POOL_2D on the pooling unit.
    s = nncosim.difftest(layers=40, seed=2, backend="isa", ops=["ADD", "SUB", "MUL", "MAX_POOL_2D"])
    assert s["ok"] and s["mismatches"] == 0 and s["errors"] == 0
    assert set(s["by_operation"]) <= {"ADD", "SUB", "MUL", "MAX_POOL_2D"}
    assert s["npu_checked"] > 30


def test_difftest_draws_mean_on_the_pooling_unit():
    # ISA 1.8: MEAN over height and/or width as truncating AVG windows; means over the
    # channels fall back with their reason.
    s = nncosim.difftest(layers=40, seed=3, backend="isa", ops=["MEAN"])
    assert s["ok"] and s["mismatches"] == 0 and s["errors"] == 0
    assert set(s["by_operation"]) == {"MEAN"}
    assert s["npu_checked"] > 30


def test_difftest_options_are_checked():
    with pytest.raises(nncosim.Error, match="ops: 'MAXIMUM' is not one of"):
        nncosim.difftest(layers=1, ops=["MAXIMUM"])
    with pytest.raises(nncosim.Error, match="backend must be sim or isa"):
        nncosim.difftest(layers=1, backend="ref")
    with pytest.raises(nncosim.Error, match="unknown mapping 'diagonal'"):
        nncosim.difftest(layers=1, mapping="diagonal")
    s = nncosim.difftest(layers=5, backend="isa", ops="CONV_2D", mapping="dma-im2col")
    assert set(s["by_operation"]) == {"CONV_2D"} and s["npu_backend"] == "isa (dma-im2col)"
