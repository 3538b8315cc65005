-- Two blocks of one pair at once could each insert a row: the earliest stays (hand-written: drizzle-kit writes schema, not data).
DELETE FROM blocks later USING blocks earlier WHERE earlier.blocker_id = later.blocker_id AND earlier.blocked_id = later.blocked_id AND (earlier.created_at, earlier.ctid) < (later.created_at, later.ctid);--> statement-breakpoint
DROP INDEX "blocks_pair_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "blocks_pair_idx" ON "blocks" USING btree ("blocker_id","blocked_id");
