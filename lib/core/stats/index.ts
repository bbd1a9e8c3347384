// The judge's statistics: speedup estimate and interval, stopping rule, summaries and noise flags.
export * from './descriptive';
export * from './disturbance';
export * from './noise-flags';
export * from './noise-model';
export * from './rng';
export * from './speedup';
export * from './host-drift';
export * from './location';
export * from './session-cost';
