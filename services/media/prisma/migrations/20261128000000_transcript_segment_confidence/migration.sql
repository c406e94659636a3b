-- Each transcript segment keeps the recogniser's confidence (0-1), which study's generation reads; NULL when the
-- engine gave none (and for segments transcribed before this column existed).

-- AlterTable
ALTER TABLE "transcript_segment" ADD COLUMN     "confidence" DOUBLE PRECISION;
