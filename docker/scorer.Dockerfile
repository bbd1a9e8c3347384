# The scorer (`perfjudge scorer`): records results in PostgreSQL, scores, reconciles the queue.
# Also runs the one-shot migrations and seed (`npm run db:migrate`, `npm run db:seed`).
#   docker build -f docker/scorer.Dockerfile -t perfjudge-scorer .
# Needs DATABASE_URL and REDIS_URL (lib/core/config/env.ts).
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN bash scripts/db-generate.sh
# The start bundle (bin/start-bundle.mjs) is built here, as root: the node user cannot write .data/,
# and without it every start would fall back to tsx.
RUN node bin/perfjudge.mjs scorer --help >/dev/null
USER node
CMD ["node", "bin/perfjudge.mjs", "scorer"]
