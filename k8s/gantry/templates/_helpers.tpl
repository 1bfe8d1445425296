{{/*
The shared skeleton. Every Gantry workload (the gateway and each area service) is rendered by the
same named templates below from one resolved "workload" dict (`gantry.workload`): the templates
deployment.yaml, service.yaml, configmap.yaml, hpa.yaml, pdb.yaml and networkpolicy.yaml only loop
over `gantry.workloadNames`. Adding a service is a values entry, not a new template.
*/}}

{{- define "gantry.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Release-scoped base name; object names are "<fullname>-<component>", so it is kept short. */}}
{{- define "gantry.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "gantry.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Selector labels of one component: (dict "root" $ "component" "keys") */}}
{{- define "gantry.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gantry.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Selector of every pod of the release (NetworkPolicy default deny, DNS). */}}
{{- define "gantry.releaseSelector" -}}
app.kubernetes.io/name: {{ include "gantry.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Full labels: (dict "root" $ "component" "keys") */}}
{{- define "gantry.labels" -}}
helm.sh/chart: {{ include "gantry.chart" .root }}
{{ include "gantry.selectorLabels" . }}
app.kubernetes.io/part-of: gantry
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- with .root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/*
Deep merge of two dicts: keys of .override win over .base, false, 0 and "" included (sprig's
merge/mergeOverwrite would drop those); nested dicts merge key by key; lists are replaced.
*/}}
{{- define "gantry.merge" -}}
{{- $out := deepCopy .base -}}
{{- range $k, $v := .override -}}
{{- $b := get $out $k -}}
{{- if and (kindIs "map" $v) (kindIs "map" $b) -}}
{{- $_ := set $out $k (include "gantry.merge" (dict "base" $b "override" $v) | fromYaml) -}}
{{- else -}}
{{- $_ := set $out $k $v -}}
{{- end -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/* Every workload name: the gateway, then the enabled area services in name order. */}}
{{- define "gantry.workloadNames" -}}
{{- $names := list "gateway" -}}
{{- range $name := keys .Values.services | sortAlpha -}}
{{- $svc := get $.Values.services $name -}}
{{- if or (not (hasKey $svc "enabled")) $svc.enabled -}}
{{- $names = append $names $name -}}
{{- end -}}
{{- end -}}
{{- toJson $names -}}
{{- end -}}

{{/* Area services that own tables (database: true) and are enabled. */}}
{{- define "gantry.databaseServices" -}}
{{- $out := list -}}
{{- range $name := include "gantry.workloadNames" . | fromJsonArray -}}
{{- if and (ne $name "gateway") (get (get $.Values.services $name) "database") -}}
{{- $out = append $out $name -}}
{{- end -}}
{{- end -}}
{{- toJson $out -}}
{{- end -}}

{{/*
One workload, resolved: `defaults` merged with `gateway` or `services.<name>`, plus
name, http (gateway) / grpc, portName, and database. Call: include "gantry.workload" (dict "root" $ "name" "keys") | fromYaml
*/}}
{{- define "gantry.workload" -}}
{{- $root := .root -}}
{{- $own := dict -}}
{{- if eq .name "gateway" -}}
{{- $own = $root.Values.gateway -}}
{{- else -}}
{{- $own = get $root.Values.services .name -}}
{{- if not $own -}}{{- fail (printf "no area service %q in values.services" .name) -}}{{- end -}}
{{- end -}}
{{- $w := include "gantry.merge" (dict "base" $root.Values.defaults "override" $own) | fromYaml -}}
{{- $_ := set $w "name" .name -}}
{{- $_ := set $w "http" (eq .name "gateway") -}}
{{- $_ := set $w "portName" (ternary "http" "grpc" (eq .name "gateway")) -}}
{{- $_ := set $w "database" (and (ne .name "gateway") (hasKey $own "database") $own.database) -}}
{{- if not $w.port -}}{{- fail (printf "%s: port is required" .name) -}}{{- end -}}
{{- range $called := $w.calls -}}
{{- if not (hasKey $root.Values.services $called) -}}{{- fail (printf "%s.calls: %q is not an area service" $.name $called) -}}{{- end -}}
{{- end -}}
{{- toYaml $w -}}
{{- end -}}

{{/*
The image of a workload: the global image with the workload's `image` keys over it. A workload with
`browser: true` (content, web) starts from the image with Chromium instead: image.browserRepository,
else `<image.repository>-web` (what the Dockerfile's `web` target is published as), with
image.browserDigest as its pin.
*/}}
{{- define "gantry.image" -}}
{{- $base := deepCopy .root.Values.image -}}
{{- if .w.browser -}}
{{- $_ := set $base "repository" ($base.browserRepository | default (printf "%s-web" $base.repository)) -}}
{{- $_ := set $base "digest" ($base.browserDigest | default "") -}}
{{- end -}}
{{- $img := include "gantry.merge" (dict "base" $base "override" (.w.image | default dict)) | fromYaml -}}
{{- $tag := $img.tag | default .root.Chart.AppVersion | toString -}}
{{- if $img.digest -}}
{{- printf "%s@%s" $img.repository $img.digest -}}
{{- else -}}
{{- printf "%s:%s" $img.repository $tag -}}
{{- end -}}
{{- end -}}

{{- define "gantry.imagePullPolicy" -}}
{{- $img := include "gantry.merge" (dict "base" .root.Values.image "override" (.w.image | default dict)) | fromYaml -}}
{{- $img.pullPolicy | default "IfNotPresent" -}}
{{- end -}}

{{/* A scalar as an environment string: whole numbers without an exponent (YAML numbers arrive as float64). */}}
{{- define "gantry.str" -}}
{{- if kindIs "float64" . -}}
{{- if eq (float64 (int64 .)) . -}}{{- int64 . -}}{{- else -}}{{- . -}}{{- end -}}
{{- else if kindIs "invalid" . -}}
{{- else -}}
{{- . -}}
{{- end -}}
{{- end -}}

{{/*
The keys a service does not start without, each with a freshly generated value in the format the
service reads (secret.yaml keeps the live value instead, so this is used once per release):
  CONNECTIONS_MASTER_KEY  base64 of 32 random bytes: wraps every stored credential's data key
  TRUST_SIGNING_KEY       base64 of a 32-byte Ed25519 seed: signs receipts and checkpoints
  CONTENT_SIGNING_KEY     64 characters: signs document download links
  WEB_SIGNING_KEY         64 characters: signs screenshot links
  GANTRY_CALL_KEY         base64 of 32 random bytes: the master of internal call authentication
                          (call-keys.yaml derives each pod's caller→service keys from it)
*/}}
{{- define "gantry.generatedKeys" -}}
CONNECTIONS_MASTER_KEY: {{ randBytes 32 | quote }}
TRUST_SIGNING_KEY: {{ randBytes 32 | quote }}
CONTENT_SIGNING_KEY: {{ randAlphaNum 64 | quote }}
WEB_SIGNING_KEY: {{ randAlphaNum 64 | quote }}
GANTRY_CALL_KEY: {{ randBytes 32 | quote }}
{{- end -}}

{{/*
The generated keys' values for this release: secrets.providers wins, else the live chart-made
Secret's value (kept across upgrades), else a fresh one. Computed once per render and remembered
in .Values (shared by every template of the render), because secret.yaml and call-keys.yaml must
see the same fresh master on a first install.
*/}}
{{- define "gantry.keyValues" -}}
{{- if not (hasKey .Values "generatedKeyValues") -}}
{{- $live := lookup "v1" "Secret" .Release.Namespace (include "gantry.fullname" .) -}}
{{- $out := dict -}}
{{- range $name, $fresh := include "gantry.generatedKeys" . | fromYaml -}}
{{- if hasKey $.Values.secrets.providers $name -}}
{{- $_ := set $out $name (include "gantry.str" (index $.Values.secrets.providers $name)) -}}
{{- else if and $live $live.data (hasKey $live.data $name) -}}
{{- $_ := set $out $name (index $live.data $name | b64dec) -}}
{{- else -}}
{{- $_ := set $out $name $fresh -}}
{{- end -}}
{{- end -}}
{{- $_ := set .Values "generatedKeyValues" $out -}}
{{- end -}}
{{- toYaml (get .Values "generatedKeyValues") -}}
{{- end -}}

{{/*
Who calls whom inside the release: (dict "in" {workload: [callers]} "out" {workload: [callees]}).
The gateway calls every enabled area service; a service calls those in its `calls`.
*/}}
{{- define "gantry.callGraph" -}}
{{- $in := dict -}}
{{- $out := dict -}}
{{- range $name := include "gantry.workloadNames" . | fromJsonArray -}}
{{- $_ := set $in $name (list) -}}
{{- $_ := set $out $name (list) -}}
{{- end -}}
{{- range $name := include "gantry.workloadNames" . | fromJsonArray -}}
{{- if ne $name "gateway" -}}
{{- $_ := set $out "gateway" (append (get $out "gateway") $name) -}}
{{- $_ := set $in $name (append (get $in $name) "gateway") -}}
{{- $w := include "gantry.workload" (dict "root" $ "name" $name) | fromYaml -}}
{{- range $callee := $w.calls -}}
{{- if not (hasKey $in $callee) -}}
{{- fail (printf "services.%s.enabled is false, but %s calls it (services.%s.calls) and does not start without it: disable %s too, or keep %s" $callee $name $name $name $callee) -}}
{{- end -}}
{{- $_ := set $out $name (append (get $out $name) $callee) -}}
{{- $_ := set $in $callee (append (get $in $callee) $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- toYaml (dict "in" $in "out" $out) -}}
{{- end -}}

{{- define "gantry.secretName" -}}
{{- .Values.secrets.existingSecret | default (include "gantry.fullname" .) -}}
{{- end -}}

{{- define "gantry.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- .Values.serviceAccount.name | default (include "gantry.fullname" .) -}}
{{- else -}}
{{- .Values.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{/*
Where a service's DATABASE_URL comes from: with the bundled Postgres, its own login's Secret
(postgres.yaml: `<release>-<service>-database`, which also holds the owner's
MIGRATION_DATABASE_URL); else the main Secret's one URL. (dict "root" $ "name" "keys")
*/}}
{{- define "gantry.databaseUrlSecret" -}}
{{- if .root.Values.postgres.bundled.enabled -}}
{{- printf "%s-%s-database" (include "gantry.fullname" .root) .name -}}
{{- else -}}
{{- include "gantry.secretName" .root -}}
{{- end -}}
{{- end -}}

{{- define "gantry.natsUrl" -}}
{{- if .Values.nats.bundled.enabled -}}
{{- printf "nats://%s-nats:%d" (include "gantry.fullname" .) (int .Values.nats.port) -}}
{{- else -}}
{{- required "nats.url is required when nats.bundled.enabled is false" .Values.nats.url -}}
{{- end -}}
{{- end -}}

{{- define "gantry.weaviateUrl" -}}
{{- if .Values.weaviate.bundled.enabled -}}
{{- printf "http://%s-weaviate:%d" (include "gantry.fullname" .) (int .Values.weaviate.port) -}}
{{- else -}}
{{- required "weaviate.url is required when weaviate.enabled and not weaviate.bundled.enabled" .Values.weaviate.url -}}
{{- end -}}
{{- end -}}

{{/*
The plain environment of a workload (its ConfigMap): shared config, where NATS and every area
service are, its own port, dependency settings, then defaults.env and the workload's env.
Call: include "gantry.env" (dict "root" $ "w" $w) | fromYaml
*/}}
{{- define "gantry.env" -}}
{{- $root := .root -}}
{{- $w := .w -}}
{{- $fullname := include "gantry.fullname" $root -}}
{{- $env := dict -}}
{{- range $k, $v := $root.Values.config -}}
{{- $_ := set $env $k (include "gantry.str" $v) -}}
{{- end -}}
{{- /* The bundled NATS's URL carries the workload's login: from its own Secret (gantry.secretEnv). */ -}}
{{- if not $root.Values.nats.bundled.enabled -}}
{{- $_ := set $env "NATS_URL" (include "gantry.natsUrl" $root) -}}
{{- end -}}
{{- /* The headless Services (service.yaml): every ready pod of a service, for client-side round robin. */ -}}
{{- range $name, $svc := $root.Values.services -}}
{{- $_ := set $env (printf "%s_ADDR" (upper $name)) (printf "%s-%s-headless:%d" $fullname $name (int $svc.port)) -}}
{{- end -}}
{{- if $w.http -}}
{{- $_ := set $env "PORT" (toString (int $w.port)) -}}
{{- else -}}
{{- $_ := set $env "GRPC_PORT" (toString (int $w.port)) -}}
{{- end -}}
{{- if and (eq $w.name "memory") $root.Values.weaviate.enabled -}}
{{- $_ := set $env "MEMORY_STORE" "weaviate" -}}
{{- $_ := set $env "WEAVIATE_URL" (include "gantry.weaviateUrl" $root) -}}
{{- $_ := set $env "WEAVIATE_GRPC_PORT" (toString (int $root.Values.weaviate.grpcPort)) -}}
{{- end -}}
{{- if has $w.name $root.Values.blobStore.workloads -}}
{{- $blob := $root.Values.blobStore -}}
{{- $_ := set $env "BLOB_STORE" $blob.driver -}}
{{- if eq $blob.driver "s3" -}}
{{- if not $blob.s3.bucket -}}{{- fail "blobStore.s3.bucket is required with blobStore.driver=s3" -}}{{- end -}}
{{- $_ := set $env "BLOB_S3_BUCKET" $blob.s3.bucket -}}
{{- $_ := set $env "BLOB_S3_REGION" $blob.s3.region -}}
{{- $_ := set $env "BLOB_S3_FORCE_PATH_STYLE" (toString $blob.s3.forcePathStyle) -}}
{{- with $blob.s3.prefix -}}{{- $_ := set $env "BLOB_S3_PREFIX" . -}}{{- end -}}
{{- with $blob.s3.endpoint -}}{{- $_ := set $env "BLOB_S3_ENDPOINT" . -}}{{- end -}}
{{- end -}}
{{- end -}}
{{- if $root.Values.grpcTls.enabled -}}
{{- $_ := set $env "GRPC_TLS_CERT_FILE" "/etc/gantry/grpc-tls/tls.crt" -}}
{{- $_ := set $env "GRPC_TLS_KEY_FILE" "/etc/gantry/grpc-tls/tls.key" -}}
{{- $_ := set $env "GRPC_TLS_CA_FILE" "/etc/gantry/grpc-tls/ca.crt" -}}
{{- end -}}
{{- with $root.Values.telemetry -}}
{{- $metrics := list -}}
{{- if .otlpEndpoint -}}
{{- $_ := set $env "OTEL_EXPORTER_OTLP_ENDPOINT" .otlpEndpoint -}}
{{- $_ := set $env "OTEL_EXPORTER_OTLP_PROTOCOL" .protocol -}}
{{- $_ := set $env "OTEL_TRACES_SAMPLER" .sampler -}}
{{- with .samplerArg -}}{{- $_ := set $env "OTEL_TRACES_SAMPLER_ARG" (toString .) -}}{{- end -}}
{{- if .metrics -}}{{- $metrics = append $metrics "otlp" -}}{{- end -}}
{{- else if .prometheus.enabled -}}
{{- /* Metrics without a collector: no traces are made or sent. */ -}}
{{- $_ := set $env "OTEL_TRACES_EXPORTER" "none" -}}
{{- end -}}
{{- if .prometheus.enabled -}}
{{- $metrics = append $metrics "prometheus" -}}
{{- $_ := set $env "OTEL_EXPORTER_PROMETHEUS_PORT" (toString (int .prometheus.port)) -}}
{{- end -}}
{{- if or .otlpEndpoint .prometheus.enabled -}}
{{- $_ := set $env "OTEL_SERVICE_NAME" $w.name -}}
{{- $_ := set $env "OTEL_METRICS_EXPORTER" (join "," $metrics | default "none") -}}
{{- end -}}
{{- end -}}
{{- if and (eq $w.name "gateway") $root.Values.gateway.trustedProxies -}}
{{- $_ := set $env "TRUSTED_PROXIES" $root.Values.gateway.trustedProxies -}}
{{- end -}}
{{- range $k, $v := $w.env -}}
{{- $_ := set $env $k (include "gantry.str" $v) -}}
{{- end -}}
{{- toYaml $env -}}
{{- end -}}

{{/* Environment variables read from Secrets (a container's `env:` list). */}}
{{- define "gantry.secretEnv" -}}
{{- $root := .root -}}
{{- $w := .w -}}
{{- $secret := include "gantry.secretName" $root -}}
{{- if $w.database }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "gantry.databaseUrlSecret" (dict "root" $root "name" $w.name) }}
      key: DATABASE_URL
{{- end }}
{{- if and $w.http $root.Values.redis.enabled }}
{{- /* The bundled Redis's URL carries the gateway's login: from its own Secret (redis.yaml). */}}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ ternary (printf "%s-redis" (include "gantry.fullname" $root)) $secret $root.Values.redis.bundled.enabled }}
      key: REDIS_URL
{{- end }}
{{- if $root.Values.nats.bundled.enabled }}
- name: NATS_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "gantry.fullname" $root }}-{{ $w.name }}-nats
      key: NATS_URL
{{- else if $root.Values.secrets.existingSecret }}
- name: NATS_URL
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: NATS_URL
      optional: true
{{- end }}
{{- $blob := $root.Values.blobStore }}
{{- if and (eq $blob.driver "s3") $blob.s3.existingSecret (has $w.name $blob.workloads) }}
{{- range $key := list "AWS_ACCESS_KEY_ID" "AWS_SECRET_ACCESS_KEY" }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      name: {{ $blob.s3.existingSecret }}
      key: {{ $key }}
{{- end }}
{{- end }}
{{- /* Internal call authentication (kit/src/call-auth.ts): with the chart-made Secret, only this
workload's caller→service keys (call-keys.yaml); with yours, the master it holds. */}}
{{- if $root.Values.secrets.existingSecret }}
- name: GANTRY_CALL_KEY
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: GANTRY_CALL_KEY
{{- else }}
{{- range $key := list "GANTRY_CALL_KEYS_IN" "GANTRY_CALL_KEYS_OUT" }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      name: {{ include "gantry.fullname" $root }}-{{ $w.name }}-calls
      key: {{ $key }}
{{- end }}
{{- end }}
{{- range $name := $w.secretEnv | uniq }}
- name: {{ $name }}
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $name }}
      optional: true
{{- end }}
{{- end -}}

{{/* Pod-level settings every Gantry pod shares. */}}
{{- define "gantry.podSecurity" -}}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
automountServiceAccountToken: false
enableServiceLinks: false
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* The /tmp emptyDir (the root filesystem is read-only): (dict "size" "64Mi") */}}
{{- define "gantry.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ .size | default "64Mi" }}
{{- end -}}

{{/* The hooks that run the migration Jobs (an external Postgres; the bundled one migrates in each pod's init container). */}}
{{- define "gantry.migrationHooks" -}}
{{- .Values.migrations.hooks | default "pre-install,pre-upgrade" -}}
{{- end -}}

{{/* A NetworkPolicy peer list of pods of one component: (dict "root" $ "component" "gateway") */}}
{{- define "gantry.podPeer" -}}
- podSelector:
    matchLabels:
      {{- include "gantry.selectorLabels" . | nindent 6 }}
{{- end -}}

{{/*
An egress rule to a dependency: bundled → its pods; external → its networkPeers, or any address
when none are given. (dict "root" $ "dep" "postgres" "ports" (list 5432))
*/}}
{{- define "gantry.depEgress" -}}
{{- $dep := get .root.Values .dep -}}
- ports:
  {{- range .ports | uniq }}
    - protocol: TCP
      port: {{ int . }}
  {{- end }}
  {{- if $dep.bundled.enabled }}
  to:
    {{- include "gantry.podPeer" (dict "root" .root "component" .dep) | nindent 4 }}
  {{- else if $dep.networkPeers }}
  to:
    {{- toYaml $dep.networkPeers | nindent 4 }}
  {{- end }}
{{- end -}}

{{/* Security settings of the bundled dependencies' pods: (dict "uid" 70) */}}
{{- define "gantry.depPodSecurity" -}}
securityContext:
  runAsNonRoot: true
  runAsUser: {{ .uid }}
  runAsGroup: {{ .uid }}
  fsGroup: {{ .uid }}
  seccompProfile:
    type: RuntimeDefault
automountServiceAccountToken: false
enableServiceLinks: false
{{- end -}}

{{- define "gantry.depContainerSecurity" -}}
securityContext:
  allowPrivilegeEscalation: false
  readOnlyRootFilesystem: true
  privileged: false
  capabilities:
    drop: [ALL]
{{- end -}}
