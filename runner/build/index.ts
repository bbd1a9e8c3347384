// The build library: builds a challenge tree with its protected harness, directly or through the
// cache of binaries, reusing the trusted builds' compiled units (compile-cache.ts).
export * from './executor';
export * from './build-tree';
export * from './build-cache';
export * from './compile-cache';
