-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "transcription_status" AS ENUM ('PENDING', 'PROCESSING', 'COMPLETED', 'FAILED');

-- CreateEnum
CREATE TYPE "import_job_status" AS ENUM ('PENDING', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'CANCELLED');

-- CreateEnum
CREATE TYPE "import_type" AS ENUM ('VIDEO_IMPORT', 'AUDIO_IMPORT', 'AUDIO_UPLOAD');

-- CreateEnum
CREATE TYPE "job_source" AS ENUM ('VIDEO', 'UPLOAD');

-- CreateEnum
CREATE TYPE "progress_stage" AS ENUM ('SETUP', 'TRANSCRIPTION', 'CONTENT_PROCESSING', 'NOTE_CREATION');

-- CreateTable
CREATE TABLE "note" (
    "id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "course_id" UUID NOT NULL,
    "title" VARCHAR(255) NOT NULL,
    "content" TEXT,
    "summary" TEXT,
    "audio_url" VARCHAR(2048),
    "audio_storage_key" VARCHAR(1024),
    "transcription_status" "transcription_status" NOT NULL DEFAULT 'PENDING',
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "user_notes" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "note_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "transcript_segment" (
    "id" UUID NOT NULL,
    "note_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "text" TEXT NOT NULL,
    "start_time" DOUBLE PRECISION NOT NULL,
    "end_time" DOUBLE PRECISION NOT NULL,
    "speaker" VARCHAR(100),

    CONSTRAINT "transcript_segment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "attachment" (
    "id" UUID NOT NULL,
    "note_id" UUID NOT NULL,
    "storage_key" VARCHAR(1024) NOT NULL,
    "file_url" VARCHAR(2048) NOT NULL,
    "file_name" VARCHAR(255) NOT NULL,
    "file_size" INTEGER NOT NULL,
    "mime_type" VARCHAR(255) NOT NULL,
    "timestamp" DOUBLE PRECISION NOT NULL,
    "description" VARCHAR(1000),
    "uploaded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "attachment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "import_job" (
    "id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "note_id" UUID,
    "type" "import_type" NOT NULL,
    "source" "job_source" NOT NULL,
    "title" VARCHAR(255) NOT NULL,
    "status" "import_job_status" NOT NULL DEFAULT 'PENDING',
    "progress" INTEGER NOT NULL DEFAULT 0,
    "stage" "progress_stage",
    "error_message" VARCHAR(1000),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "version" INTEGER NOT NULL DEFAULT 0,
    "source_url" VARCHAR(2048),
    "storage_key" VARCHAR(1024),
    "speed_multiplier" SMALLINT NOT NULL DEFAULT 2,
    "mime_type" VARCHAR(255),
    "original_filename" VARCHAR(255),
    "file_size" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "started_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "import_job_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "note_user_id_created_at_idx" ON "note"("user_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "note_user_id_course_id_created_at_idx" ON "note"("user_id", "course_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "note_course_id_idx" ON "note"("course_id");

-- CreateIndex
CREATE UNIQUE INDEX "transcript_segment_note_id_position_key" ON "transcript_segment"("note_id", "position");

-- CreateIndex
CREATE INDEX "attachment_note_id_uploaded_at_idx" ON "attachment"("note_id", "uploaded_at");

-- CreateIndex
CREATE INDEX "import_job_user_id_created_at_idx" ON "import_job"("user_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "import_job_user_id_updated_at_idx" ON "import_job"("user_id", "updated_at" DESC);

-- CreateIndex
CREATE INDEX "import_job_user_id_completed_at_idx" ON "import_job"("user_id", "completed_at" DESC);

-- CreateIndex
CREATE INDEX "import_job_user_id_status_idx" ON "import_job"("user_id", "status");

-- CreateIndex
CREATE INDEX "import_job_note_id_idx" ON "import_job"("note_id");

-- AddForeignKey
ALTER TABLE "transcript_segment" ADD CONSTRAINT "transcript_segment_note_id_fkey" FOREIGN KEY ("note_id") REFERENCES "note"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "attachment" ADD CONSTRAINT "attachment_note_id_fkey" FOREIGN KEY ("note_id") REFERENCES "note"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "import_job" ADD CONSTRAINT "import_job_note_id_fkey" FOREIGN KEY ("note_id") REFERENCES "note"("id") ON DELETE SET NULL ON UPDATE CASCADE;
