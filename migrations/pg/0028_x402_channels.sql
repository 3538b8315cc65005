CREATE TABLE "x402_channels" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"url" text NOT NULL,
	"network" text NOT NULL,
	"pay_to" text NOT NULL,
	"receiver_authorizer" text NOT NULL,
	"asset" text NOT NULL,
	"asset_name" text NOT NULL,
	"asset_version" text NOT NULL,
	"withdraw_delay" bigint NOT NULL,
	"salt" text NOT NULL,
	"channel_id" text NOT NULL,
	"currency" text NOT NULL,
	"deposit" bigint NOT NULL,
	"deposit_nonce" text NOT NULL,
	"deposit_valid_before" bigint NOT NULL,
	"signed" bigint NOT NULL,
	"charged" bigint NOT NULL,
	"status" text NOT NULL,
	"withdrawable_at" bigint,
	"refunded" bigint,
	"transaction" text,
	"key_id" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"closed_at" bigint
);
--> statement-breakpoint
ALTER TABLE "x402_channels" ADD CONSTRAINT "x402_channels_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "x402_channels_channel_id_idx" ON "x402_channels" USING btree ("channel_id");--> statement-breakpoint
CREATE INDEX "x402_channels_agent_idx" ON "x402_channels" USING btree ("agent_id","status","created_at");