-- The organizer's switch for the profile stage's cachegrind part (on, as before, unless turned off).
ALTER TABLE "Challenge" ADD COLUMN "cachegrind" BOOLEAN NOT NULL DEFAULT true;
