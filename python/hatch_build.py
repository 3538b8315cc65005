"""Hatch build hook: a platform wheel carries the service's single executable, tagged for what it runs on.

The executable is `AGENTBANK_WHEEL_BINARY` (a path; the release script and CI set it), else `dist/agentbank`
of the checkout around this folder. It goes in as `agentbank/bin/agentbank` (`.exe` for Windows) and the
wheel's tag is read from the executable itself, so a cross-compiled one is tagged for its own platform:
- Linux (ELF): `manylinux_2_N_<arch>` where 2.N is the highest GLIBC symbol version it needs (and the
  legacy alias manylinux2014 when N is 17), so pip installs it exactly where its loader's needs are met;
- macOS (Mach-O): `macosx_<minimum OS it was built for>_<arch>`;
- Windows (PE): `win_amd64` / `win_arm64`.
No executable (the sdist built on a platform with no wheel, or a plain `pip install .`): a pure wheel,
whose `agentbank` command then looks for AGENTBANK_BIN or `agentbank` on PATH (agentbank/_bin.py).
An editable install never carries it.
"""

from __future__ import annotations

import os
import re
import struct
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

ELF_MACHINES = {62: "x86_64", 183: "aarch64"}
MACHO_CPUS = {0x01000007: "x86_64", 0x0100000C: "arm64"}
PE_MACHINES = {0x8664: "win_amd64", 0xAA64: "win_arm64"}


def _elf_tag(data: bytes) -> str:
    if data[4] != 2 or data[5] != 1:
        raise ValueError("only 64-bit little-endian ELF executables are packaged")
    machine = struct.unpack_from("<H", data, 18)[0]
    arch = ELF_MACHINES.get(machine)
    if arch is None:
        raise ValueError(f"ELF machine {machine} has no wheel tag here")
    section_offset, = struct.unpack_from("<Q", data, 0x28)
    entry_size, count, names_index = struct.unpack_from("<HHH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, section_offset + i * entry_size) for i in range(count)]
    names = sections[names_index]

    def name_of(section: tuple[int, ...]) -> bytes:
        start = names[4] + section[0]
        return data[start : data.index(b"\0", start)]

    needs = next((s for s in sections if name_of(s) == b".gnu.version_r"), None)
    if needs is None:
        raise ValueError("the executable has no symbol version needs (.gnu.version_r): not a glibc executable")
    strings = sections[needs[6]][4]  # sh_link: the string table the entries name into
    highest = (2, 17)  # manylinux's floor; older needs still install there
    entry = needs[4]
    while True:
        _, _, _, aux, next_entry = struct.unpack_from("<HHIII", data, entry)
        aux_at = entry + aux
        while True:
            _, _, _, name, next_aux = struct.unpack_from("<IHHII", data, aux_at)
            version = data[strings + name : data.index(b"\0", strings + name)].decode()
            match = re.fullmatch(r"GLIBC_(\d+)\.(\d+)(?:\.\d+)?", version)
            if match:
                highest = max(highest, (int(match[1]), int(match[2])))
            if not next_aux:
                break
            aux_at += next_aux
        if not next_entry:
            break
        entry += next_entry
    major, minor = highest
    tag = f"manylinux_{major}_{minor}_{arch}"
    return f"{tag}.manylinux2014_{arch}" if highest == (2, 17) else tag


def _macho_tag(data: bytes) -> str:
    cpu, _, _, commands = struct.unpack_from("<IIII", data, 4)
    arch = MACHO_CPUS.get(cpu)
    if arch is None:
        raise ValueError(f"Mach-O CPU type {cpu:#x} has no wheel tag here")
    at = 32
    for _ in range(commands):
        command, size = struct.unpack_from("<II", data, at)
        if command == 0x32:  # LC_BUILD_VERSION: platform, minos
            version = struct.unpack_from("<I", data, at + 12)[0]
            break
        if command == 0x24:  # LC_VERSION_MIN_MACOSX: version
            version = struct.unpack_from("<I", data, at + 8)[0]
            break
        at += size
    else:
        raise ValueError("the Mach-O executable names no minimum macOS version")
    major, minor = version >> 16, (version >> 8) & 0xFF
    # From macOS 11 on, installers match only <major>_0.
    return f"macosx_{major}_{0 if major >= 11 else minor}_{arch}"


def _pe_tag(data: bytes) -> str:
    header, = struct.unpack_from("<I", data, 0x3C)
    if data[header : header + 4] != b"PE\0\0":
        raise ValueError("not a PE executable")
    machine, = struct.unpack_from("<H", data, header + 4)
    if machine not in PE_MACHINES:
        raise ValueError(f"PE machine {machine:#x} has no wheel tag here")
    return PE_MACHINES[machine]


def platform_tag(path: Path) -> tuple[str, str]:
    """(the wheel's platform tag, the executable's name inside the wheel) of one compiled agentbank."""
    with path.open("rb") as file:
        head = file.read(4)
    if head == b"MZ\x90\x00" or head[:2] == b"MZ":
        # Windows executables are small in headers; the PE header sits in the first kilobytes.
        with path.open("rb") as file:
            return _pe_tag(file.read(1 << 16)), "agentbank.exe"
    if head == b"\xcf\xfa\xed\xfe":
        with path.open("rb") as file:
            return _macho_tag(file.read(1 << 20)), "agentbank"
    if head == b"\x7fELF":
        return _elf_tag(path.read_bytes()), "agentbank"
    raise ValueError(f"{path} is not an executable this build knows (ELF, Mach-O, PE)")


class ExecutableHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        configured = os.environ.get("AGENTBANK_WHEEL_BINARY")
        binary = Path(configured) if configured else Path(self.root).parent / "dist" / "agentbank"
        if not binary.is_file():
            if configured:
                raise FileNotFoundError(f"AGENTBANK_WHEEL_BINARY is {configured}, which is not a file")
            self.app.display_warning(
                "no agentbank executable (AGENTBANK_WHEEL_BINARY, or dist/agentbank of the checkout): a pure wheel, "
                "whose agentbank command uses AGENTBANK_BIN or agentbank on PATH"
            )
            return
        tag, name = platform_tag(binary)
        build_data["force_include"][str(binary)] = f"agentbank/bin/{name}"
        build_data["pure_python"] = False
        build_data["tag"] = f"py3-none-{tag}"
        self.app.display_info(f"agentbank executable {binary} → agentbank/bin/{name}, tag py3-none-{tag}")
