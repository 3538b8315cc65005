CREATE TABLE `mail_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`event` text NOT NULL,
	`recipient` text NOT NULL,
	`subject` text NOT NULL,
	`body_text` text NOT NULL,
	`body_html` text,
	`message_id` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`claimed_at` integer,
	`sent_at` integer,
	`delivered_to` text,
	`error` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mail_outbox_event_recipient_idx` ON `mail_outbox` (`event`,`recipient`);--> statement-breakpoint
CREATE INDEX `mail_outbox_due_idx` ON `mail_outbox` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `mail_outbox_created_idx` ON `mail_outbox` (`created_at`);--> statement-breakpoint
CREATE INDEX `mail_outbox_recipient_idx` ON `mail_outbox` (`recipient`,`created_at`);