-- The benchmark definition is contest state: written once, read by every process that creates jobs.
ALTER TABLE "Challenge" ADD COLUMN     "benchmarkDevelopment" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "benchmarkGenerator" INTEGER,
ADD COLUMN     "benchmarkMaxPairs" INTEGER,
ADD COLUMN     "benchmarkRevision" INTEGER NOT NULL DEFAULT 0;

-- A new leaderboard from this moment (a changed definition without a rejudge).
ALTER TABLE "Challenge" ADD COLUMN     "boardSince" TIMESTAMP(3);
