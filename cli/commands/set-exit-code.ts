/** How a sub-command sets the process's exit code (cli/program.ts returns it). */
export type SetExitCode = (code: number) => void;
