// The sandbox module's public surface: the interface, its implementations and the factory.
export * from './sandbox';
export { BubblewrapSandbox } from './bubblewrap-sandbox';
export { DockerSandbox, dockerRunArgs } from './docker-sandbox';
export { createSandbox } from './create-sandbox';
