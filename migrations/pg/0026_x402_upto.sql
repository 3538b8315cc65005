ALTER TABLE "x402_payments" ADD COLUMN "scheme" text DEFAULT 'exact' NOT NULL;--> statement-breakpoint
ALTER TABLE "x402_payments" ADD COLUMN "settled_amount" bigint;--> statement-breakpoint
ALTER TABLE "x402_payments" ADD COLUMN "hold_id" bigint;