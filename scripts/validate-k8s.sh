#!/usr/bin/env bash
# Renders every kustomize overlay under k8s/overlays and validates the output offline against
# the Kubernetes JSON schemas (kubernetes-validate, strict: unknown fields are errors). Fails on
# the first overlay that does not render or validate; prints one summary line per overlay.
#
# kubernetes-validate lives in a virtual environment under ${CARGO_TARGET_DIR:-target}/k8s-venv,
# created on first use. K8S_VERSION picks the schema version (default 1.30.0, the oldest
# Kubernetes these manifests support: the preStop `sleep` action is on by default from 1.30).
set -euo pipefail
cd "$(dirname "$0")/.."

K8S_VERSION="${K8S_VERSION:-1.30.0}"
target_dir="${CARGO_TARGET_DIR:-target}"
venv="$target_dir/k8s-venv"
validate="$venv/bin/kubernetes-validate"

if ! command -v kubectl >/dev/null; then
  echo "validate-k8s: kubectl is required (kubectl kustomize renders the overlays)" >&2
  exit 1
fi
if [[ ! -x "$validate" ]]; then
  echo "validate-k8s: installing kubernetes-validate into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check kubernetes-validate
fi

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
status=0
for overlay in k8s/overlays/*/; do
  name="$(basename "$overlay")"
  start=$(date +%s%N)
  if ! kubectl kustomize --load-restrictor LoadRestrictionsNone "$overlay" >"$out/$name.yaml" 2>"$out/$name.err"; then
    echo "k8s $name: FAILED to render" >&2
    cat "$out/$name.err" >&2
    status=1
    continue
  fi
  documents=$(grep -c '^kind:' "$out/$name.yaml" || true)
  if "$validate" --strict --quiet --no-warn --kubernetes-version "$K8S_VERSION" \
      "$out/$name.yaml" >"$out/$name.log" 2>&1; then
    result="ok"
  else
    result="INVALID"
    status=1
  fi
  # kubernetes-validate exits 0 on some errors it prints (e.g. unknown kinds): look at its output too.
  if grep -qiE 'error|invalid|failed' "$out/$name.log"; then
    result="INVALID"
    status=1
  fi
  [[ "$result" == ok ]] || cat "$out/$name.log" >&2
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  echo "k8s $name: $result ($documents resources, Kubernetes $K8S_VERSION schemas, strict, ${ms} ms)"
done
exit "$status"
