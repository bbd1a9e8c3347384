-- Each leaderboard row carries its submission's per-target figures, so the leaderboard and its
-- exports read no judging result (lib/db/refresh-leaderboard-entry.ts keeps them current).
ALTER TABLE "LeaderboardEntry" ADD COLUMN "cells" JSONB NOT NULL DEFAULT '[]';

UPDATE "LeaderboardEntry" le SET "cells" = COALESCE((
  SELECT jsonb_agg(jsonb_build_object(
           'target', t.name,
           'solutionMs', (j.result #>> '{stages,measure,solution,medianMs}')::float8,
           'baselineMs', (j.result #>> '{stages,measure,baseline,medianMs}')::float8,
           'speedup', j.speedup, 'ciLow', j."ciLow", 'ciHigh', j."ciHigh",
           'emulated', j.emulated, 'devMode', j."devMode") ORDER BY t.name)
  FROM "Judging" j JOIN "Target" t ON t.id = j."targetId"
  WHERE j."submissionId" = le."submissionId"
), '[]'::jsonb);
