// The baseline's and the solution's colour wherever a chart sets the two sides beside each other,
// so a reader who learned them on one chart reads the next one the same way.
export const SIDE_COLOURS = { baseline: '#8a5a00', solution: '#2f5fd0' } as const;
