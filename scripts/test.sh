#!/usr/bin/env bash
# Set up (first time only) and run the test suite.  Extra arguments go to
# pytest, e.g. `scripts/test.sh -m slow`.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/bootstrap.sh" test
cd "$root"
exec "$root/.venv/bin/python" -m pytest -q -rs "$@"   # -rs: say why each test was skipped
