CREATE TABLE "list_counts" (
	"agent_id" text NOT NULL,
	"list" text NOT NULL,
	"items" bigint NOT NULL,
	CONSTRAINT "list_counts_agent_id_list_pk" PRIMARY KEY("agent_id","list")
);
--> statement-breakpoint
-- Kept totals of the lists that grow without bound (src/db/counts.ts), from the rows already there.
INSERT INTO list_counts (agent_id, list, items) SELECT agent_id, 'webhook_deliveries', COUNT(*) FROM webhook_deliveries GROUP BY agent_id;--> statement-breakpoint
INSERT INTO list_counts (agent_id, list, items) SELECT agent_id, 'x402_payments', COUNT(*) FROM x402_payments GROUP BY agent_id;
