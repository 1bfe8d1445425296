#!/usr/bin/env bash
# Stops the cluster that up.sh started and leaves the machine as it found it: no process, no mount,
# no network namespace, no bridge, no iptables rule of kube-proxy's, sysctls put back; the state
# directory (etcd data, certificates, containerd's image store) is removed. Safe to run any time,
# also when nothing or only part of the cluster is running.
set -uo pipefail
source "$(dirname "$0")/env.sh"
[ "$(id -u)" -eq 0 ] || { echo "down.sh: must run as root" >&2; exit 1; }

pid_of() { cat "$RUN/$1.pid" 2>/dev/null; }
stop() { # TERM, then KILL after a grace period; only the pid this cluster recorded
  local name=$1 grace=${2:-10} pid i
  pid=$(pid_of "$name") || return 0
  running "$name" || { rm -f "$RUN/$name.pid"; return 0; }
  kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < grace * 5; i++)); do running "$name" || break; sleep 0.2; done
  running "$name" && kill -KILL "$pid" 2>/dev/null
  rm -f "$RUN/$name.pid"
}
ctr_() { ctr --address "$CONTAINERD_SOCK" -n k8s.io "$@"; }

# 1. Nothing may recreate pods while they go: controllers and scheduler stop first.
stop kube-controller-manager; stop kube-scheduler
# 2. The kubelet tears the pods down properly (containers killed, CNI DEL: veth, IP and netns
#    released) once they are gone from the API.
if running kubelet && kubectl --kubeconfig "$KUBECONFIG_ADMIN" get --raw /readyz >/dev/null 2>&1; then
  kubectl --kubeconfig "$KUBECONFIG_ADMIN" delete pods --all --all-namespaces --grace-period=0 --force --wait=false >/dev/null 2>&1
  for ((i = 0; i < 60; i++)); do
    [ -z "$(ctr_ tasks ls -q 2>/dev/null)" ] && break
    sleep 0.5
  done
fi
stop kubelet
# 3. Whatever is still running in containerd (a kubelet that had died, a stuck pod) is killed here.
if running containerd; then
  for t in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks kill -s SIGKILL "$t" >/dev/null 2>&1; done
  sleep 0.5
  for t in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks delete -f "$t" >/dev/null 2>&1; done
fi
stop kube-proxy
stop containerd
stop kube-apiserver
stop etcd
# containerd's shims outlive containerd by design; any left belong to this cluster (their -address
# names its socket).
for pid in $(pgrep -f -- "containerd-shim-runc-v2 .*-address $CONTAINERD_SOCK" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done

# 4. kube-proxy's iptables chains and conntrack entries, then the kubelet's own (KUBE-FIREWALL,
#    KUBE-KUBELET-CANARY, KUBE-IPTABLES-HINT, IPv4 and IPv6), which nothing else removes. Every
#    KUBE-* chain on this machine is this cluster's: it is the only Kubernetes here.
if [ -x "$BIN/kube-proxy" ]; then "$BIN/kube-proxy" --cleanup >/dev/null 2>&1 || true; fi
for ipt in iptables ip6tables; do
  command -v "$ipt" >/dev/null 2>&1 || continue
  for table in filter nat mangle; do
    "$ipt-save" -t "$table" 2>/dev/null | grep -E '^-A [^ ]+ .*-j KUBE-' | grep -v '^-A KUBE-' | sed 's/^-A /-D /' \
      | while read -r rule; do eval "$ipt -t $table $rule" 2>/dev/null; done
    chains=$("$ipt-save" -t "$table" 2>/dev/null | sed -n 's/^:\(KUBE-[^ ]*\) .*/\1/p')
    for c in $chains; do "$ipt" -t "$table" -F "$c" 2>/dev/null; done
    for c in $chains; do "$ipt" -t "$table" -X "$c" 2>/dev/null; done
  done
done

# 5. Mounts under the state and run directories (pod volumes, overlay rootfs, sandbox shm) and the
#    pods' network namespaces created by containerd.
for dir in "$STATE" "$RUN"; do
  awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
done
for ns in /var/run/netns/cni-*; do
  [ -e "$ns" ] || continue
  # Only namespaces whose veth peers sit on this cluster's bridge would be ours; containerd names
  # them cni-<uuid>, and no other tool here creates those.
  umount "$ns" 2>/dev/null; rm -f "$ns"
done
ip link del "$BRIDGE" 2>/dev/null

# 6. Empty pod cgroups the kubelet created (cgroupfs driver: <controller>/kubepods/...).
for c in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods; do
  [ -d "$c" ] && find "$c" -depth -type d -exec rmdir {} \; 2>/dev/null
done

# 7. Sysctls back to what they were before up.sh.
for f in "$STATE"/sysctl-*; do
  [ -f "$f" ] || continue
  key=${f##*/sysctl-}
  cat "$f" > "/proc/sys/${key//.//}" 2>/dev/null
done

rm -rf "$STATE" "$RUN"
exit 0
