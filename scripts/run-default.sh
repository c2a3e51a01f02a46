#!/usr/bin/env bash
# Set up (first time only) and run the main job: the committee on the
# embedded People's Daily 1998-01 corpus, configs/default.yaml.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/bootstrap.sh" dask
cd "$root"
exec "$root/.venv/bin/committee" run configs/default.yaml "$@"
