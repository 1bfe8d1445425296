#!/usr/bin/env bash
# Packs a directory into an OCI image archive without a registry or a container builder:
#   image.sh <name:tag> <rootfs-dir> <out.tar> [--workdir DIR] [--user UID] [--env K=V]... -- <entrypoint...>
# umoci builds a one-layer OCI layout (new → unpack → copy the rootfs in → repack → config), and the
# layout is tarred; `ctr -n k8s.io images import --base-name <name>` (up.sh) then makes it
# <name:tag> in containerd, where pods use it with imagePullPolicy: Never (nothing can be pulled here).
set -euo pipefail
ref=$1 src=$2 out=$3; shift 3
tag=${ref##*:}
config=()
while [ $# -gt 0 ]; do
  case $1 in
    --workdir) config+=(--config.workingdir "$2"); shift 2 ;;
    --user) config+=(--config.user "$2"); shift 2 ;;
    --env) config+=(--config.env "$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "image.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
for a in "$@"; do config+=(--config.entrypoint "$a"); done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
umoci init --layout "$tmp/oci"
umoci new --image "$tmp/oci:$tag"
umoci unpack --image "$tmp/oci:$tag" "$tmp/bundle" >/dev/null
cp -a "$src/." "$tmp/bundle/rootfs/"
umoci repack --image "$tmp/oci:$tag" "$tmp/bundle"
umoci config --image "$tmp/oci:$tag" --clear=config.cmd "${config[@]}"
umoci gc --layout "$tmp/oci"
tar -C "$tmp/oci" -cf "$out.partial" .
mv "$out.partial" "$out"
