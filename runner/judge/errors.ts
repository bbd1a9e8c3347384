// A fault of the platform (missing tool, broken baseline, I/O error): it becomes JUDGE_ERROR, is
// retried by the queue, and is never shown as the contestant's failure.
export class JudgeError extends Error {
  override name = 'JudgeError';
}

export class JudgingCancelledError extends Error {
  override name = 'JudgingCancelledError';
  constructor() {
    super('the judging was cancelled');
  }
}
