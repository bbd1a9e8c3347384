-- A judging waiting for the host lock, and one not judged because the submission failed elsewhere.
ALTER TYPE "JudgingStatus" ADD VALUE 'WAITING';
ALTER TYPE "JudgingStatus" ADD VALUE 'CANCELLED';
