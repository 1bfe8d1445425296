#!/usr/bin/env bash
# Starts a real single-node Kubernetes cluster on this machine from bare processes (no kind, no
# kubeadm, no registry): etcd (Debian) → kube-apiserver → containerd (Debian, its own instance,
# root and socket under $STATE/$RUN) → kube-controller-manager, kube-scheduler → kubelet →
# kube-proxy (iptables mode) → CoreDNS as a Deployment behind the kube-dns Service.
# Binaries come from build.sh (cached); images are packed by image.sh and imported into containerd.
#
#   k8s/cluster/up.sh            # idempotent: a healthy running cluster is left as it is
#   export KUBECONFIG=/var/lib/gantry-k8s/pki/admin.kubeconfig
#   k8s/cluster/down.sh          # stops everything and removes every mount, rule, link and process
#
# Needs root, cgroup v1 or v2 with the controllers mounted, overlayfs, network namespaces and the
# Debian packages below (installed when missing). Settings this kind of VM needs are commented
# where they are set.
set -euo pipefail
source "$(dirname "$0")/env.sh"

log() { echo "[cluster $(date -u +%T)] $*" >&2; }
die() { log "$*"; exit 1; }
[ "$(id -u)" -eq 0 ] || die "must run as root (containerd, kubelet, iptables)"

healthy() {
  local p
  for p in "${PROCS[@]}"; do running "$p" || return 1; done
  kubectl --kubeconfig "$KUBECONFIG_ADMIN" get --raw /readyz >/dev/null 2>&1
}


# Images packed once per binary version, kept beside the binaries: pause (sandbox), coredns, busybox
# (the test's workload: httpd, wget, nslookup in one static binary).
build_images() {
  local dir="$BIN/images" tmp
  mkdir -p "$dir"
  tmp=$(mktemp -d)
  if [ ! -f "$dir/pause.tar" ]; then
    mkdir -p "$tmp/pause" && cp "$BIN/pause" "$tmp/pause/pause"
    "$CLUSTER_DIR/image.sh" gantry.local/pause:1 "$tmp/pause" "$dir/pause.tar" -- /pause
  fi
  if [ ! -f "$dir/coredns-$COREDNS_VERSION.tar" ]; then
    mkdir -p "$tmp/coredns" && cp "$BIN/coredns" "$tmp/coredns/coredns"
    "$CLUSTER_DIR/image.sh" "gantry.local/coredns:$COREDNS_VERSION" "$tmp/coredns" "$dir/coredns-$COREDNS_VERSION.tar" -- /coredns
  fi
  if [ ! -f "$dir/busybox.tar" ]; then
    mkdir -p "$tmp/busybox/bin" "$tmp/busybox/etc" "$tmp/busybox/tmp" && cp /bin/busybox "$tmp/busybox/bin/busybox"
    local a; for a in $(/bin/busybox --list); do [ "$a" = busybox ] || ln -s busybox "$tmp/busybox/bin/$a"; done
    printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' > "$tmp/busybox/etc/passwd"
    printf 'root:x:0:\nnobody:x:65534:\n' > "$tmp/busybox/etc/group"
    chmod 1777 "$tmp/busybox/tmp"
    "$CLUSTER_DIR/image.sh" gantry.local/busybox:1 "$tmp/busybox" "$dir/busybox.tar" -- /bin/sh
  fi
  rm -rf "$tmp"
}

# A CA, the API server's serving certificate, the service-account key pair and the API server's
# client certificate for the kubelet; components authenticate with static tokens (one user per
# component, the identities Kubernetes' bootstrap RBAC already binds).
make_pki() {
  local d="$STATE/pki"
  mkdir -p "$d" && chmod 700 "$d"
  cd "$d"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 30 -subj "/CN=gantry-local-ca" 2>/dev/null
  cat > apiserver.ext <<EXT
subjectAltName=IP:$NODE_IP,IP:$KUBERNETES_SVC_IP,IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local
extendedKeyUsage=serverAuth
EXT
  openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj "/CN=kube-apiserver" 2>/dev/null
  openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 -extfile apiserver.ext -out apiserver.crt 2>/dev/null
  printf 'extendedKeyUsage=clientAuth\n' > client.ext
  openssl req -newkey rsa:2048 -nodes -keyout kubelet-client.key -out kubelet-client.csr -subj "/O=system:masters/CN=kube-apiserver-kubelet-client" 2>/dev/null
  openssl x509 -req -in kubelet-client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 -extfile client.ext -out kubelet-client.crt 2>/dev/null
  openssl genrsa -out sa.key 2048 2>/dev/null
  openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
  : > tokens.csv
  local who
  for who in "admin,admin,system:masters" "kubelet,system:node:localhost,system:nodes" \
    "controller-manager,system:kube-controller-manager," "scheduler,system:kube-scheduler," \
    "proxy,system:kube-proxy,"; do
    local name=${who%%,*} rest=${who#*,}
    local user=${rest%%,*} group=${rest#*,}
    local token; token=$(openssl rand -hex 16)
    echo "$token,$user,$user${group:+,\"$group\"}" >> tokens.csv
    cat > "$name.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: gantry-local
  cluster: {server: "https://$NODE_IP:$APISERVER_PORT", certificate-authority: "$d/ca.crt"}
users:
- name: $name
  user: {token: "$token"}
contexts:
- name: gantry-local
  context: {cluster: gantry-local, user: $name}
current-context: gantry-local
KC
  done
  chmod 600 ./*.key ./*.kubeconfig tokens.csv
  cd - >/dev/null
}

# Runs a process in its own session, logging to $STATE/logs/<name>.log; its pid goes to $RUN/<name>.pid
# for down.sh.
start() {
  local name=$1; shift
  setsid "$@" > "$STATE/logs/$name.log" 2>&1 < /dev/null &
  echo $! > "$RUN/$name.pid"
}

wait_for() {
  local what=$1 timeout=$2; shift 2
  local i
  for ((i = 0; i < timeout * 2; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  die "$what not ready after ${timeout}s; logs in $STATE/logs"
}

setting() { # a sysctl set for the cluster's lifetime; down.sh puts back the value it had
  local key=$1 value=$2 file="/proc/sys/${1//.//}"
  [ -f "$STATE/sysctl-$key" ] || cat "$file" > "$STATE/sysctl-$key"
  echo "$value" > "$file"
}

network() {
  # The pods' bridge exists before the API server so it can listen on the bridge's address (a
  # pod-range address: pods reach it through the `kubernetes` Service, and it listens on nothing
  # the machine's other interfaces carry). The CNI bridge plugin adopts it as its gateway.
  ip link add "$BRIDGE" type bridge 2>/dev/null || true
  ip addr replace "$NODE_IP/16" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  # Service traffic between two pods on the same bridge: the request is DNAT'ed on the host, the
  # reply is bridged; bridge-nf makes iptables' conntrack see the reply to undo the DNAT, and
  # forwarding lets the host route pod → ClusterIP → pod. Both are put back by down.sh.
  setting net.ipv4.ip_forward 1
  setting net.bridge.bridge-nf-call-iptables 1
  mkdir -p "$STATE/cni"
  # ipMasq false: pods have no route beyond the node (nothing here should leave the machine).
  cat > "$STATE/cni/10-gantry.conflist" <<CNI
{
  "cniVersion": "1.0.0",
  "name": "gantry",
  "plugins": [
    {
      "type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false, "hairpinMode": true,
      "ipam": {"type": "host-local", "ranges": [[{"subnet": "$POD_CIDR", "gateway": "$NODE_IP"}]],
               "routes": [{"dst": "$SERVICE_CIDR"}], "dataDir": "$STATE/cni-ipam"}
    },
    {"type": "loopback"}
  ]
}
CNI
}

containerd_config() {
  mkdir -p "$STATE/containerd" "$RUN/containerd"
  cat > "$STATE/containerd.toml" <<TOML
version = 2
root = "$STATE/containerd"
state = "$RUN/containerd/state"
[grpc]
  address = "$CONTAINERD_SOCK"
[plugins."io.containerd.grpc.v1.cri"]
  # No registry: the sandbox image is the locally built pause image (k8s/cluster/pause).
  sandbox_image = "gantry.local/pause:1"
  # This VM's root lacks CAP_SYS_RESOURCE: lowering oom_score_adj fails and runc then dies with
  # "can't get final child's PID from pipe". Never set a container's score below containerd's own.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$STATE/cni"
TOML
}

kubelet_config() {
  : > "$STATE/resolv.conf" # pods get cluster DNS only: no upstream resolver is reachable from here
  cat > "$STATE/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $STATE/pki/ca.crt}
authorization: {mode: Webhook}
containerRuntimeEndpoint: unix://$CONTAINERD_SOCK
# This machine has cgroup v1: Kubernetes 1.34 still runs on it when told to.
failCgroupV1: false
cgroupDriver: cgroupfs
failSwapOn: false
clusterDNS: [$DNS_SVC_IP]
clusterDomain: cluster.local
resolvConf: $STATE/resolv.conf
# Imported images cannot be pulled back: never garbage-collect them, never evict for disk.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%"}
serializeImagePulls: false
maxPods: 110
YAML
}

kube_proxy_config() {
  cat > "$STATE/kube-proxy.yaml" <<YAML
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $STATE/pki/proxy.kubeconfig}
mode: iptables
hostnameOverride: localhost
clusterCIDR: $POD_CIDR
bindAddress: 127.0.0.1
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
# NodePorts only on the bridge address, never on the machine's network.
nodePortAddresses: ["$NODE_IP/32"]
# Leave the host's conntrack table size alone.
conntrack: {maxPerCore: 0}
YAML
}

coredns() {
  kubectl --kubeconfig "$KUBECONFIG_ADMIN" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: ServiceAccount
metadata: {name: coredns, namespace: kube-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "system:coredns"}
rules:
- {apiGroups: [""], resources: [endpoints, services, pods, namespaces], verbs: [list, watch]}
- {apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "system:coredns"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:coredns"}
subjects: [{kind: ServiceAccount, name: coredns, namespace: kube-system}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: coredns, namespace: kube-system}
data:
  # No forward plugin: nothing outside the cluster is resolvable (or reachable) from here.
  Corefile: |
    .:53 {
        errors
        health :8080
        ready :8181
        kubernetes cluster.local in-addr.arpa ip6.arpa {
            pods insecure
            fallthrough in-addr.arpa ip6.arpa
        }
        cache 30
        reload
    }
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: coredns, namespace: kube-system, labels: {k8s-app: kube-dns}}
spec:
  replicas: 1
  selector: {matchLabels: {k8s-app: kube-dns}}
  template:
    metadata: {labels: {k8s-app: kube-dns}}
    spec:
      serviceAccountName: coredns
      dnsPolicy: Default
      priorityClassName: system-cluster-critical
      containers:
      - name: coredns
        image: gantry.local/coredns:$COREDNS_VERSION
        imagePullPolicy: Never
        args: ["-conf", "/etc/coredns/Corefile"]
        ports:
        - {name: dns, containerPort: 53, protocol: UDP}
        - {name: dns-tcp, containerPort: 53, protocol: TCP}
        readinessProbe: {httpGet: {path: /ready, port: 8181}, periodSeconds: 2}
        livenessProbe: {httpGet: {path: /health, port: 8080}, periodSeconds: 10}
        volumeMounts: [{name: config, mountPath: /etc/coredns, readOnly: true}]
      volumes: [{name: config, configMap: {name: coredns}}]
---
apiVersion: v1
kind: Service
metadata: {name: kube-dns, namespace: kube-system, labels: {k8s-app: kube-dns}}
spec:
  clusterIP: $DNS_SVC_IP
  selector: {k8s-app: kube-dns}
  ports:
  - {name: dns, port: 53, protocol: UDP}
  - {name: dns-tcp, port: 53, protocol: TCP}
YAML
}

main() {
  if healthy; then log "already running"; echo "$KUBECONFIG_ADMIN"; return 0; fi
  # Anything half-started by an earlier run goes first.
  "$CLUSTER_DIR/down.sh" >/dev/null 2>&1 || true
  "$CLUSTER_DIR/packages.sh"
  [ -x "$BIN/kube-apiserver" ] || BIN=$("$CLUSTER_DIR/build.sh")
  build_images
  mkdir -p "$STATE/logs" "$RUN"
  local t0=$SECONDS
  make_pki
  network
  containerd_config; kubelet_config; kube_proxy_config

  start etcd etcd --name gantry --data-dir "$STATE/etcd" --unsafe-no-fsync \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "gantry=http://127.0.0.1:$ETCD_PEER_PORT"
  start containerd containerd --config "$STATE/containerd.toml"
  wait_for etcd 30 curl -fsS "http://127.0.0.1:$ETCD_PORT/health"

  local pki=$STATE/pki
  start kube-apiserver kube-apiserver --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
    --bind-address "$NODE_IP" --advertise-address "$NODE_IP" --secure-port "$APISERVER_PORT" \
    --service-cluster-ip-range "$SERVICE_CIDR" --allow-privileged=true \
    --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
    --client-ca-file "$pki/ca.crt" --token-auth-file "$pki/tokens.csv" --authorization-mode Node,RBAC \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
    --kubelet-client-certificate "$pki/kubelet-client.crt" --kubelet-client-key "$pki/kubelet-client.key" \
    --kubelet-preferred-address-types Hostname --profiling=false
  wait_for kube-apiserver 120 kubectl --kubeconfig "$KUBECONFIG_ADMIN" get --raw /readyz
  log "API server ready after $((SECONDS - t0)) s"

  # Leader election needs nothing on one node, and its lease renewals only add load.
  start kube-controller-manager kube-controller-manager --kubeconfig "$pki/controller-manager.kubeconfig" \
    --leader-elect=false --bind-address 127.0.0.1 --service-account-private-key-file "$pki/sa.key" \
    --root-ca-file "$pki/ca.crt" --use-service-account-credentials=true --profiling=false \
    --authentication-kubeconfig "$pki/controller-manager.kubeconfig" --authorization-kubeconfig "$pki/controller-manager.kubeconfig"
  start kube-scheduler kube-scheduler --kubeconfig "$pki/scheduler.kubeconfig" --leader-elect=false \
    --bind-address 127.0.0.1 --profiling=false \
    --authentication-kubeconfig "$pki/scheduler.kubeconfig" --authorization-kubeconfig "$pki/scheduler.kubeconfig"

  wait_for containerd 30 ctr --address "$CONTAINERD_SOCK" version
  local img
  for img in "$BIN"/images/*.tar; do
    ctr --address "$CONTAINERD_SOCK" -n k8s.io images import --base-name "gantry.local/$(basename "$img" .tar | sed 's/-v[0-9].*//')" "$img" >/dev/null
  done

  # --hostname-override=localhost: the node is "localhost", which the API server resolves to reach
  # the kubelet (logs, exec) on 127.0.0.1.
  start kubelet kubelet --config "$STATE/kubelet.yaml" --kubeconfig "$pki/kubelet.kubeconfig" \
    --root-dir "$STATE/kubelet" --cert-dir "$STATE/kubelet/pki" --hostname-override localhost --node-ip "$NODE_IP"
  start kube-proxy kube-proxy --config "$STATE/kube-proxy.yaml"
  wait_for "node Ready" 120 kubectl --kubeconfig "$KUBECONFIG_ADMIN" wait --for=condition=Ready node/localhost --timeout=1s
  coredns
  wait_for "CoreDNS" 120 kubectl --kubeconfig "$KUBECONFIG_ADMIN" -n kube-system wait --for=condition=Available deployment/coredns --timeout=1s
  log "cluster up in $((SECONDS - t0)) s; export KUBECONFIG=$KUBECONFIG_ADMIN"
  echo "$KUBECONFIG_ADMIN"
}

main "$@"
