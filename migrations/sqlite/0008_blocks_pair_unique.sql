-- Two blocks of one pair at once could each insert a row: the earliest stays (hand-written: drizzle-kit writes schema, not data).
DELETE FROM blocks WHERE EXISTS (SELECT 1 FROM blocks earlier WHERE earlier.blocker_id = blocks.blocker_id AND earlier.blocked_id = blocks.blocked_id AND (earlier.created_at, earlier.rowid) < (blocks.created_at, blocks.rowid));--> statement-breakpoint
DROP INDEX `blocks_pair_idx`;--> statement-breakpoint
CREATE UNIQUE INDEX `blocks_pair_idx` ON `blocks` (`blocker_id`,`blocked_id`);
