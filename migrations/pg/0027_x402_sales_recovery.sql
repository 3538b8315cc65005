ALTER TABLE "x402_sales" ADD COLUMN "scheme" text DEFAULT 'exact' NOT NULL;--> statement-breakpoint
ALTER TABLE "x402_sales" ADD COLUMN "raw_tx" text;--> statement-breakpoint
ALTER TABLE "x402_sales" ADD COLUMN "treasury_nonce" bigint;--> statement-breakpoint
ALTER TABLE "x402_sales" ADD COLUMN "payment_id" text;--> statement-breakpoint
CREATE UNIQUE INDEX "x402_sales_payment_id_idx" ON "x402_sales" USING btree ("agent_id","payment_id");--> statement-breakpoint
CREATE INDEX "x402_sales_status_idx" ON "x402_sales" USING btree ("status");