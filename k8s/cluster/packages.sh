#!/usr/bin/env bash
# Installs the Debian packages the cluster runs on (up.sh and .ci/run call it; a no-op when present):
# etcd, containerd and runc, the CNI plugins, umoci (packs images without a registry), busybox
# (the test's workload image), iptables and conntrack (kube-proxy); nats-server, redis-server and
# pg_isready go into the images of the chart's bundled dependencies (dependency-images.sh).
set -euo pipefail
missing=()
for p in etcd-server:/usr/bin/etcd containerd:/usr/bin/containerd runc:/usr/sbin/runc \
  containernetworking-plugins:/usr/lib/cni/bridge umoci:/usr/bin/umoci busybox-static:/bin/busybox \
  iptables:/usr/sbin/iptables conntrack:/usr/sbin/conntrack \
  nats-server:/usr/sbin/nats-server redis-server:/usr/bin/redis-server postgresql-client:/usr/bin/pg_isready; do
  [ -e "${p#*:}" ] || missing+=("${p%%:*}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
[ "$(id -u)" -eq 0 ] || { echo "not root: cannot install ${missing[*]}" >&2; exit 1; }
echo "installing ${missing[*]}" >&2
apt-get update -qq
# Package scripts must not start the system's etcd or containerd: the cluster runs its own.
policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
  policy=/usr/sbin/policy-rc.d; printf '#!/bin/sh\nexit 101\n' > "$policy"; chmod +x "$policy"
fi
rc=0
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || rc=$?
[ -n "$policy" ] && rm -f "$policy"
exit $rc
