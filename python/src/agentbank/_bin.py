"""The `agentbank` command: runs the service's single executable with the same arguments.

A platform wheel carries the executable in `agentbank/bin/`. The sdist and a platform with no wheel carry
none: then `AGENTBANK_BIN` or an `agentbank` executable on PATH (never this Python script itself) is used.
`AGENTBANK_BIN`, when set, wins over both, so a test or a developer can point at a build of their own.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

EXECUTABLE = "agentbank.exe" if sys.platform == "win32" else "agentbank"
BUNDLED = Path(__file__).parent / "bin" / EXECUTABLE


class BinaryNotFound(RuntimeError):
    """No service executable: not bundled in this installation, no AGENTBANK_BIN, none on PATH."""


def _is_python_script(path: Path) -> bool:
    """True for a console script made by an installer (this package's `agentbank` or a copy of it)."""
    try:
        with path.open("rb") as file:
            head = file.read(256)
    except OSError:
        return False
    first_line = head.split(b"\n", 1)[0]
    return first_line.startswith(b"#!") and b"python" in first_line


def _own_scripts() -> set[Path]:
    """This environment's console scripts named agentbank: found on PATH, they would run themselves."""
    found = set()
    for scheme_dir in {sysconfig.get_path("scripts"), str(Path(sys.argv[0]).parent) if sys.argv[0] else ""}:
        if scheme_dir:
            for name in ("agentbank", "agentbank.exe"):
                candidate = Path(scheme_dir) / name
                if candidate.exists():
                    found.add(candidate.resolve())
    return found


def _on_path() -> str | None:
    own = _own_scripts()
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if not directory:
            continue
        found = shutil.which("agentbank", path=directory)
        if found is None:
            continue
        resolved = Path(found).resolve()
        if resolved in own or _is_python_script(resolved):
            continue
        return found
    return None


def find_binary() -> str:
    """The service executable's path: AGENTBANK_BIN, else the one bundled in the wheel, else `agentbank` on PATH."""
    configured = os.environ.get("AGENTBANK_BIN")
    if configured:
        if not (os.path.isfile(configured) and os.access(configured, os.X_OK)):
            raise BinaryNotFound(f"AGENTBANK_BIN is {configured!r}, which is not an executable file")
        return configured
    if BUNDLED.is_file():
        return str(BUNDLED)
    found = _on_path()
    if found is not None:
        return found
    raise BinaryNotFound(
        "this installation of the agentbank package has no service executable (an sdist, or a platform with "
        "no agentbank wheel): set AGENTBANK_BIN to the path of an agentbank executable (`bun run build` in a "
        "checkout of agentbank makes dist/agentbank) or put one named agentbank on PATH"
    )


def main() -> None:
    """Entry point of the `agentbank` console script."""
    try:
        binary = find_binary()
    except BinaryNotFound as error:
        # As the service itself reports a failure: one JSON line on stderr, exit status 1.
        print(json.dumps({"level": "error", "msg": f"agentbank: {error}"}), file=sys.stderr)
        sys.exit(1)
    arguments = [binary, *sys.argv[1:]]
    if sys.platform == "win32":
        # No exec on Windows: run it as a child; Ctrl+C reaches it through the console, its status is ours.
        try:
            sys.exit(subprocess.call(arguments))
        except KeyboardInterrupt:
            sys.exit(130)
    # The process becomes the service: signals, stdio and the exit status are its own.
    os.execv(binary, arguments)
