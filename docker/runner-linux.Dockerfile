# A linux-intel judge host (`perfjudge runner --target linux-intel`): compilers, build tools, the
# bubblewrap sandbox and the profilers. Needs REDIS_URL and the benchmark seed
# (PERFJUDGE_WORDCOUNT_SEED), never database credentials.
#   docker build -f docker/runner-linux.Dockerfile -t perfjudge-runner-linux .
#
# What the container needs from the host (docker/README.md has the details):
# - hardware counters: the host's kernel.perf_event_paranoid <= 2 (user-space counting; the
#   runner counts user space only) and CAP_PERFMON for the container (cap_add: [PERFMON]; kernels
#   before 5.8: CAP_SYS_ADMIN). Without them counters are reported "unsupported", never zero.
# - bubblewrap: user namespaces, which Docker's default seccomp profile and AppArmor deny, and a
#   /proc it may mount over (security_opt: seccomp=unconfined, apparmor=unconfined,
#   systempaths=unconfined). Or use the Docker sandbox instead (PERFJUDGE_SANDBOX=docker).
FROM node:20-bookworm
RUN apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
     clang cmake ninja-build bubblewrap linux-perf valgrind git binutils gcc libseccomp-dev \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# Builds, inputs and caches; a volume keeps them across restarts.
ENV PERFJUDGE_DATA_DIR=/var/lib/perfjudge
RUN mkdir -p /var/lib/perfjudge /run/perfjudge-lock
# Root inside the container, as on a bare host: the sandbox then runs untrusted code as uid 65534,
# which cannot touch the runner's files (runner/sandbox/bubblewrap-sandbox.ts).
# The host lock serializes judgings of every runner sharing this lock folder (one machine).
CMD ["node", "bin/perfjudge.mjs", "runner", "--target", "linux-intel", "--host-lock", "/run/perfjudge-lock/judging.lock"]
