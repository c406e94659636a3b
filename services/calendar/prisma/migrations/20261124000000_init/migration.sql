-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "EventType" AS ENUM ('CLASS', 'DEADLINE', 'EXAM', 'MEETING', 'STUDY_SESSION');

-- CreateEnum
CREATE TYPE "EventPriority" AS ENUM ('LOW', 'MEDIUM', 'HIGH');

-- CreateTable
CREATE TABLE "calendar_event" (
    "id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "title" VARCHAR(255) NOT NULL,
    "description" VARCHAR(1000),
    "start_date" TIMESTAMPTZ(3) NOT NULL,
    "end_date" TIMESTAMPTZ(3),
    "event_type" "EventType" NOT NULL,
    "location" VARCHAR(255),
    "priority" "EventPriority" NOT NULL DEFAULT 'MEDIUM',
    "color" VARCHAR(50) NOT NULL,
    "course_id" UUID,
    "google_event_id" VARCHAR(1024),
    "google_calendar_id" VARCHAR(1024),
    "reminder_minutes" INTEGER NOT NULL DEFAULT 30,
    "all_day_date" VARCHAR(10),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "calendar_event_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "calendar_event_user_id_start_date_id_idx" ON "calendar_event"("user_id", "start_date", "id");

-- CreateIndex
CREATE INDEX "calendar_event_user_id_course_id_idx" ON "calendar_event"("user_id", "course_id");
