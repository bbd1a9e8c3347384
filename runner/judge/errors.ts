// A fault of the platform (missing tool, broken baseline, I/O error): it becomes JUDGE_ERROR, is
// retried by the queue, and is never shown as the contestant's failure.
import { AppError } from '../../contracts';
export class JudgeError extends AppError {
  override name = 'JudgeError';
  readonly code = 'judge-error' as const;
}

export class JudgingCancelledError extends AppError {
  override name = 'JudgingCancelledError';
  readonly code = 'cancelled' as const;
  constructor() {
    super('the judging was cancelled');
  }
}
