// What the challenge page shows, gathered in one place: the contest's state and settings, its
// targets and limits, the README text and the download names.
import 'server-only';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { formatByteSize, type HostMemory } from '../../../contracts';
import { describeHostMemory } from '../../core/challenge/host-conditions';
import { loadChallenge } from '../../core/challenge/load-manifest';
import { db } from '../db/client';
import { getContest } from '../db/contest/get-contest';
import { env } from '../../core/config/env';
import { CLI_PACKAGE_PATH, contestantWorkflow, type WorkflowStep } from '../kit/workflow';
import { archiveName } from './challenge-files';

export interface ChallengePageData {
  slug: string;
  title: string;
  summary: string;
  version: number;
  readme: string;
  deadline: string | null;
  open: boolean;
  closedReason: string | null;
  solutionsPublished: boolean;
  submissionsPerHour: number;
  targets: { id: string; os: string; cpuVendor: string; description: string; flags: string }[];
  limits: { label: string; value: string }[];
  downloads: { tarGz: string; zip: string; cli: string };
  /** The one workflow, as the kit's README has it, with the platform's URL filled in. */
  workflow: WorkflowStep[];
  publicInput: { size: string; seed: string; command: string };
  scoring: string;
}

/** What every judge host provides for memory, as the manifest states it (runners check it). */
function hostMemoryLimits(memory: HostMemory | undefined): { label: string; value: string }[] {
  if (!memory) return [];
  const said = describeHostMemory(memory);
  return [
    { label: 'Transparent huge pages', value: said.transparentHugePages },
    { label: 'Huge page pool (MAP_HUGETLB)', value: said.hugePages },
  ];
}

export async function challengePageData(slug: string): Promise<ChallengePageData> {
  const contest = await getContest(db(), slug);
  const challenge = await loadChallenge(slug);
  const { manifest } = contest;
  const readme = await readFile(path.join(challenge.dir, manifest.readme), 'utf8');
  const l = manifest.limits;
  return {
    slug,
    title: contest.title,
    summary: manifest.summary,
    version: contest.version,
    readme,
    deadline: contest.settings.deadline?.toISOString() ?? null,
    open: contest.open,
    closedReason: contest.closedReason,
    solutionsPublished: contest.solutionsPublishedAt !== null,
    submissionsPerHour: contest.settings.submissionsPerHour,
    targets: Object.entries(manifest.targets).map(([id, t]) => ({
      id,
      os: t.os,
      cpuVendor: t.cpuVendor,
      description: t.description ?? '',
      flags: `${t.toolchain.cxx} ${t.toolchain.flags.join(' ')}`,
    })),
    limits: [
      { label: 'Build time', value: `${l.buildSeconds} s` },
      { label: 'Run time (tests)', value: `${l.testRunSeconds} s` },
      { label: 'Run time (benchmark)', value: `${l.benchmarkRunSeconds} s` },
      { label: 'Memory', value: formatByteSize(l.memory) },
      { label: 'Output', value: formatByteSize(l.outputBytes) },
      { label: 'Patch size', value: formatByteSize(l.patchBytes) },
      { label: 'Processes', value: String(l.processes) },
      ...hostMemoryLimits(manifest.host?.memory),
    ],
    downloads: {
      tarGz: archiveName(slug, 'tar.gz'),
      zip: archiveName(slug, 'zip'),
      cli: CLI_PACKAGE_PATH,
    },
    workflow: contestantWorkflow({ slug, server: env().PERFJUDGE_PUBLIC_URL }),
    publicInput: {
      size: formatByteSize(manifest.inputs.public.size),
      seed: manifest.inputs.public.seed,
      command: `perfjudge gen ${slug} --size ${formatByteSize(manifest.inputs.public.size).replace(' ', '')} --seed ${manifest.inputs.public.seed} --out public.txt`,
    },
    scoring: manifest.scoring.description ?? manifest.scoring.formula,
  };
}
