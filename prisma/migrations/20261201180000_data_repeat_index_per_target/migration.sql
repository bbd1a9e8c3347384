-- A "rejudge N times" series spans the submission's targets: its judgings are numbered 1 … N on
-- each target, so the index is unique per (series, target), not per series.
DROP INDEX "JudgingRepeat_seriesId_index_key";

CREATE UNIQUE INDEX "JudgingRepeat_seriesId_targetId_index_key" ON "JudgingRepeat"("seriesId", "targetId", "index");
