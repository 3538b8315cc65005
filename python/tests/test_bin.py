"""How the `agentbank` command finds the service's executable (agentbank/_bin.py)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from agentbank import _bin


def executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def no_bundled(monkeypatch, tmp_path):
    """As in the sdist or on a platform with no wheel: nothing in agentbank/bin."""
    monkeypatch.setattr(_bin, "BUNDLED", tmp_path / "absent" / "agentbank")
    monkeypatch.delenv("AGENTBANK_BIN", raising=False)


@pytest.mark.skipif(sys.platform == "win32", reason="shell scripts stand in for executables")
def test_agentbank_on_path_is_found_but_never_a_python_console_script(no_bundled, monkeypatch, tmp_path):
    scripts, tools = tmp_path / "scripts", tmp_path / "tools"
    scripts.mkdir(), tools.mkdir()
    # What an installer writes for this package's own command: running it would run itself.
    executable(scripts / "agentbank", f"#!{sys.executable}\nfrom agentbank._bin import main\nmain()\n")
    monkeypatch.setenv("PATH", os.pathsep.join([str(scripts), str(tools)]))
    with pytest.raises(_bin.BinaryNotFound, match="AGENTBANK_BIN.*PATH"):
        _bin.find_binary()
    service = executable(tools / "agentbank", "#!/bin/sh\necho service \"$@\"\n")
    assert _bin.find_binary() == str(service)


def test_agentbank_bin_wins_and_must_be_an_executable(monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTBANK_BIN", str(tmp_path / "missing"))
    with pytest.raises(_bin.BinaryNotFound, match="AGENTBANK_BIN"):
        _bin.find_binary()
    chosen = executable(tmp_path / "agentbank", "#!/bin/sh\n")
    monkeypatch.setenv("AGENTBANK_BIN", str(chosen))
    assert _bin.find_binary() == str(chosen)


def test_the_command_says_what_to_do_when_there_is_no_executable(tmp_path):
    program = (
        "import pathlib, agentbank._bin as b\n"
        f"b.BUNDLED = pathlib.Path({str(tmp_path / 'absent')!r})\n"
        "b.main()\n"
    )
    environment = {**os.environ, "PATH": str(tmp_path)}
    environment.pop("AGENTBANK_BIN", None)
    done = subprocess.run([sys.executable, "-c", program, "serve"], env=environment, capture_output=True, text=True)
    assert done.returncode == 1
    line = json.loads(done.stderr.strip())
    assert line["level"] == "error"
    assert "AGENTBANK_BIN" in line["msg"] and "PATH" in line["msg"]


@pytest.mark.skipif(sys.platform == "win32", reason="exec and shell scripts")
def test_the_command_runs_the_executable_with_the_same_arguments(tmp_path):
    service = executable(tmp_path / "agentbank", "#!/bin/sh\necho \"args: $*\"\nexit 7\n")
    environment = {**os.environ, "AGENTBANK_BIN": str(service)}
    done = subprocess.run(
        [sys.executable, "-c", "from agentbank._bin import main; main()", "dev", "--fresh"],
        env=environment, capture_output=True, text=True,
    )
    assert done.stdout == "args: dev --fresh\n"
    assert done.returncode == 7
