#!/usr/bin/env python3
"""scripts/synth_all.sh, the scheduled whole-NPU synthesis: its plan (one synth.py run per
array size, with the table, JSON and netlist where the docs say) and its usage errors. The
syntheses themselves take an hour or more, so this test does not run them; the units are
synthesized by the rtl.synth.* tests. Usage: synth_all_test.py SYNTH_ALL_SH"""
import subprocess
import sys
import tempfile

SCRIPT = sys.argv[1]
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))
    if not ok:
        failures.append(name)


def run(*args):
    p = subprocess.run(["bash", SCRIPT, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


with tempfile.TemporaryDirectory() as out:
    code, stdout, _ = run(out, "--dry-run")
    lines = stdout.splitlines()
    check("dry run: exit 0", code == 0, f"exit {code}")
    check("dry run: one synthesis per default size (8, 16, 32)", len(lines) == 3, stdout)
    for n, line in zip((8, 16, 32), lines):
        want = (f"python3 scripts/synth.py --array {n} --out {out}/npu{n} --json {out}/npu{n}.json"
                f" > {out}/npu{n}.txt")
        check(f"dry run: the {n}x{n} command", line == want, f"{line!r} != {want!r}")

    code, stdout, _ = run(out, "--arrays", "32", "--dry-run")
    check("--arrays 32: one command", code == 0 and stdout.count("synth.py") == 1
          and "--array 32 " in stdout, stdout)

    code, _, err = run(out, "--arrays", "8,12", "--dry-run")
    check("--arrays 8,12: a usage error naming 12", code == 2 and "12 is not an array size" in err,
          f"exit {code}: {err}")
    code, _, err = run("--dry-run")
    check("no OUT_DIR: a usage error", code == 2 and "usage" in err, f"exit {code}: {err}")
    code, _, err = run(out, "--bogus")
    check("unknown option: a usage error naming it", code == 2 and "--bogus" in err,
          f"exit {code}: {err}")
    code, _, err = run(out, "--arrays")
    check("--arrays without a value: a usage error", code == 2 and "usage" in err,
          f"exit {code}: {err}")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
