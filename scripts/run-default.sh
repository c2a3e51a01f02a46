#!/usr/bin/env bash
# Set up (first time only) and run the main job: the committee on the
# embedded People's Daily 1998-01 corpus, configs/default.yaml.  Another
# config given first (configs/default-ner.yaml: its named entities, with a
# report) runs instead, after the same set-up and the report's packages.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
config=configs/default.yaml
extras=dask
if [ $# -gt 0 ] && [[ "$1" == *.yaml ]]; then
    config=$1
    extras=dask,report   # its experiments draw figures and write report.html
    shift
fi
"$root/scripts/bootstrap.sh" "$extras"
cd "$root"
exec "$root/.venv/bin/committee" run "$config" "$@"
