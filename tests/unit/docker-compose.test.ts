// The deployment files cannot be run here (no Docker engine, no compose plugin), so this checks
// what can be checked without one: every service's command is a real perfjudge command with real
// options (or an npm script, or Next's CLI), every variable a service sets is one the code reads,
// every Dockerfile COPY source exists, and the images' default commands match the compose file's.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { registerCommands } from '../../cli/commands';
import { listChallenges } from '../../lib/core/challenge/load-manifest';
import { ENV_VARIABLES, REPO_ROOT } from '../../lib/core/config/env';

const DOCKER = path.join(REPO_ROOT, 'docker');

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}

const compose = parse(readFileSync(path.join(DOCKER, 'compose.yaml'), 'utf8'), {
  merge: true,
}) as { services: Record<string, Service> };
const services = compose.services;
const packageScripts = (
  JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;

function cli(): Command {
  const program = new Command('perfjudge');
  registerCommands(program, () => {});
  return program;
}

/** Checks `node bin/perfjudge.mjs <command> [--option value]…` against the real CLI definition. */
function checkPerfjudgeCommand(args: string[]): void {
  const [name, ...rest] = args;
  const command = cli().commands.find((c) => c.name() === name);
  expect(command, `perfjudge ${name} is not a command`).toBeDefined();
  const longs = new Set(command!.options.map((o) => o.long));
  for (const arg of rest.filter((a) => a.startsWith('--')))
    expect(longs.has(arg), `perfjudge ${name} has no option ${arg}`).toBe(true);
}

function checkCommand(service: string, command: string[]): void {
  if (command[0] === 'node' && command[1] === 'bin/perfjudge.mjs') {
    checkPerfjudgeCommand(command.slice(2));
    return;
  }
  if (command[0] === 'node' && command[1] === 'node_modules/next/dist/bin/next') {
    expect(existsSync(path.join(REPO_ROOT, command[1])), 'Next.js CLI').toBe(true);
    expect(['start', 'build']).toContain(command[2]);
    return;
  }
  if (command[0] === 'node' && command[1] === 'scripts/web-server.mjs') {
    expect(existsSync(path.join(REPO_ROOT, command[1])), 'the web server').toBe(true);
    return;
  }
  if (command[0] === 'sh' && command[1] === '-c') {
    const scripts = [...command[2]!.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]!);
    expect(scripts.length, `${service}: no npm script in ${command[2]}`).toBeGreaterThan(0);
    for (const script of scripts)
      expect(packageScripts, `npm run ${script}`).toHaveProperty(script);
    return;
  }
  if (command[0] === 'redis-server') return; // the official Redis image's own server
  throw new Error(`${service}: unchecked command ${command.join(' ')}`);
}

/** Dockerfile instructions, continuation lines joined. */
function instructions(dockerfile: string): string[] {
  return readFileSync(dockerfile, 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

const dockerfiles = readdirSync(DOCKER).filter((f) => f.endsWith('.Dockerfile'));

describe('docker/systemd/perfjudge-runner@.service', () => {
  const unit = readFileSync(path.join(DOCKER, 'systemd', 'perfjudge-runner@.service'), 'utf8');
  const directive = (name: string) =>
    [...unit.matchAll(new RegExp(`^${name}=(.*)$`, 'gm'))].map((m) => m[1]!.trim());

  it('runs the runner with its own options, restarts it forever, and waits out its grace period', () => {
    const [exec] = directive('ExecStart');
    const args = exec!.split(/\s+/);
    expect(args.slice(0, 2)).toEqual(['/usr/bin/node', 'bin/perfjudge.mjs']);
    checkPerfjudgeCommand(args.slice(2).map((a) => (a === '%i' ? 'linux-intel' : a)));
    expect(args).toEqual(expect.arrayContaining(['runner', '--target', '%i']));
    expect(directive('Restart')).toEqual(['always']);
    expect(directive('StartLimitIntervalSec')).toEqual(['0']);
    const grace = Number(args[args.indexOf('--grace-seconds') + 1]);
    expect(Number(directive('TimeoutStopSec')[0])).toBeGreaterThan(grace);
    // Runners never get database credentials.
    expect(unit).not.toMatch(/^Environment=.*DATABASE_URL/m);
  });
});

describe('docker/compose.yaml', () => {
  it('has PostgreSQL, Redis, the web app, the scorer and a scalable Linux runner', () => {
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining(['postgres', 'redis', 'migrate', 'web', 'scorer', 'runner-linux']),
    );
    // --scale needs replicas without fixed names or host ports.
    expect(services['runner-linux']).not.toHaveProperty('container_name');
    expect(services['runner-linux']).not.toHaveProperty('ports');
  });

  it("runs only commands the code has, with the CLI's own options", () => {
    for (const [name, service] of Object.entries(services))
      if (service.command) checkCommand(name, service.command);
    expect(services['runner-linux']!.command).toEqual(
      expect.arrayContaining(['runner', '--target', 'linux-intel']),
    );
    expect(services.scorer!.command).toEqual(['node', 'bin/perfjudge.mjs', 'scorer']);
  });

  it('sets only variables the code reads (lib/core/config/env.ts, manifest seeds, the images)', async () => {
    const seeds = (await listChallenges()).map((c) => c.manifest.inputs.benchmark.seedEnv);
    const known = new Set<string>([...ENV_VARIABLES, ...seeds]);
    const imageVariables = new Set(['POSTGRES_USER', 'POSTGRES_DB', 'POSTGRES_PASSWORD']);
    for (const [name, service] of Object.entries(services))
      for (const variable of Object.keys(service.environment ?? {})) {
        const ok = known.has(variable) || (name === 'postgres' && imageVariables.has(variable));
        expect(ok, `${name} sets ${variable}, which nothing reads`).toBe(true);
      }
  });

  it('never gives a runner database credentials, and gives it every challenge seed', async () => {
    const runner = services['runner-linux']!;
    expect(runner.environment).not.toHaveProperty('DATABASE_URL');
    expect(runner.environment).toHaveProperty('REDIS_URL');
    // It serves every challenge on disk, and outside development mode refuses one without its seed.
    for (const challenge of await listChallenges())
      expect(runner.environment).toHaveProperty(challenge.manifest.inputs.benchmark.seedEnv);
  });

  it('restarts every long-running service, and its Redis keeps the queue on disk', () => {
    for (const name of ['postgres', 'redis', 'web', 'scorer', 'runner-linux'])
      expect((services[name] as { restart?: string }).restart, name).toBe('unless-stopped');
    expect(services.redis!.command).toEqual(expect.arrayContaining(['--appendonly', 'yes']));
  });

  it('checks health: the web app through /api/health, the stores with their own clients', () => {
    for (const name of ['postgres', 'redis', 'web', 'scorer', 'runner-linux'])
      expect(services[name]!.healthcheck, `${name} health check`).toBeDefined();
    expect(services.web!.healthcheck!.test.join(' ')).toContain('/api/health');
    expect(existsSync(path.join(REPO_ROOT, 'app/api/health/route.ts'))).toBe(true);
    expect(services.web!.depends_on?.migrate?.condition).toBe('service_completed_successfully');
  });

  it('every variable it interpolates is in docker/example.env', () => {
    const text = readFileSync(path.join(DOCKER, 'compose.yaml'), 'utf8');
    const example = readFileSync(path.join(DOCKER, 'example.env'), 'utf8');
    const listed = new Set([...example.matchAll(/^([A-Z_]+)=/gm)].map((m) => m[1]));
    for (const [, name] of text.matchAll(/\$\{([A-Z_]+)/g))
      expect(listed.has(name!), `${name} missing from docker/example.env`).toBe(true);
  });

  it('builds from Dockerfiles that exist, with the repository as the context', () => {
    for (const [name, service] of Object.entries(services)) {
      if (!service.build) continue;
      expect(path.resolve(DOCKER, service.build.context), name).toBe(REPO_ROOT);
      expect(existsSync(path.join(REPO_ROOT, service.build.dockerfile)), name).toBe(true);
    }
  });
});

describe('docker/*.Dockerfile', () => {
  it('exist for the web app, the scorer and the Linux runner', () => {
    expect(dockerfiles).toEqual(
      expect.arrayContaining(['web.Dockerfile', 'scorer.Dockerfile', 'runner-linux.Dockerfile']),
    );
  });

  it.each(dockerfiles)('%s copies only what exists and starts what compose starts', (file) => {
    const lines = instructions(path.join(DOCKER, file));
    for (const line of lines.filter((l) => /^COPY\s/i.test(l) && !/--from=/.test(l))) {
      const sources = line.split(/\s+/).slice(1, -1);
      for (const source of sources)
        expect(existsSync(path.join(REPO_ROOT, source)), `${file}: COPY ${source}`).toBe(true);
    }
    const cmd = lines.find((l) => l.startsWith('CMD '));
    expect(cmd, `${file} has a CMD`).toBeDefined();
    const args = JSON.parse(cmd!.slice(4)) as string[];
    checkCommand(file, args);
    // The compose service built from this file runs the same thing by default.
    const service = Object.values(services).find((s) => s.build?.dockerfile === `docker/${file}`);
    if (service?.command && service.command[0] === 'node')
      expect(service.command.slice(0, 3)).toEqual(args.slice(0, 3));
  });

  it('the Linux runner image has the judge tools', () => {
    const text = readFileSync(path.join(DOCKER, 'runner-linux.Dockerfile'), 'utf8');
    for (const pkg of ['clang', 'cmake', 'ninja-build', 'bubblewrap', 'linux-perf', 'valgrind'])
      expect(text).toMatch(new RegExp(`\\b${pkg}\\b`));
  });

  it('each image ignores local dependencies, data and builds', () => {
    for (const file of dockerfiles) {
      const ignore = path.join(DOCKER, `${file}.dockerignore`);
      expect(existsSync(ignore), `${file}.dockerignore`).toBe(true);
      const patterns = readFileSync(ignore, 'utf8').split('\n');
      for (const p of ['node_modules', '.data', '.next']) expect(patterns).toContain(p);
    }
  });
});
