// One target's finished judging: verdict and message, then what each stage produced. A JUDGE_ERROR
// is shown as the platform's fault, never as the contestant's failure.
import { STAGES, type JudgingResult } from '../../../contracts';
import type { JudgingView } from '../../../lib/server/db/submissions/get-submission-view';
import { formatDate, formatMs } from '../../../lib/server/web/format';
import { uniqueNotes } from '../../../lib/server/web/submission-result';
import { verdictLabel } from '../verdict-badge';
import { BuildLog } from './build-log';
import { HostFingerprintView } from './host-labels';
import { Measurement } from './measurement';
import { Profile } from './profile';
import { TestResults } from './test-results';

function Intake({ intake }: { intake: JudgingResult['stages']['intake'] }) {
  if (intake.files.length === 0) return null;
  return (
    <details>
      <summary>
        Files the patch touches ({intake.files.length}
        {intake.format ? `, ${intake.format}` : ''})
      </summary>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th>file</th>
              <th>change</th>
              <th className="num">+</th>
              <th className="num">−</th>
            </tr>
          </thead>
          <tbody>
            {intake.files.map((f) => (
              <tr key={f.path}>
                <td className="mono" style={{ overflowWrap: 'anywhere' }}>
                  {f.from ? `${f.from} → ${f.path}` : f.path}
                </td>
                <td>{f.change}</td>
                <td className="num">{f.additions}</td>
                <td className="num">{f.deletions}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

export function JudgingResultView({
  submissionId,
  judging,
}: {
  submissionId: string;
  judging: JudgingView;
}) {
  const r = judging.result;
  const verdict = judging.verdict ?? r?.verdict ?? null;
  const message = r?.message ?? judging.message ?? '';
  if (verdict === 'JUDGE_ERROR')
    return <JudgeErrorNotice target={judging.target} message={message} />;
  return (
    <div className="judging-result">
      <p className={`notice ${verdict === 'ACCEPTED' ? 'ok' : 'error'}`}>
        <strong>{verdict ? verdictLabel(verdict) : 'Finished'}.</strong> {message}
      </p>
      {judging.resultUnreadable && (
        <p className="notice warn small">
          The stored result has a format this version of the site cannot read; only the verdict is
          shown.
        </p>
      )}
      {r && <Stages submissionId={submissionId} target={judging.target} r={r} />}
    </div>
  );
}

/** The platform's fault, said as such: never shown as the contestant's failure. */
function JudgeErrorNotice({ target, message }: { target: string; message: string }) {
  return (
    <div className="judging-result notice warn" data-testid={`judge-error-${target}`}>
      <p style={{ margin: 0 }}>
        <strong>Judge error: the platform’s fault, not your patch’s.</strong> We’ll retry: the
        organizers see failed judgings and rejudge them, and nothing counts against you meanwhile.
      </p>
      {message && <p className="small muted">What the judge reported: {message}</p>}
    </div>
  );
}

/** What each stage produced, in the order the stages ran, then warnings, host and timings. */
function Stages({
  submissionId,
  target,
  r,
}: {
  submissionId: string;
  target: string;
  r: JudgingResult;
}) {
  const id = encodeURIComponent(submissionId);
  // A warning the profile section already says (its notes) is not said twice.
  const warnings = uniqueNotes(
    r.warnings,
    r.verdict === 'ACCEPTED' ? (r.stages.profile?.notes ?? []) : [],
  );
  return (
    <>
      {r.verdict === 'REJECTED' && r.stages.intake.reason && (
        <pre className="wrap">{r.stages.intake.reason}</pre>
      )}
      <Intake intake={r.stages.intake} />
      {r.stages.build && (
        <BuildLog
          build={r.stages.build.solution}
          fullLogHref={`/submissions/${id}/log/${target}`}
          open={r.verdict === 'BUILD_ERROR'}
        />
      )}
      {r.stages.build?.identicalBinaries && (
        <p className="small muted">
          The solution compiles to the same machine code as the baseline.
        </p>
      )}
      {r.stages.test && r.stages.test.cases.length > 0 && (
        <TestResults cases={r.stages.test.cases} />
      )}
      {r.verdict === 'ACCEPTED' && r.stages.measure && (
        <Measurement target={target} measure={r.stages.measure} />
      )}
      {r.verdict === 'ACCEPTED' && r.stages.profile && (
        <Profile
          target={target}
          profile={r.stages.profile}
          downloadHref={`/submissions/${id}/profile/${target}`}
        />
      )}
      {warnings.length > 0 && (
        <>
          <h3>Warnings</h3>
          <ul className="small warnings">
            {warnings.map((w, i) => (
              <li key={i}>{w}</li>
            ))}
          </ul>
        </>
      )}
      <HostFingerprintView host={r.host} />
      <JudgedLine r={r} />
    </>
  );
}

/** When and how long, with each stage's time in the order the stages ran. */
function JudgedLine({ r }: { r: JudgingResult }) {
  const timings = Object.entries(r.stageDurationsMs).sort(
    ([a], [b]) =>
      STAGES.indexOf(a as (typeof STAGES)[number]) - STAGES.indexOf(b as (typeof STAGES)[number]),
  );
  return (
    <p className="small muted">
      Judged {formatDate(r.finishedAt)} in {formatMs(r.durationMs)}
      {timings.length > 0 &&
        ` (${timings.map(([stage, ms]) => `${stage} ${formatMs(ms)}`).join(', ')})`}
      .
    </p>
  );
}
