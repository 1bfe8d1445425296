# Shared settings of up.sh / down.sh (sourced). Every address is loopback or in the pod range:
# etcd, the kubelet and the control-plane metrics ports listen on 127.0.0.1; the API server listens
# on the bridge's own address 10.88.0.1 (so pods reach it through the `kubernetes` Service) and
# nothing binds to the machine's other interfaces. Ports are off the defaults so a stray local
# etcd (2379) or API server (6443) does not collide.
K8S_VERSION=${K8S_VERSION:-v1.34.4}
COREDNS_VERSION=${COREDNS_VERSION:-v1.12.4}
CLUSTER_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOOLS_CACHE="${GANTRY_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gantry/bin}"
BIN=${GANTRY_K8S_BIN_DIR:-$TOOLS_CACHE/k8s-$K8S_VERSION}
STATE=${GANTRY_K8S_STATE:-/var/lib/gantry-k8s}   # etcd data, certificates, kubelet root, containerd root, logs
RUN=${GANTRY_K8S_RUN:-/run/gantry-k8s}           # sockets and pid files
BRIDGE=gantry0
NODE_IP=10.88.0.1
POD_CIDR=10.88.0.0/16
SERVICE_CIDR=10.96.0.0/16
KUBERNETES_SVC_IP=10.96.0.1
DNS_SVC_IP=10.96.0.10
ETCD_PORT=32379
ETCD_PEER_PORT=32380
APISERVER_PORT=6443
KUBECONFIG_ADMIN=$STATE/pki/admin.kubeconfig
CONTAINERD_SOCK=$RUN/containerd/containerd.sock
PROCS=(etcd kube-apiserver containerd kube-controller-manager kube-scheduler kubelet kube-proxy)

# True when $RUN/<name>.pid names a live process that is that program (argv[0] of
# /proc/<pid>/cmdline): a run that was killed leaves pid files whose pids are dead or have since
# been given to some other process, and neither may count as the cluster nor be signalled.
running() {
  local pid argv0
  pid=$(cat "$RUN/$1.pid" 2>/dev/null) && [[ $pid =~ ^[0-9]+$ ]] || return 1
  IFS= read -r -d "" argv0 2>/dev/null < "/proc/$pid/cmdline" || return 1
  [ "${argv0##*/}" = "$1" ]
}
export PATH="$BIN:/usr/sbin:/usr/bin:/sbin:/bin:$PATH"
