// What every step of `npm start` after the first needs: the configuration, the challenge, and the
// secrets generated on the first start.
import { UnavailableError } from '../../contracts';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  listChallenges,
  loadChallenge,
  type Challenge,
} from '../../lib/core/challenge/load-manifest';
import { DEFAULT_CHALLENGE } from '../../lib/core/challenge/default-challenge';
import { challengeSecret, env } from '../../lib/core/config/env';
import { childEnvironment, type StartEnv } from '../../lib/core/config/start-env';
import { portAnswers } from './private-stores';

export const CHALLENGES = [DEFAULT_CHALLENGE];

export interface Secrets {
  authSecret: string;
  organizer: { email: string; password: string };
  /** Benchmark seeds by the variable each manifest names (PERFJUDGE_WORDCOUNT_SEED). */
  seeds: Record<string, string>;
}

/** Generated once and kept in .data/secrets.json (mode 600), so a second start reuses them. */
async function loadSecrets(dataDir: string, seedNames: string[]): Promise<Secrets> {
  const file = path.join(dataDir, 'secrets.json');
  let secrets: Partial<Secrets> = {};
  try {
    secrets = JSON.parse(await readFile(file, 'utf8')) as Partial<Secrets>;
  } catch {
    // First start.
  }
  const token = () => randomBytes(24).toString('base64url');
  const complete: Secrets = {
    authSecret: secrets.authSecret ?? randomBytes(32).toString('base64url'),
    organizer: secrets.organizer ?? { email: 'organizer@perfjudge.local', password: token() },
    seeds: { ...secrets.seeds },
  };
  for (const name of seedNames) complete.seeds[name] ??= token();
  if (JSON.stringify(complete) !== JSON.stringify(secrets)) {
    await writeFile(file, `${JSON.stringify(complete, null, 2)}\n`, { mode: 0o600 });
    await chmod(file, 0o600);
  }
  return complete;
}

/** What every step after the first needs: the configuration, the challenge and the secrets. */
export interface StartPlan {
  config: StartEnv;
  dataDir: string;
  challenge: Challenge;
  /** Benchmark seeds by the variable each manifest names. */
  seeds: Record<string, string>;
  organizer: { email: string; password: string };
  authSecret: string;
  publicUrl: string;
  baseEnv: NodeJS.ProcessEnv;
}

export async function loadPlan(config: StartEnv, dataDir: string): Promise<StartPlan> {
  await mkdir(dataDir, { recursive: true });
  const challenge = await loadChallenge(CHALLENGES[0]!);
  // Every challenge on disk: a runner outside development mode serves them all and needs each seed.
  const seedNames = [
    ...new Set((await listChallenges()).map((c) => c.manifest.inputs.benchmark.seedEnv)),
  ];
  const secrets = await loadSecrets(dataDir, seedNames);
  return {
    config,
    dataDir,
    challenge,
    seeds: Object.fromEntries(
      seedNames.map((name) => [name, challengeSecret(name) ?? secrets.seeds[name]!]),
    ),
    organizer: {
      email: env().PERFJUDGE_ORGANIZER_EMAIL ?? secrets.organizer.email,
      password: env().PERFJUDGE_ORGANIZER_PASSWORD ?? secrets.organizer.password,
    },
    authSecret: env().PERFJUDGE_AUTH_SECRET ?? secrets.authSecret,
    publicUrl: config.PERFJUDGE_PUBLIC_URL ?? `http://localhost:${config.PORT}`,
    baseEnv: childEnvironment({}),
  };
}

/** What would fail later, said now, in a second, rather than after the build. */
export async function checkHost(plan: StartPlan): Promise<void> {
  const { config } = plan;
  if (await portAnswers(config.PORT))
    throw new UnavailableError(
      `PORT ${config.PORT} is in use: stop what listens there, or set PORT=…`,
    );
}
