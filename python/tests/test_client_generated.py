"""The generated layer matches the service's OpenAPI document: a fresh generation (the document built from
this checkout by Bun, the pinned datamodel-code-generator) equals the committed files. Fails on drift:
run `python python/scripts/generate.py` (or `bun run clients:generate`) and commit."""

from __future__ import annotations

import filecmp
import subprocess
import sys
import typing
from pathlib import Path

from agentbank import errors, models
from agentbank._generated.resources import OPERATIONS

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "python/src/agentbank/_generated"


def test_the_committed_client_is_what_the_document_generates(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(ROOT / "python/scripts/generate.py"), "--out", str(tmp_path)], check=True, cwd=ROOT)
    names = sorted(p.name for p in COMMITTED.glob("*.py"))
    assert names == sorted(p.name for p in tmp_path.glob("*.py"))
    differing = [name for name in names if not filecmp.cmp(COMMITTED / name, tmp_path / name, shallow=False)]
    assert differing == [], f"{differing} differ from a fresh generation: run python python/scripts/generate.py"


def test_every_error_code_of_the_document_has_its_family() -> None:
    codes = typing.get_args(models.Error.model_fields["error"].annotation)
    assert codes and set(codes) == set(errors.FAMILIES)


def test_the_names_pinned_by_the_issue_are_there() -> None:
    for name in ("agents.register", "payments.send", "wallets.balance", "wallets.history"):
        assert name in OPERATIONS
