#!/usr/bin/env bash
# Builds what a release uploads to the package index: the sdist and one platform wheel per target that
# `bun build --compile` cross-compiles to (Linux x64/arm64, macOS x64/arm64, Windows x64), each carrying
# its own executable and tagged from that executable's headers (python/hatch_build.py). Refuses a wheel
# of 80 MB or more (the index takes 100 MB at most). Needs Bun and Python ≥ 3.10; CI builds and tests the
# Linux x64 wheel only (.ci/run, "Python").
#
#   python/scripts/release-wheels.sh [out dir, default python/dist] [target ...]
set -euo pipefail
cd "$(dirname "$0")/../.."
out="$(realpath -m "${1:-python/dist}")"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(linux-x64 linux-arm64 darwin-x64 darwin-arm64 windows-x64)
limit=$((80 * 1000 * 1000))

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q build==1.6.1 hatchling==1.33.0
mkdir -p "$out"

"$work/venv/bin/python" -m build --sdist --outdir "$out" python
for target in "${targets[@]}"; do
  executable="$work/$target/agentbank"
  [ "$target" = windows-x64 ] && executable="$executable.exe"
  # The project's own build (embedded migrations, the docs UI), for another target; the last --outfile wins.
  bun run build --target="bun-$target" --outfile "$executable"
  AGENTBANK_WHEEL_BINARY="$executable" "$work/venv/bin/python" -m build --wheel --no-isolation --outdir "$work/$target/wheel" python
  wheel="$(ls "$work/$target/wheel"/*.whl)"
  size="$(stat -c %s "$wheel")"
  if [ "$size" -ge "$limit" ]; then
    echo "release-wheels: $(basename "$wheel") is $size bytes, over the 80 MB the wheels keep under" >&2
    exit 1
  fi
  mv "$wheel" "$out/"
  echo "$(basename "$wheel"): $size bytes"
done
