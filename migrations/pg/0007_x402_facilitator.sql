CREATE TABLE "x402_discovered_resources" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"resource" text NOT NULL,
	"entry" text NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "x402_sales" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"payer" text NOT NULL,
	"nonce" text NOT NULL,
	"pay_to" text NOT NULL,
	"amount" bigint NOT NULL,
	"resource" text,
	"status" text NOT NULL,
	"tx_hash" text,
	"gas" bigint NOT NULL,
	"error" text,
	"credited_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "x402_discovered_resources" ADD CONSTRAINT "x402_discovered_resources_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "x402_sales" ADD CONSTRAINT "x402_sales_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "x402_discovered_resources_resource_idx" ON "x402_discovered_resources" USING btree ("agent_id","resource");--> statement-breakpoint
CREATE INDEX "x402_discovered_resources_created_idx" ON "x402_discovered_resources" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "x402_sales_authorization_idx" ON "x402_sales" USING btree ("payer","nonce");--> statement-breakpoint
CREATE INDEX "x402_sales_agent_idx" ON "x402_sales" USING btree ("agent_id","created_at");