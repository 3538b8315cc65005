CREATE TABLE "x402_gas_days" (
	"day" bigint PRIMARY KEY NOT NULL,
	"claims" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "x402_discovered_resources" ADD COLUMN "expires_at" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "x402_sales_created_idx" ON "x402_sales" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "x402_sales_resource_idx" ON "x402_sales" USING btree ("agent_id","resource");--> statement-breakpoint
CREATE INDEX "x402_discovered_resources_expires_idx" ON "x402_discovered_resources" USING btree ("expires_at");