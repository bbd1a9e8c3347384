# The web app (Next.js, production build). Build from the repository root:
#   docker build -f docker/web.Dockerfile -t perfjudge-web .
# Runs the web server (scripts/web-server.mjs: `next start` with client addresses taken from the
# connection) on port 3000; needs DATABASE_URL, REDIS_URL, PERFJUDGE_PUBLIC_URL and
# PERFJUDGE_AUTH_SECRET (lib/core/config/env.ts). Behind a reverse proxy, set PERFJUDGE_TRUSTED_PROXIES
# to the proxy's address (or CIDR range), or every client counts as the proxy for rate limits. The schema is migrated by the compose file's `migrate`
# service (scorer image), not here, so several web replicas never race on it.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# The Prisma client is generated, not committed (scripts/db-generate.sh says why it needs no network).
RUN bash scripts/db-generate.sh && NEXT_TELEMETRY_DISABLED=1 node node_modules/next/dist/bin/next build

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=3000
# The server loads lib/, contracts/ and challenges/ at run time (challenge files, manifests).
COPY --from=build /app /app
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=6 \
  CMD node -e "fetch('http://127.0.0.1:3000/api/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "scripts/web-server.mjs", "--port", "3000", "--hostname", "0.0.0.0"]
