// The build library: builds a challenge tree with its protected harness, directly or through the cache.
export * from './executor';
export * from './build-tree';
export * from './build-cache';
