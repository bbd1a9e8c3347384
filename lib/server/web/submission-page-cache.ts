// Settled submission pages in the production server's response cache (lib/server/web/response-cache.ts).
// A submission page is rendered per viewer (their own page has the comparison choices and the final
// choice; an organizer's has the plausibility line), so a copy is kept per viewer — served only to
// requests with exactly the cookies it was rendered with — and only while every row the page shows
// that viewer is unchanged: its key holds the version of those rows (lib/server/db/submission-page-
// version.ts, one prepared statement, which also finds the viewer from the session's token). A write the page shows (a
// rejudge, a disqualification, a new submission of the viewer's, a final choice, the contest
// closing) reaches the next request; what changes with time alone (the deadline passing) reaches it
// within SUBMISSION_PAGE_MAX_AGE_S and one render. A page still being judged is never cached: its
// progress is live. The render carries the visitor's cookies and nothing else of theirs, so Next
// checks the session itself, as for any request.
import { createHash } from 'node:crypto';
import type { SubmissionPageVersion } from '../db/submissions/submission-page-version';
import type { CacheAddress, CachePolicy } from './response-cache';
import { submissionIdSchema } from './submission-id';

/**
 * A copy this old is rendered again in the background, whatever the rows' version says (it is
 * served meanwhile); one twice as old is never served.
 */
export const SUBMISSION_PAGE_MAX_AGE_S = 3;

export interface SubmissionPageCacheDeps {
  /** The name of Better Auth's session-token cookie (its context's authCookies.sessionToken). */
  sessionCookieName: string;
  version(options: {
    submissionId: string;
    sessionToken: string | null;
  }): Promise<SubmissionPageVersion | null>;
}

/** The submission id of a submission page's path (/submissions/<id>), or null for any other path. */
export function submissionPageId(path: string): string | null {
  const m = /^\/submissions\/([^/]+)$/.exec(path);
  const parsed = submissionIdSchema.safeParse(m?.[1]);
  return parsed.success ? parsed.data : null;
}

/** The session token of a signed session cookie (`<token>.<signature>`), or null. */
export function sessionTokenOf(cookieHeader: string | undefined, name: string): string | null {
  for (const part of (cookieHeader ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    let value: string;
    try {
      value = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      return null;
    }
    const dot = value.lastIndexOf('.');
    return dot > 0 ? value.slice(0, dot) : null;
  }
  return null;
}

export function submissionPagePolicy(deps: SubmissionPageCacheDeps): CachePolicy {
  return {
    name: 'submission page',
    handles: (path) => submissionPageId(path) !== null,
    async address(req, path): Promise<CacheAddress | null> {
      const submissionId = submissionPageId(path);
      if (!submissionId) return null;
      const cookie = req.headers.cookie;
      const sessionToken = sessionTokenOf(cookie, deps.sessionCookieName);
      const page = await deps.version({ submissionId, sessionToken });
      if (!page?.settled) return null;
      // The copy is served only to requests with exactly the cookies it was rendered with.
      const cookies = cookie ? createHash('sha256').update(cookie).digest('base64url') : '';
      return {
        key: [path, cookies, page.version].join('\u0000'),
        forward: cookie ? { cookie } : {},
        freshS: SUBMISSION_PAGE_MAX_AGE_S,
        maxAgeS: 2 * SUBMISSION_PAGE_MAX_AGE_S,
      };
    },
  };
}
