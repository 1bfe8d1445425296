#!/usr/bin/env bash
# Installs the Helm chart on the running local cluster (up.sh) as a user would on theirs, with
# the chart's defaults except what this cluster cannot provide:
#   - image names: Gantry's image is built from this working tree (gantry-image.sh) and the bundled
#     Postgres/NATS/Redis from local binaries (dependency-images.sh), all imported into containerd;
#   - storage: there is no provisioner, so two hostPath PersistentVolumes (no storage class) wait
#     for the Postgres and NATS claims;
#   - the admin key and the four signing/encryption keys the chart does not generate yet (issue 29
#     item 3): fresh random ones, in the chart's Secret.
# Then `helm install --wait` (every Deployment and StatefulSet ready) and `helm test`.
#   install-gantry.sh [release] [namespace]      (defaults: gantry gantry)
set -euo pipefail
source "$(dirname "$0")/env.sh"
release=${1:-gantry} ns=${2:-gantry}
root=$(cd "$CLUSTER_DIR/../.." && pwd)
helm=${HELM:-$TOOLS_CACHE/helm-v3.22.0}
export KUBECONFIG=$KUBECONFIG_ADMIN
log() { echo "[install $(date -u +%T)] $*" >&2; }
[ -x "$helm" ] || { echo "no helm at $helm (node k8s/scripts/tools.ts builds it)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t0=$SECONDS
tag=$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo dev)
GANTRY_BUILD=$tag "$CLUSTER_DIR/gantry-image.sh" "$tmp/gantry.tar" "$tag"
"$CLUSTER_DIR/dependency-images.sh" "$tmp"
log "images built in $((SECONDS - t0)) s"
for i in gantry postgres nats redis; do
  ctr --address "$CONTAINERD_SOCK" -n k8s.io images import --base-name "gantry.local/$i" "$tmp/$i.tar" >/dev/null
done
log "images imported"

mkdir -p "$STATE/volumes"
for i in 1 2; do
  mkdir -p "$STATE/volumes/pv$i" && chmod 777 "$STATE/volumes/pv$i" # the pods run as their own uids
  kubectl apply -f - >/dev/null <<YAML
apiVersion: v1
kind: PersistentVolume
metadata: {name: local-pv-$i}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  hostPath: {path: $STATE/volumes/pv$i, type: Directory}
YAML
done

admin=$("$root/node_modules/node/bin/node" --input-type=module -e 'import { generateKey } from "@gantry/kit/key-format.ts"; process.stdout.write(generateKey());' 2>/dev/null || (cd "$root" && npm run -s new-key))
t1=$SECONDS
"$helm" install "$release" "$root/k8s/gantry" -n "$ns" --create-namespace --wait --timeout 10m \
  --set image.repository=gantry.local/gantry --set "image.tag=$tag" \
  --set postgres.bundled.image=gantry.local/postgres:18 --set nats.bundled.image=gantry.local/nats:2 \
  --set redis.bundled.image=gantry.local/redis:7 --set "secrets.adminKey=$admin" \
  --set "secrets.providers.CONNECTIONS_MASTER_KEY=$(openssl rand -base64 32)" \
  --set "secrets.providers.TRUST_SIGNING_KEY=$(openssl rand -base64 32)" \
  --set "secrets.providers.CONTENT_SIGNING_KEY=$(openssl rand -hex 32)" \
  --set "secrets.providers.WEB_SIGNING_KEY=$(openssl rand -hex 32)" >/dev/null
log "helm install (every workload ready) in $((SECONDS - t1)) s"
# Retried for up to a minute: right after --wait the gateway can still report an area service DOWN
# that is Ready. Its gRPC channels dial the services' headless Services; a service that crash-looped
# while Postgres started had no DNS record when first resolved, and grpc-js re-resolves at most
# every 30 s (seen once in three installs here: web DOWN, then SERVING on the next `helm test`).
for attempt in 1 2 3 4 5 6; do
  if "$helm" test "$release" -n "$ns" > "$tmp/helm-test.log" 2>&1; then
    log "helm test passed (attempt $attempt)"
    exit 0
  fi
  kubectl -n "$ns" logs "$release-test-health" 2>/dev/null | tail -n 1 >&2 || true
  sleep 10
done
cat "$tmp/helm-test.log" >&2
exit 1
