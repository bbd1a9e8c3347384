// Entry point of the packaged perfjudge CLI (`npm run pack:cli` bundles it into one file): the
// contestant's commands only, with the challenge definitions carried in the package's challenges/.
import { applyPackagedCliDefaults } from '../../lib/core/config/packaged-cli';

applyPackagedCliDefaults();
const { runProgram } = await import('../../cli/program');
const { registerContestantCommands } = await import('../../cli/commands/contestant');
process.exitCode = await runProgram(
  process.argv,
  registerContestantCommands,
  'Judge a patch locally exactly as the perfjudge platform does, and submit it.',
);
