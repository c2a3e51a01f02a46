#!/usr/bin/env bash
# Create .venv (if missing) and install committee with the given extras.
# Usage: scripts/bootstrap.sh [EXTRAS]   e.g. scripts/bootstrap.sh test
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
extras=${1:-dask}
py=${PYTHON:-python3}
if [ ! -x "$root/.venv/bin/python" ]; then
    "$py" -m venv "$root/.venv"
fi
stamp="$root/.venv/.committee-installed-$extras"
if [ ! -f "$stamp" ] || [ "$root/pyproject.toml" -nt "$stamp" ]; then
    "$root/.venv/bin/python" -m pip install --quiet --upgrade pip
    "$root/.venv/bin/python" -m pip install --quiet -e "$root[$extras]"
    touch "$stamp"
fi
