-- AlterTable
ALTER TABLE "flashcard_set" ADD COLUMN     "document_ids" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "flashcard" ADD COLUMN     "source_document_id" TEXT,
ADD COLUMN     "source_page" INTEGER;

-- AlterTable
ALTER TABLE "quiz" ADD COLUMN     "document_ids" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "question" ADD COLUMN     "source_document_id" TEXT,
ADD COLUMN     "source_page" INTEGER;

-- AlterTable
ALTER TABLE "study_guide" ADD COLUMN     "document_ids" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "study_section" ADD COLUMN     "source_document_id" TEXT,
ADD COLUMN     "source_page" INTEGER;

-- CreateIndex
CREATE INDEX "flashcard_set_document_ids_idx" ON "flashcard_set" USING GIN ("document_ids");

-- CreateIndex
CREATE INDEX "quiz_document_ids_idx" ON "quiz" USING GIN ("document_ids");

-- CreateIndex
CREATE INDEX "study_guide_document_ids_idx" ON "study_guide" USING GIN ("document_ids");
