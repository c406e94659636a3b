-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "difficulty" AS ENUM ('EASY', 'MEDIUM', 'HARD');

-- CreateEnum
CREATE TYPE "card_state" AS ENUM ('NEW', 'LEARNING', 'REVIEW', 'RELEARNING');

-- CreateEnum
CREATE TYPE "review_rating" AS ENUM ('AGAIN', 'HARD', 'GOOD', 'EASY');

-- CreateTable
CREATE TABLE "flashcard_set" (
    "id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "course_id" TEXT NOT NULL,
    "note_id" TEXT,
    "note_title" TEXT,
    "note_ids" TEXT[],
    "content_hash" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "difficulty" "difficulty" NOT NULL,
    "generator" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "flashcard_set_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "flashcard" (
    "id" UUID NOT NULL,
    "flashcard_set_id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "front" TEXT NOT NULL,
    "back" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "source_note_id" TEXT,
    "source_start_time" DOUBLE PRECISION,
    "state" "card_state" NOT NULL DEFAULT 'NEW',
    "due" TIMESTAMPTZ(3) NOT NULL,
    "stability" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "difficulty" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "elapsed_days" INTEGER NOT NULL DEFAULT 0,
    "scheduled_days" INTEGER NOT NULL DEFAULT 0,
    "learning_steps" INTEGER NOT NULL DEFAULT 0,
    "reps" INTEGER NOT NULL DEFAULT 0,
    "lapses" INTEGER NOT NULL DEFAULT 0,
    "last_review" TIMESTAMPTZ(3),

    CONSTRAINT "flashcard_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "card_review" (
    "id" UUID NOT NULL,
    "flashcard_id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "rating" "review_rating" NOT NULL,
    "state" "card_state" NOT NULL,
    "due" TIMESTAMPTZ(3) NOT NULL,
    "stability" DOUBLE PRECISION NOT NULL,
    "difficulty" DOUBLE PRECISION NOT NULL,
    "elapsed_days" INTEGER NOT NULL,
    "scheduled_days" INTEGER NOT NULL,
    "reviewed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "card_review_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "quiz" (
    "id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "course_id" TEXT NOT NULL,
    "note_id" TEXT,
    "note_title" TEXT,
    "note_ids" TEXT[],
    "content_hash" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "difficulty" "difficulty" NOT NULL,
    "generator" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "quiz_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "question" (
    "id" UUID NOT NULL,
    "quiz_id" UUID NOT NULL,
    "question" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "options" TEXT[],
    "correct_answer" TEXT NOT NULL,
    "explanation" TEXT,
    "position" INTEGER NOT NULL,
    "source_note_id" TEXT,
    "source_start_time" DOUBLE PRECISION,

    CONSTRAINT "question_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "quiz_attempt" (
    "id" UUID NOT NULL,
    "quiz_id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "total_questions" INTEGER NOT NULL,
    "correct_answers" INTEGER NOT NULL,
    "percentage" DOUBLE PRECISION NOT NULL,
    "results" JSONB NOT NULL,
    "submitted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "quiz_attempt_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "study_guide" (
    "id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "course_id" TEXT NOT NULL,
    "note_id" TEXT,
    "note_title" TEXT,
    "note_ids" TEXT[],
    "content_hash" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "difficulty" "difficulty" NOT NULL,
    "generator" TEXT NOT NULL,
    "markdown" TEXT NOT NULL,
    "overview" TEXT NOT NULL,
    "key_terms" TEXT[],
    "learning_objectives" TEXT[],
    "study_tips" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "study_guide_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "study_section" (
    "id" UUID NOT NULL,
    "study_guide_id" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "subsections" JSONB NOT NULL,
    "source_note_id" TEXT,
    "source_start_time" DOUBLE PRECISION,

    CONSTRAINT "study_section_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "flashcard_set_user_id_created_at_idx" ON "flashcard_set"("user_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "flashcard_set_note_ids_idx" ON "flashcard_set" USING GIN ("note_ids");

-- CreateIndex
CREATE UNIQUE INDEX "flashcard_set_user_id_course_id_content_hash_key" ON "flashcard_set"("user_id", "course_id", "content_hash");

-- CreateIndex
CREATE INDEX "flashcard_flashcard_set_id_position_idx" ON "flashcard"("flashcard_set_id", "position");

-- CreateIndex
CREATE INDEX "flashcard_user_id_due_idx" ON "flashcard"("user_id", "due");

-- CreateIndex
CREATE INDEX "card_review_flashcard_id_reviewed_at_idx" ON "card_review"("flashcard_id", "reviewed_at");

-- CreateIndex
CREATE INDEX "quiz_user_id_created_at_idx" ON "quiz"("user_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "quiz_note_ids_idx" ON "quiz" USING GIN ("note_ids");

-- CreateIndex
CREATE UNIQUE INDEX "quiz_user_id_course_id_content_hash_key" ON "quiz"("user_id", "course_id", "content_hash");

-- CreateIndex
CREATE INDEX "question_quiz_id_position_idx" ON "question"("quiz_id", "position");

-- CreateIndex
CREATE INDEX "quiz_attempt_quiz_id_submitted_at_idx" ON "quiz_attempt"("quiz_id", "submitted_at" DESC);

-- CreateIndex
CREATE INDEX "study_guide_user_id_created_at_idx" ON "study_guide"("user_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "study_guide_note_ids_idx" ON "study_guide" USING GIN ("note_ids");

-- CreateIndex
CREATE UNIQUE INDEX "study_guide_user_id_course_id_content_hash_key" ON "study_guide"("user_id", "course_id", "content_hash");

-- CreateIndex
CREATE INDEX "study_section_study_guide_id_position_idx" ON "study_section"("study_guide_id", "position");

-- AddForeignKey
ALTER TABLE "flashcard" ADD CONSTRAINT "flashcard_flashcard_set_id_fkey" FOREIGN KEY ("flashcard_set_id") REFERENCES "flashcard_set"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "card_review" ADD CONSTRAINT "card_review_flashcard_id_fkey" FOREIGN KEY ("flashcard_id") REFERENCES "flashcard"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "question" ADD CONSTRAINT "question_quiz_id_fkey" FOREIGN KEY ("quiz_id") REFERENCES "quiz"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "quiz_attempt" ADD CONSTRAINT "quiz_attempt_quiz_id_fkey" FOREIGN KEY ("quiz_id") REFERENCES "quiz"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "study_section" ADD CONSTRAINT "study_section_study_guide_id_fkey" FOREIGN KEY ("study_guide_id") REFERENCES "study_guide"("id") ON DELETE CASCADE ON UPDATE CASCADE;
