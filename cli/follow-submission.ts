// Following a submission until its verdict, for `perfjudge submit --wait` and `perfjudge status --wait`.
import { followSubmission, type SubmissionState } from '../lib/server/submit/status-client';
import { exitCodeOf, formatState, ProgressView } from './submission-view';

/** Shows the judging live on stderr, then the verdict on stdout; returns the exit code. */
export async function followToVerdict(options: {
  server: string;
  token: string;
  submissionId: string;
  pageUrl: string;
  json?: boolean;
}): Promise<number> {
  const view = new ProgressView(process.stderr);
  let last: SubmissionState | undefined;
  // In a log, a line at least every 10 s even while nothing changes.
  const ticker = process.stderr.isTTY
    ? undefined
    : setInterval(() => last && view.show(last), 10_000);
  try {
    for await (const state of followSubmission(options)) {
      last = state;
      view.show(state);
    }
  } finally {
    if (ticker) clearInterval(ticker);
  }
  if (!last) return 2;
  process.stdout.write(
    options.json ? `${JSON.stringify(last)}\n` : formatState(last, options.pageUrl),
  );
  return exitCodeOf(last);
}
