-- The organizer's choice to judge every target of a submission even after one failed for the contestant.
ALTER TABLE "Challenge" ADD COLUMN "judgeAllTargets" BOOLEAN NOT NULL DEFAULT false;
