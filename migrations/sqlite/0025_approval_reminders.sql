ALTER TABLE `approvals` ADD `remind_at` integer;--> statement-breakpoint
CREATE INDEX `approvals_remind_idx` ON `approvals` (`remind_at`);