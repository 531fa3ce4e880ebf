-- CreateTable
CREATE TABLE "replay_jobs" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'queued',
    "input" JSONB NOT NULL,
    "period_start" TIMESTAMPTZ(3) NOT NULL,
    "period_end" TIMESTAMPTZ(3) NOT NULL,
    "orders_read" INTEGER NOT NULL DEFAULT 0,
    "read_up_to" TIMESTAMPTZ(3),
    "report" JSONB,
    "error" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "heartbeat_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "replay_jobs_pkey" PRIMARY KEY ("merchant_id","id")
);

-- CreateIndex
CREATE INDEX "replay_jobs_created_at_idx" ON "replay_jobs"("created_at");

-- AddForeignKey
ALTER TABLE "replay_jobs" ADD CONSTRAINT "replay_jobs_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- the states a job goes through (a text column, not an enum: nothing to cast on a cluster)
ALTER TABLE "replay_jobs" ADD CONSTRAINT "replay_jobs_state_check" CHECK ("state" IN ('queued', 'running', 'done', 'failed', 'cancelled'));
