// What a contestant is told for an empty patch — the web form, the API, `perfjudge submit` and intake
// alike. The likeliest cause: `git diff` in a kit nobody edited yet (its SOLUTION branch starts as a
// copy of the baseline), so say that rather than only "empty".
export const EMPTY_PATCH_MESSAGE =
  "the patch is empty: nothing changed, so the solution is still the template's copy of the " +
  'baseline (edit it, then make the patch with git diff)';
