-- The organizer console lists every submission newest first, paged by (createdAt, id).
-- CreateIndex
CREATE INDEX "Submission_createdAt_id_idx" ON "Submission"("createdAt" DESC, "id" DESC);
