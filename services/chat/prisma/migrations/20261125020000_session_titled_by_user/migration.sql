-- AlterTable
ALTER TABLE "chat_session" ADD COLUMN     "titled_by_user" BOOLEAN NOT NULL DEFAULT false;
