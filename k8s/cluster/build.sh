#!/usr/bin/env bash
# Builds (once) and caches the binaries of the real single-node cluster (k8s/cluster/up.sh):
#   kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, kube-proxy, kubectl
#     from k8s.io/kubernetes through the Go module proxy (no release tarball or registry is
#     reachable here). Its go.mod points its staging modules (k8s.io/api, client-go, …) at
#     ./staging/…, which only exists in its git tree, so a small module requires it and replaces
#     each staging module with its published v0.<minor>.<patch> twin;
#   coredns (cluster DNS, so Services resolve by name) from github.com/coredns/coredns;
#   pause (containerd's sandbox image; k8s/cluster/pause/main.go).
# Everything lands in $GANTRY_TOOLS_CACHE (default ~/.cache/gantry/bin)/k8s-<version>/, outside the
# clone, so a fresh clone on the same machine rebuilds nothing; the Go build and module caches are
# Go's own (also outside the clone). Prints the directory on stdout (the last line); the build log
# goes to stderr only on failure. Cold on 2 cores: ~10 min; cached: instant.
set -euo pipefail

K8S_VERSION=${K8S_VERSION:-v1.34.4}
COREDNS_VERSION=${COREDNS_VERSION:-v1.12.4}
here=$(cd "$(dirname "$0")" && pwd)
cache="${GANTRY_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gantry/bin}"
out="$cache/k8s-$K8S_VERSION"
# The pause source is tiny and part of this repository: its hash is in the marker so an edit rebuilds.
stamp="$K8S_VERSION coredns-$COREDNS_VERSION pause-$(cat "$here/pause/main.go" | sha256sum | cut -c1-12)"
bins=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl coredns pause)

complete() {
  [ "$(cat "$out/.complete" 2>/dev/null)" = "$stamp" ] || return 1
  local b; for b in "${bins[@]}"; do [ -x "$out/$b" ] || return 1; done
}
if complete; then echo "$out"; exit 0; fi

go=$(command -v go || true)
[ -z "$go" ] && [ -x /usr/local/go/bin/go ] && go=/usr/local/go/bin/go
[ -n "$go" ] || { echo "no Go toolchain: cannot build the cluster binaries" >&2; exit 1; }

mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log="$tmp/build.log"
export CGO_ENABLED=0 GOFLAGS="-mod=mod -buildvcs=false" GOTOOLCHAIN=local
n() { nice -n 10 "$@"; }

build_kubernetes() {
  mkdir "$tmp/k8s" && cd "$tmp/k8s"
  "$go" mod init gantry.local/k8s-build
  local gomod; gomod=$("$go" mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^\t"GoMod": "\(.*\)",$/\1/p')
  # k8s.io/<mod> => ./staging/src/k8s.io/<mod>  →  k8s.io/<mod> => k8s.io/<mod> v0.<minor>.<patch>
  local staging=v0.${K8S_VERSION#v1.}
  sed -n 's#^\t\(k8s.io/[a-z-]*\) => ./staging/src/.*#\1#p' "$gomod" | while read -r m; do
    "$go" mod edit -replace "$m=$m@$staging"
  done
  # `go get` pins the version (no `go mod tidy`: this module has no source importing
  # k8s.io/kubernetes, so tidy would drop it and the build would then resolve @latest).
  "$go" get "k8s.io/kubernetes@$K8S_VERSION"
  local pkgs=(); local b
  for b in kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl; do pkgs+=("k8s.io/kubernetes/cmd/$b"); done
  n "$go" build -trimpath -o "$tmp/bin/" \
    -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$(echo "$K8S_VERSION" | cut -d. -f2)" \
    "${pkgs[@]}"
}

build_coredns() {
  # CoreDNS's go.mod may carry replace directives, so `go install …@version` could refuse it: it is
  # built as a dependency of a throwaway module instead (as .ci/run builds Jaeger).
  mkdir "$tmp/coredns" && cd "$tmp/coredns"
  "$go" mod init gantry.local/coredns-build
  "$go" get "github.com/coredns/coredns@$COREDNS_VERSION"
  n "$go" build -trimpath -ldflags "-s -w" -o "$tmp/bin/coredns" github.com/coredns/coredns
}

build_pause() {
  cd "$here/pause"
  n "$go" build -trimpath -ldflags "-s -w" -o "$tmp/bin/pause" .
}

mkdir "$tmp/bin"
if ! (set -x; build_pause && build_coredns && build_kubernetes) > "$log" 2>&1; then
  echo "building the cluster binaries failed:" >&2
  tail -n 30 "$log" >&2
  exit 1
fi
for b in "${bins[@]}"; do mv -f "$tmp/bin/$b" "$out/$b"; done
echo "$stamp" > "$out/.complete"
echo "$out"
