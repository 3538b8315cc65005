CREATE TABLE "accounts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"agent_id" text,
	"kind" text NOT NULL,
	"currency" text NOT NULL,
	"balance" bigint DEFAULT 0 NOT NULL,
	"posting_count" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agents" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"owner_name" text NOT NULL,
	"owner_email" text NOT NULL,
	"description" text,
	"capabilities" text NOT NULL,
	"webhook_url" text,
	"webhook_secret" text,
	"api_key_hash" text NOT NULL,
	"owner_key_hash" text NOT NULL,
	"score" bigint DEFAULT 0 NOT NULL,
	"rate_limit" bigint,
	"created_at" bigint NOT NULL,
	CONSTRAINT "agents_api_key_hash_unique" UNIQUE("api_key_hash"),
	CONSTRAINT "agents_owner_key_hash_unique" UNIQUE("owner_key_hash")
);
--> statement-breakpoint
CREATE TABLE "bets" (
	"id" text PRIMARY KEY NOT NULL,
	"creator_id" text NOT NULL,
	"acceptor_id" text,
	"description" text NOT NULL,
	"condition" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"oracle_type" text NOT NULL,
	"oracle" text,
	"status" text NOT NULL,
	"creator_outcome" text,
	"acceptor_outcome" text,
	"outcome" text,
	"winner_id" text,
	"resolved_by" text,
	"expires_at" bigint NOT NULL,
	"matched_at" bigint,
	"closed_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "blocks" (
	"blocker_id" text NOT NULL,
	"blocked_id" text NOT NULL,
	"reason" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bookings" (
	"id" text PRIMARY KEY NOT NULL,
	"quote_id" text NOT NULL,
	"service_id" text NOT NULL,
	"provider_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"rail" text NOT NULL,
	"status" text NOT NULL,
	"payment_id" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chain_deposits" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"tx_hash" text NOT NULL,
	"log_index" bigint NOT NULL,
	"block_number" bigint NOT NULL,
	"from_address" text NOT NULL,
	"amount" bigint NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "console_sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"csrf_token" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contracts" (
	"id" text PRIMARY KEY NOT NULL,
	"creator_id" text NOT NULL,
	"counterparty_id" text NOT NULL,
	"title" text NOT NULL,
	"description" text NOT NULL,
	"escrow_amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"conditions" text NOT NULL,
	"deadline_days" bigint NOT NULL,
	"deadline_at" bigint NOT NULL,
	"status" text NOT NULL,
	"signed_at" bigint,
	"closed_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deposit_addresses" (
	"agent_id" text PRIMARY KEY NOT NULL,
	"address_index" bigint NOT NULL,
	"address" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"agent_id" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"status" bigint NOT NULL,
	"body" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "idempotency_keys_agent_id_key_pk" PRIMARY KEY("agent_id","key")
);
--> statement-breakpoint
CREATE TABLE "journal_entries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"reference_type" text NOT NULL,
	"reference_id" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "loan_offers" (
	"id" text PRIMARY KEY NOT NULL,
	"lender_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"interest_bps" bigint NOT NULL,
	"duration_days" bigint NOT NULL,
	"collateral_bps" bigint NOT NULL,
	"status" text NOT NULL,
	"expires_at" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "loans" (
	"id" text PRIMARY KEY NOT NULL,
	"offer_id" text NOT NULL,
	"lender_id" text NOT NULL,
	"borrower_id" text NOT NULL,
	"principal" bigint NOT NULL,
	"currency" text NOT NULL,
	"interest_bps" bigint NOT NULL,
	"amount_due" bigint NOT NULL,
	"amount_repaid" bigint NOT NULL,
	"collateral" bigint NOT NULL,
	"due_at" bigint NOT NULL,
	"status" text NOT NULL,
	"created_at" bigint NOT NULL,
	"closed_at" bigint
);
--> statement-breakpoint
CREATE TABLE "messages" (
	"id" text PRIMARY KEY NOT NULL,
	"sender_id" text,
	"recipient_id" text NOT NULL,
	"type" text NOT NULL,
	"subject" text NOT NULL,
	"body" text NOT NULL,
	"metadata" text,
	"read" bigint DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "negotiations" (
	"id" text PRIMARY KEY NOT NULL,
	"initiator_id" text NOT NULL,
	"counterparty_id" text NOT NULL,
	"pair_key" text NOT NULL,
	"subject" text NOT NULL,
	"status" text NOT NULL,
	"current_offer" text NOT NULL,
	"offer_by" text NOT NULL,
	"history" text NOT NULL,
	"related_entity_type" text,
	"related_entity_id" text,
	"expires_at" bigint NOT NULL,
	"accepted_offer_hash" text,
	"accepted_by" text,
	"accepted_at" bigint,
	"approved_by" text,
	"approved_at" bigint,
	"last_counter_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments" (
	"id" text PRIMARY KEY NOT NULL,
	"from_agent_id" text NOT NULL,
	"to_agent_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"reason" text,
	"metadata" text,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "postings" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"entry_id" bigint NOT NULL,
	"account_id" bigint NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"history_type" text NOT NULL,
	"counterparty_id" text,
	"history_agent_id" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "quotes" (
	"id" text PRIMARY KEY NOT NULL,
	"service_id" text NOT NULL,
	"provider_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"units" text NOT NULL,
	"breakdown" text NOT NULL,
	"expires_at" bigint NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "score_events" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"reason" text NOT NULL,
	"change" bigint NOT NULL,
	"reference_type" text,
	"reference_id" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "services" (
	"id" text PRIMARY KEY NOT NULL,
	"provider_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"category" text NOT NULL,
	"price" bigint NOT NULL,
	"currency" text NOT NULL,
	"pricing_unit" text NOT NULL,
	"active" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subscription_charges" (
	"id" text PRIMARY KEY NOT NULL,
	"subscription_id" text NOT NULL,
	"period" bigint NOT NULL,
	"payment_id" text NOT NULL,
	"due_at" bigint NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subscriptions" (
	"id" text PRIMARY KEY NOT NULL,
	"payer_id" text NOT NULL,
	"recipient_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"frequency" text NOT NULL,
	"status" text NOT NULL,
	"anchor_at" bigint NOT NULL,
	"next_period" bigint NOT NULL,
	"failed_attempts" bigint NOT NULL,
	"next_attempt_at" bigint,
	"last_error" text,
	"cancelled_at" bigint,
	"cancel_reason" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "treasury_authorizations" (
	"nonce" text PRIMARY KEY NOT NULL,
	"tx_hash" text NOT NULL,
	"block_number" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "treasury_transfers" (
	"tx_hash" text NOT NULL,
	"log_index" bigint NOT NULL,
	"block_number" bigint NOT NULL,
	"direction" text NOT NULL,
	"counterparty" text NOT NULL,
	"amount" bigint NOT NULL,
	"acknowledged" text,
	CONSTRAINT "treasury_transfers_tx_hash_log_index_pk" PRIMARY KEY("tx_hash","log_index")
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"event" text NOT NULL,
	"url" text NOT NULL,
	"outcome" text NOT NULL,
	"http_status" bigint,
	"error" text,
	"duration_ms" bigint NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_events" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"event" text NOT NULL,
	"data" text NOT NULL,
	"status" text NOT NULL,
	"created_at" bigint NOT NULL,
	"claimed_at" bigint
);
--> statement-breakpoint
CREATE TABLE "withdrawals" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"to_address" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"nonce" bigint,
	"tx_hash" text,
	"raw_tx" text,
	"receipt_block" bigint,
	"internal_agent_id" text,
	"error" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "x402_payments" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"url" text NOT NULL,
	"method" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"pay_to" text NOT NULL,
	"internal_agent_id" text,
	"network" text NOT NULL,
	"x402_version" bigint NOT NULL,
	"status" text NOT NULL,
	"authorization_nonce" text,
	"valid_before" bigint,
	"transaction" text,
	"resource_status" bigint,
	"error" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bets" ADD CONSTRAINT "bets_creator_id_agents_id_fk" FOREIGN KEY ("creator_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bets" ADD CONSTRAINT "bets_acceptor_id_agents_id_fk" FOREIGN KEY ("acceptor_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bets" ADD CONSTRAINT "bets_winner_id_agents_id_fk" FOREIGN KEY ("winner_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "blocks" ADD CONSTRAINT "blocks_blocker_id_agents_id_fk" FOREIGN KEY ("blocker_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "blocks" ADD CONSTRAINT "blocks_blocked_id_agents_id_fk" FOREIGN KEY ("blocked_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_quote_id_quotes_id_fk" FOREIGN KEY ("quote_id") REFERENCES "public"."quotes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_service_id_services_id_fk" FOREIGN KEY ("service_id") REFERENCES "public"."services"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_provider_id_agents_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chain_deposits" ADD CONSTRAINT "chain_deposits_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contracts" ADD CONSTRAINT "contracts_creator_id_agents_id_fk" FOREIGN KEY ("creator_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contracts" ADD CONSTRAINT "contracts_counterparty_id_agents_id_fk" FOREIGN KEY ("counterparty_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deposit_addresses" ADD CONSTRAINT "deposit_addresses_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "loan_offers" ADD CONSTRAINT "loan_offers_lender_id_agents_id_fk" FOREIGN KEY ("lender_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "loans" ADD CONSTRAINT "loans_offer_id_loan_offers_id_fk" FOREIGN KEY ("offer_id") REFERENCES "public"."loan_offers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "loans" ADD CONSTRAINT "loans_lender_id_agents_id_fk" FOREIGN KEY ("lender_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "loans" ADD CONSTRAINT "loans_borrower_id_agents_id_fk" FOREIGN KEY ("borrower_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_sender_id_agents_id_fk" FOREIGN KEY ("sender_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_recipient_id_agents_id_fk" FOREIGN KEY ("recipient_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "negotiations" ADD CONSTRAINT "negotiations_initiator_id_agents_id_fk" FOREIGN KEY ("initiator_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "negotiations" ADD CONSTRAINT "negotiations_counterparty_id_agents_id_fk" FOREIGN KEY ("counterparty_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_from_agent_id_agents_id_fk" FOREIGN KEY ("from_agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_to_agent_id_agents_id_fk" FOREIGN KEY ("to_agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "postings" ADD CONSTRAINT "postings_entry_id_journal_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."journal_entries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "postings" ADD CONSTRAINT "postings_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quotes" ADD CONSTRAINT "quotes_service_id_services_id_fk" FOREIGN KEY ("service_id") REFERENCES "public"."services"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quotes" ADD CONSTRAINT "quotes_provider_id_agents_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quotes" ADD CONSTRAINT "quotes_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "score_events" ADD CONSTRAINT "score_events_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "services" ADD CONSTRAINT "services_provider_id_agents_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription_charges" ADD CONSTRAINT "subscription_charges_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription_charges" ADD CONSTRAINT "subscription_charges_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_payer_id_agents_id_fk" FOREIGN KEY ("payer_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_recipient_id_agents_id_fk" FOREIGN KEY ("recipient_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_webhook_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."webhook_events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "withdrawals" ADD CONSTRAINT "withdrawals_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "withdrawals" ADD CONSTRAINT "withdrawals_internal_agent_id_agents_id_fk" FOREIGN KEY ("internal_agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "x402_payments" ADD CONSTRAINT "x402_payments_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "x402_payments" ADD CONSTRAINT "x402_payments_internal_agent_id_agents_id_fk" FOREIGN KEY ("internal_agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "accounts_owner_kind_currency_idx" ON "accounts" USING btree ("agent_id","kind","currency");--> statement-breakpoint
CREATE UNIQUE INDEX "accounts_system_kind_currency_idx" ON "accounts" USING btree ("kind","currency") WHERE "accounts"."agent_id" IS NULL;--> statement-breakpoint
CREATE INDEX "bets_status_idx" ON "bets" USING btree ("status","expires_at");--> statement-breakpoint
CREATE INDEX "bets_creator_id_idx" ON "bets" USING btree ("creator_id","created_at");--> statement-breakpoint
CREATE INDEX "bets_acceptor_id_idx" ON "bets" USING btree ("acceptor_id","created_at");--> statement-breakpoint
CREATE INDEX "blocks_pair_idx" ON "blocks" USING btree ("blocker_id","blocked_id");--> statement-breakpoint
CREATE UNIQUE INDEX "bookings_quote_id_idx" ON "bookings" USING btree ("quote_id");--> statement-breakpoint
CREATE INDEX "bookings_agent_id_idx" ON "bookings" USING btree ("agent_id","created_at");--> statement-breakpoint
CREATE INDEX "bookings_provider_id_idx" ON "bookings" USING btree ("provider_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "chain_deposits_log_idx" ON "chain_deposits" USING btree ("tx_hash","log_index");--> statement-breakpoint
CREATE INDEX "console_sessions_agent_id_idx" ON "console_sessions" USING btree ("agent_id");--> statement-breakpoint
CREATE INDEX "contracts_status_idx" ON "contracts" USING btree ("status","deadline_at");--> statement-breakpoint
CREATE INDEX "contracts_creator_id_idx" ON "contracts" USING btree ("creator_id","created_at");--> statement-breakpoint
CREATE INDEX "contracts_counterparty_id_idx" ON "contracts" USING btree ("counterparty_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "deposit_addresses_index_idx" ON "deposit_addresses" USING btree ("address_index");--> statement-breakpoint
CREATE UNIQUE INDEX "deposit_addresses_address_idx" ON "deposit_addresses" USING btree ("address");--> statement-breakpoint
CREATE INDEX "journal_entries_reference_idx" ON "journal_entries" USING btree ("reference_type","reference_id");--> statement-breakpoint
CREATE INDEX "loan_offers_status_created_idx" ON "loan_offers" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "loan_offers_lender_id_idx" ON "loan_offers" USING btree ("lender_id");--> statement-breakpoint
CREATE UNIQUE INDEX "loans_offer_id_idx" ON "loans" USING btree ("offer_id");--> statement-breakpoint
CREATE INDEX "loans_lender_id_idx" ON "loans" USING btree ("lender_id","created_at");--> statement-breakpoint
CREATE INDEX "loans_borrower_id_idx" ON "loans" USING btree ("borrower_id","created_at");--> statement-breakpoint
CREATE INDEX "loans_status_due_idx" ON "loans" USING btree ("status","due_at");--> statement-breakpoint
CREATE INDEX "messages_recipient_idx" ON "messages" USING btree ("recipient_id","created_at");--> statement-breakpoint
CREATE INDEX "messages_pair_idx" ON "messages" USING btree ("sender_id","recipient_id","created_at") WHERE "messages"."sender_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "negotiations_pair_key_idx" ON "negotiations" USING btree ("pair_key","status");--> statement-breakpoint
CREATE INDEX "negotiations_initiator_id_idx" ON "negotiations" USING btree ("initiator_id","created_at");--> statement-breakpoint
CREATE INDEX "negotiations_counterparty_id_idx" ON "negotiations" USING btree ("counterparty_id","created_at");--> statement-breakpoint
CREATE INDEX "negotiations_status_expires_idx" ON "negotiations" USING btree ("status","expires_at");--> statement-breakpoint
CREATE INDEX "postings_history_idx" ON "postings" USING btree ("history_agent_id","id") WHERE "postings"."history_agent_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "postings_entry_id_idx" ON "postings" USING btree ("entry_id");--> statement-breakpoint
CREATE INDEX "quotes_agent_id_idx" ON "quotes" USING btree ("agent_id");--> statement-breakpoint
CREATE INDEX "score_events_agent_id_idx" ON "score_events" USING btree ("agent_id","created_at");--> statement-breakpoint
CREATE INDEX "services_active_created_idx" ON "services" USING btree ("active","created_at");--> statement-breakpoint
CREATE INDEX "services_provider_id_idx" ON "services" USING btree ("provider_id");--> statement-breakpoint
CREATE UNIQUE INDEX "subscription_charges_period_idx" ON "subscription_charges" USING btree ("subscription_id","period");--> statement-breakpoint
CREATE INDEX "subscriptions_payer_id_idx" ON "subscriptions" USING btree ("payer_id","created_at");--> statement-breakpoint
CREATE INDEX "subscriptions_recipient_id_idx" ON "subscriptions" USING btree ("recipient_id","created_at");--> statement-breakpoint
CREATE INDEX "subscriptions_status_idx" ON "subscriptions" USING btree ("status");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_agent_idx" ON "webhook_deliveries" USING btree ("agent_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_events_status_idx" ON "webhook_events" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "withdrawals_agent_id_idx" ON "withdrawals" USING btree ("agent_id","created_at");--> statement-breakpoint
CREATE INDEX "withdrawals_status_idx" ON "withdrawals" USING btree ("status");--> statement-breakpoint
CREATE INDEX "x402_payments_agent_id_idx" ON "x402_payments" USING btree ("agent_id","created_at");--> statement-breakpoint
CREATE INDEX "x402_payments_status_idx" ON "x402_payments" USING btree ("status");--> statement-breakpoint
CREATE UNIQUE INDEX "x402_payments_nonce_idx" ON "x402_payments" USING btree ("authorization_nonce");