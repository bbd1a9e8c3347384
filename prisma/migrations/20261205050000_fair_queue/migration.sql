-- The fair queue: a judging's BullMQ priority, decided when its submission is stored (1 + the
-- contestant's submissions of the challenge in progress or judged recently), kept so a re-queue
-- (the reconciler, a rejudge of one submission) and the queue position follow the same order.
ALTER TABLE "Judging" ADD COLUMN "queuePriority" INTEGER NOT NULL DEFAULT 0;

CREATE INDEX "Judging_status_queuePriority_queuedAt_idx" ON "Judging"("status", "queuePriority", "queuedAt");

-- The organizer's setting: a contestant's newer submission supersedes their own older one while it
-- still waits in the queue (settled as superseded, never lost).
ALTER TABLE "Challenge" ADD COLUMN "supersedeQueued" BOOLEAN NOT NULL DEFAULT false;

-- The newer submission that superseded this one while it was queued (that setting on).
ALTER TABLE "Submission" ADD COLUMN "supersededById" TEXT;
