"""Fixtures of the Python module's tests (ctest python.*): the paths ctest passes in the
environment. Each test file runs in its own interpreter, so each elaborates its own SoC."""
import os
import subprocess

import pytest


def _env(name):
    value = os.environ.get(name)
    if not value:
        pytest.exit(f"{name} is not set (run these tests through ctest: python.*)", returncode=2)
    return value


@pytest.fixture(scope="session")
def cli():
    """The nncosim command of the same build."""
    return _env("NNCOSIM_CLI")


@pytest.fixture(scope="session")
def source_dir():
    return _env("NNC_SOURCE_DIR")


@pytest.fixture(scope="session")
def conformance_dir():
    path = _env("NNC_CONFORMANCE_DIR")
    if not os.path.isdir(path):
        pytest.skip(f"no conformance vectors at {path}")
    return path


@pytest.fixture(scope="session")
def run_cli(cli):
    """Runs `nncosim ARGS...` and returns the completed process (text output)."""

    def run(*args):
        return subprocess.run([cli, *map(str, args)], capture_output=True, text=True, timeout=600)

    return run
