-- AlterTable
ALTER TABLE "merchants" ADD COLUMN     "timezone" TEXT NOT NULL DEFAULT 'UTC';
