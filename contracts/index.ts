// The shared contract module: every type that crosses a process boundary (manifest, jobs, results)
// is a zod schema here, imported by the CLI, the runner, the scorer and the web app alike.
export * from './size';
export * from './slug';
export * from './counters';
export * from './zod-issues';
export * from './errors';
export * from './manifest';
export * from './judging';
export * from './jobs';
export * from './final';
export * from './job-helper-report';
export * from './portability';
export * from './host-report';
export * from './syscalls';
