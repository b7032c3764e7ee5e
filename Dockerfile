# syntax=docker/dockerfile:1
# Switchboard's container image. Three stages: compile with the full toolchain, install the
# production dependencies alone from the lock file, and copy both into a clean runtime that runs as a
# non-root user and writes nothing outside /tmp (so it runs on a read-only root filesystem).
#
#   docker build -t switchboard:0.1.0 .
#   docker run --rm -p 8080:8080 --read-only --tmpfs /tmp switchboard:0.1.0
#
# test/deploy/runtime-install.test.ts does what the runtime stage does, without Docker: a missing
# runtime dependency fails the tests, not the first deploy.
ARG NODE_IMAGE=node:24-trixie-slim

# --- build: all dependencies (TypeScript is a dev dependency), then src/ -> dist/ -----------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: none of the dependencies that `tsc` or the runtime needs has one.
RUN --mount=type=cache,target=/root/.npm \
    npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# --- deps: production dependencies only, from the same lock file ---------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# --- runtime -------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG CREATED=unknown
ARG SOURCE=""
LABEL org.opencontainers.image.title="switchboard" \
      org.opencontainers.image.description="An MCP gateway: one Streamable HTTP endpoint in front of many upstream MCP servers" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="Apache-2.0"

# tini as PID 1: it forwards SIGTERM to the gateway and reaps the orphans that stdio upstreams
# started through wrappers (npx, sh) leave behind, which Node as PID 1 would not.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*

# HOST: listen on all interfaces (the gateway's own default is loopback). SWITCHBOARD_CONFIG: the
# config file, which Kubernetes replaces by mounting a ConfigMap on /etc/switchboard. npm's cache
# goes to /tmp, for upstreams started with npx on a read-only root filesystem. LOG_FORMAT: JSON lines
# even under `docker run -t`, whose terminal would otherwise get readable ones.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    LOG_FORMAT=json \
    SWITCHBOARD_CONFIG=/etc/switchboard/switchboard.yaml \
    NPM_CONFIG_CACHE=/tmp/.npm \
    NPM_CONFIG_UPDATE_NOTIFIER=false

# The working directory is the app: the shipped config starts its upstreams as
# `node node_modules/...`, relative to it. Files stay owned by root, so the gateway cannot change them.
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY config/switchboard.yaml /etc/switchboard/switchboard.yaml

# The node user of the base image, by number, so Kubernetes' runAsNonRoot can check it.
USER 1000:1000
EXPOSE 8080
# --single-threaded-gc: V8 collects garbage on the main thread instead of waking helper threads for
# every young-generation collection. With a small heap and a CPU limit of a core or two, the helpers
# cost more than they save (docs/decisions/0007-single-threaded-gc.md). Node refuses the flag in
# NODE_OPTIONS.
# --lazy-new-space-shrinking: V8 keeps its young generation through a quiet spell instead of giving
# it back after a few seconds of little allocation and faulting it in again on the next burst of
# calls (docs/decisions/0009-lazy-new-space-shrinking.md).
ENTRYPOINT ["/usr/bin/tini", "--", "node", "--single-threaded-gc", "--lazy-new-space-shrinking", "/app/dist/cli.js"]
