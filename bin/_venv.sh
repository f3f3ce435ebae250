# Sourced by bin/serve and bin/test: a project virtualenv with the pinned requirements.
# Reinstalls only when the requirements file changed since the last install.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
ensure_venv() {
  local requirements="$1"
  if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
  fi
  local stamp=".venv/.installed-$(basename "$requirements")"
  if [ ! -f "$stamp" ] || ! cmp -s "$stamp" <(cat requirements*.txt); then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -r "$requirements"
    cat requirements*.txt > "$stamp"
  fi
}
