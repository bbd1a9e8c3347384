// The sandbox module's public surface: the interface, its implementations and the factory.
export * from './sandbox';
export { BubblewrapSandbox, DEFAULT_SANDBOX_IDENTITY, bubblewrapArgs } from './bubblewrap-sandbox';
export type { BubblewrapSandboxOptions } from './bubblewrap-sandbox';
export { DockerSandbox, DEFAULT_DOCKER_IMAGE, dockerRunArgs } from './docker-sandbox';
export type { DockerSandboxOptions } from './docker-sandbox';
export { createSandbox } from './create-sandbox';
export type { CreateSandboxOptions } from './create-sandbox';
