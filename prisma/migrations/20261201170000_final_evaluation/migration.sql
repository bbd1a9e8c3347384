-- CreateEnum
CREATE TYPE "FinalStatus" AS ENUM ('RUNNING', 'DONE', 'FAILED', 'CANCELLED');

-- CreateTable
CREATE TABLE "FinalSelection" (
    "id" TEXT NOT NULL,
    "challengeId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "submissionId" TEXT NOT NULL,
    "selectedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "FinalSelection_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "FinalEvaluation" (
    "id" TEXT NOT NULL,
    "challengeId" TEXT NOT NULL,
    "challengeVersionId" TEXT NOT NULL,
    "status" "FinalStatus" NOT NULL DEFAULT 'RUNNING',
    "seed" TEXT NOT NULL,
    "keptProvisionalSeed" BOOLEAN NOT NULL DEFAULT false,
    "benchmarkBytes" INTEGER NOT NULL,
    "rounds" INTEGER NOT NULL,
    "spreadAcrossHosts" BOOLEAN NOT NULL DEFAULT false,
    "errorRate" DOUBLE PRECISION NOT NULL,
    "ranking" JSONB,
    "message" TEXT,
    "startedById" TEXT,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),
    "publishedAt" TIMESTAMP(3),

    CONSTRAINT "FinalEvaluation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "FinalEntrant" (
    "id" TEXT NOT NULL,
    "evaluationId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "submissionId" TEXT NOT NULL,
    "selectedExplicitly" BOOLEAN NOT NULL,
    "provisionalScore" DOUBLE PRECISION NOT NULL,
    "excludedReason" TEXT,
    "place" INTEGER,
    "score" DOUBLE PRECISION,

    CONSTRAINT "FinalEntrant_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "FinalSession" (
    "id" TEXT NOT NULL,
    "evaluationId" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "status" "JudgingStatus" NOT NULL DEFAULT 'QUEUED',
    "parts" INTEGER NOT NULL DEFAULT 1,
    "roundsPlanned" INTEGER NOT NULL,
    "roundsDone" INTEGER NOT NULL DEFAULT 0,
    "results" JSONB NOT NULL DEFAULT '[]',
    "message" TEXT,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "FinalSession_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "JudgingRepeat" (
    "id" TEXT NOT NULL,
    "submissionId" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "seriesId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "status" "JudgingStatus" NOT NULL DEFAULT 'QUEUED',
    "verdict" "Verdict",
    "message" TEXT,
    "speedup" DOUBLE PRECISION,
    "ciLow" DOUBLE PRECISION,
    "ciHigh" DOUBLE PRECISION,
    "result" JSONB,
    "requestedById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "JudgingRepeat_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "FinalSelection_submissionId_key" ON "FinalSelection"("submissionId");

-- CreateIndex
CREATE UNIQUE INDEX "FinalSelection_challengeId_userId_key" ON "FinalSelection"("challengeId", "userId");

-- CreateIndex
CREATE INDEX "FinalEvaluation_challengeId_startedAt_idx" ON "FinalEvaluation"("challengeId", "startedAt" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "FinalEntrant_evaluationId_userId_key" ON "FinalEntrant"("evaluationId", "userId");

-- CreateIndex
CREATE UNIQUE INDEX "FinalSession_evaluationId_targetId_key" ON "FinalSession"("evaluationId", "targetId");

-- CreateIndex
CREATE INDEX "JudgingRepeat_submissionId_createdAt_idx" ON "JudgingRepeat"("submissionId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "JudgingRepeat_seriesId_index_key" ON "JudgingRepeat"("seriesId", "index");

-- AddForeignKey
ALTER TABLE "FinalSelection" ADD CONSTRAINT "FinalSelection_challengeId_fkey" FOREIGN KEY ("challengeId") REFERENCES "Challenge"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FinalSelection" ADD CONSTRAINT "FinalSelection_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FinalSelection" ADD CONSTRAINT "FinalSelection_submissionId_fkey" FOREIGN KEY ("submissionId") REFERENCES "Submission"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FinalEvaluation" ADD CONSTRAINT "FinalEvaluation_challengeId_fkey" FOREIGN KEY ("challengeId") REFERENCES "Challenge"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FinalEntrant" ADD CONSTRAINT "FinalEntrant_evaluationId_fkey" FOREIGN KEY ("evaluationId") REFERENCES "FinalEvaluation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FinalEntrant" ADD CONSTRAINT "FinalEntrant_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FinalEntrant" ADD CONSTRAINT "FinalEntrant_submissionId_fkey" FOREIGN KEY ("submissionId") REFERENCES "Submission"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FinalSession" ADD CONSTRAINT "FinalSession_evaluationId_fkey" FOREIGN KEY ("evaluationId") REFERENCES "FinalEvaluation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FinalSession" ADD CONSTRAINT "FinalSession_targetId_fkey" FOREIGN KEY ("targetId") REFERENCES "Target"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "JudgingRepeat" ADD CONSTRAINT "JudgingRepeat_submissionId_fkey" FOREIGN KEY ("submissionId") REFERENCES "Submission"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "JudgingRepeat" ADD CONSTRAINT "JudgingRepeat_targetId_fkey" FOREIGN KEY ("targetId") REFERENCES "Target"("id") ON DELETE RESTRICT ON UPDATE CASCADE;


-- AlterTable
ALTER TABLE "FinalSession" ADD COLUMN     "rounds" JSONB NOT NULL DEFAULT '[]';

