# syntax=docker/dockerfile:1
# One image for every Holdfast service; the command picks which (docker-compose.yml):
#   node services/gateway/dist/main.js | services/projector/... | services/recompute/... |
#   services/dispatcher/... | services/console/... | packages/cli/bin/holdfast.mjs <command>

# 1. Build: every dependency (TypeScript included), then the compiled output of every workspace.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY . .
# --omit=optional: the embedded PostgreSQL is a local-development fallback, not part of a deployment.
RUN npm ci --no-audit --no-fund --omit=optional --ignore-scripts \
 && npx tsc -b \
 && npm prune --omit=dev --omit=optional --no-audit --no-fund --ignore-scripts \
 # Built output only: drop TypeScript sources (the gateway's pixel loader script is plain JS, kept),
 # tests (services/*/test, packages/*/test, tests/), benches, docs and build metadata.
 && find packages services -path '*/src/*' -name '*.ts' -delete \
 && rm -rf tests bench docs scripts .holdfast infra/maven services/*/test packages/*/test \
 && find . -name '*.tsbuildinfo' -not -path './node_modules/*' -delete

# 2. Run: production dependencies and built output, as the unprivileged `node` user.
FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=root:root /app /app
USER node
# Every service serves GET /healthz on HOLDFAST_OPS_PORT; compose's healthchecks call it.
CMD ["node", "services/gateway/dist/main.js"]
