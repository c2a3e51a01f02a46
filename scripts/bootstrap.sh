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
    # pkuseg's sdist needs numpy and Cython at build time (the pkuseg extra installs
    # them): it builds only without pip's build isolation
    case ",$extras," in
        *,pkuseg,*|*,segmenters,*)
            "$root/.venv/bin/python" -m pip install --quiet --no-build-isolation "pkuseg==0.0.25" ;;
    esac
    touch "$stamp"
fi
# A font with Chinese glyphs for the figures of `committee report`: Debian's
# fonts-wqy-microhei (5 MB) when the system has none and apt-get may be used.
# Without one the figures still draw (Chinese as boxes) and the report says so;
# `pip install 'committee[cjk-font]'` is the PyPI alternative.
has_cjk_font() { command -v fc-list >/dev/null 2>&1 && [ -n "$(fc-list :lang=zh family 2>/dev/null)" ]; }
if ! has_cjk_font && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq fonts-wqy-microhei >/dev/null 2>&1 \
        || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq fonts-wqy-microhei >/dev/null 2>&1; } \
        || true
fi
if ! has_cjk_font; then
    echo "bootstrap: no font with Chinese glyphs; report figures will show Chinese as boxes" \
         "(apt-get install fonts-wqy-microhei, or pip install 'committee[cjk-font]')" >&2
fi
# Debian's chromium for the browser tests of report.html (tests/test_html_report.py),
# driven by the playwright package; playwright's own browser download is never used.
# Only for the test extra, only as root with apt-get; otherwise those tests skip.
if [ "$extras" = test ] && ! command -v chromium >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -qq chromium >/dev/null 2>&1 \
            || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq chromium >/dev/null 2>&1; } \
            || true
    fi
    if ! command -v chromium >/dev/null 2>&1; then
        echo "bootstrap: no chromium (needs root and apt-get: apt-get install chromium);" \
             "the browser tests of report.html will skip" >&2
    fi
fi
