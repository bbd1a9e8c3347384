// Picks the sandbox implementation: bubblewrap unless the host is configured for Docker.
import { BubblewrapSandbox, type BubblewrapSandboxOptions } from './bubblewrap-sandbox';
import { DockerSandbox, type DockerSandboxOptions } from './docker-sandbox';
import type { Sandbox } from './sandbox';

export interface CreateSandboxOptions {
  bubblewrap?: BubblewrapSandboxOptions;
  docker?: DockerSandboxOptions;
}

export function createSandbox(
  kind: 'bubblewrap' | 'docker' = 'bubblewrap',
  options: CreateSandboxOptions = {},
): Sandbox {
  switch (kind) {
    case 'bubblewrap':
      return new BubblewrapSandbox(options.bubblewrap);
    case 'docker':
      return new DockerSandbox(options.docker);
  }
}
