"""What failure looks like from Python: a faulty NPU (the SoC's fault injection, every DRAM
write burst's first byte XOR 1) makes check=True raise MismatchError carrying the run and a
difftest count mismatches; a worker killed mid-job fails the call naming the signal, and the
next job runs; Ctrl-C stops a job and leaves no process behind. This file's process runs its
SoC with the fault injected, so it is a file of its own (one SoC per process)."""
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import nncosim

pytestmark = pytest.mark.skipif("sim" not in nncosim.backends, reason="a build without hardware")

FAULT = {"fault_write_xor": 1}


def _children(pid):
    """The live (non-zombie) processes whose parent is pid."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(d))
    return found


def _workers(pid, timeout=60):
    """Waits for the job workers of process pid: the children of its worker host."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        workers = [w for host in _children(pid) for w in _children(host)]
        if workers:
            return workers
        time.sleep(0.05)
    return []


def test_check_raises_mismatch_error_on_a_faulty_npu():
    prepared = nncosim.demo().prepare(backend="sim", config=FAULT)
    assert "FAULT INJECTED" in prepared.soc
    with pytest.raises(nncosim.MismatchError) as caught:
        prepared.run(check=True)
    message = str(caught.value)
    # The demo's first three layers are one fused step, checked at its last operation.
    assert "MISMATCH step 2 (CONV_2D)" in message
    result = caught.value.result
    assert result.report.mismatches > 0 and result.outputs[0].shape == (1, 10)
    bad = [s for s in result.report.steps() if s.get("check") == "MISMATCH"]
    assert bad and all(s["where"] == "npu" and s["mismatch"] for s in bad)
    assert len(bad) == result.report.mismatches
    # Without the check the fault goes unseen, as a real one would: the outputs differ
    # from the reference's and nothing says so.
    unchecked = prepared.run()
    assert unchecked.report.mismatches == 0 and not unchecked.report.checked
    reference = nncosim.demo().prepare(backend="ref").run()
    assert (unchecked.outputs[0] != reference.outputs[0]).any()


def test_difftest_counts_the_mismatches_of_a_faulty_npu():
    s = nncosim.difftest(layers=6, seed=2, backend="sim", config=FAULT)
    assert not s["ok"] and s["mismatches"] > 0 and s["failures"]
    assert s["mismatches"] + s["matched"] == s["npu_checked"]


def test_a_worker_killed_mid_job_fails_the_call_naming_the_signal():
    outcome = {}

    def job():
        try:
            outcome["result"] = nncosim.testbench("npu_top", seed=1, iterations=100000)
        except nncosim.Error as e:
            outcome["error"] = str(e)

    thread = threading.Thread(target=job)
    thread.start()
    workers = _workers(os.getpid())
    assert workers, "no worker process appeared"
    for w in workers:
        os.kill(w, signal.SIGKILL)
    thread.join(120)
    assert not thread.is_alive()
    assert "result" not in outcome
    assert "npu_top" in outcome["error"] and "crashed with signal 9 (Killed)" in outcome["error"]
    # The worker host is still there: the next job runs.
    assert nncosim.testbench("requant", seed=1, ci=True)["passed"]


def test_ctrl_c_stops_a_job_and_leaves_no_process_behind():
    code = (
        "import nncosim, sys\n"
        "try:\n"
        "    nncosim.testbench('npu_top', seed=1, iterations=100000)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
        "    sys.exit(3)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        workers = _workers(p.pid)
        hosts = _children(p.pid)
        assert workers, "no worker process appeared"
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode == 3 and "interrupted" in out
    deadline = time.time() + 10
    left = workers + hosts
    while left and time.time() < deadline:
        left = [q for q in left if os.path.exists(f"/proc/{q}") and _state(q) != "Z"]
        time.sleep(0.05)
    assert not left, f"processes left behind: {left}"


def _state(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"
