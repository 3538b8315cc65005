DROP INDEX "x402_sales_payment_id_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "x402_sales_payment_id_idx" ON "x402_sales" USING btree ("agent_id","payer","payment_id");