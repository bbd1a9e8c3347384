// Validates a SandboxRequest and fills its defaults, shared by every sandbox implementation: a bad
// request is the platform's bug and must fail before anything runs.
import path from 'node:path';
import { z } from 'zod';
import { issuesInline } from '../../contracts/zod-issues';
import { allowableSyscallSchema, syscallsToDeny } from '../../contracts';
import { SANDBOX_COUNTERS } from './counters';
import type { SandboxRequest } from './sandbox';

const absolute = z
  .string()
  .min(1)
  .refine((p) => path.isAbsolute(p) && !p.includes('\0'), 'must be an absolute path')
  .transform((p) => path.resolve(p));
const count = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const noNul = z.string().refine((s) => !s.includes('\0'), 'must not contain NUL');

const requestSchema = z.object({
  command: noNul.min(1),
  args: z.array(noNul),
  workDir: absolute.refine((p) => p !== '/', 'must not be /'),
  cwd: absolute.optional(),
  readOnly: z.array(z.object({ host: absolute, sandbox: absolute })).optional(),
  env: z.record(z.string().regex(/^[^=\0]+$/, 'bad variable name'), noNul).optional(),
  stdinFile: absolute.optional(),
  stdout: z.enum(['capture', 'hash']),
  stderrBytes: z.number().int().nonnegative().optional(),
  cpu: z.number().int().nonnegative().max(4095).optional(),
  counters: z.array(z.enum(SANDBOX_COUNTERS)).optional(),
  allowSyscalls: z.array(allowableSyscallSchema).optional(),
  resident: z.array(absolute).max(16).optional(),
  limits: z.object({
    wallTimeMs: count,
    memoryBytes: count,
    processes: count,
    outputBytes: z.number().int().nonnegative(),
    fileBytes: count,
  }),
});

const DEFAULT_STDERR_BYTES = 64 * 1024;

export interface NormalizedRequest extends Omit<
  SandboxRequest,
  'cwd' | 'env' | 'stderrBytes' | 'readOnly' | 'counters' | 'allowSyscalls' | 'resident'
> {
  resident: string[];
  cwd: string;
  /** Each event once, in the order asked. */
  counters: string[];
  env: Record<string, string>;
  stderrBytes: number;
  readOnly: { host: string; sandbox: string }[];
  /** The syscall filter's deny list: every denied syscall the request does not allow. */
  denySyscalls: string[];
}

/**
 * The environment is ours, never the runner's: a minimal PATH, HOME and the C locale, then the
 * request's own variables on top.
 */
export function normalizeRequest(request: SandboxRequest): NormalizedRequest {
  const { signal, ...rest } = request;
  const parsed = requestSchema.safeParse(rest);
  if (!parsed.success) {
    throw new TypeError(`invalid sandbox request: ${issuesInline(parsed.error)}`);
  }
  const { allowSyscalls, ...r } = parsed.data;
  return {
    ...r,
    denySyscalls: syscallsToDeny(allowSyscalls),
    cwd: r.cwd ?? r.workDir,
    env: { PATH: '/usr/bin:/bin', HOME: r.workDir, LC_ALL: 'C', ...r.env },
    stderrBytes: r.stderrBytes ?? DEFAULT_STDERR_BYTES,
    readOnly: r.readOnly ?? [],
    counters: [...new Set(r.counters ?? [])],
    resident: [...new Set(r.resident ?? [])],
    signal,
  };
}
