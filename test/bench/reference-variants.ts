// The reference servers carrying what agentbank's schema and rules cost, made at run time from the
// references themselves (../shared/reference, read-only) by a few textual changes, so that the bench puts
// agentbank beside "the same design, doing exactly agentbank's writes":
// - p10 + agentbank's schema: p10 (LAYOUT=plain) with the indexes, keys and rows agentbank's tables have
//   and p10's lack — the Idempotency-Key primary key (agentbank keeps keys 24 h across restarts; p10 keeps
//   them in a Map), journal_entries_reference_idx, postings_entry_id_idx, messages_unread_idx,
//   messages_recipient_type_idx, AUTOINCREMENT on the journal and postings, foreign keys on, and the
//   payer's score ring of 20 events (~2.6 KB) rewritten on its agent row instead of a 27-byte constant;
// - p9 + the rules: p9 with every write p10 adds (the Idempotency-Key read first, the journal entry, the
//   score, the 24 h usage, the payee's inbox message and its counts) and agentbank's message indexes, the
//   writes after the journal entry pipelined (sent together, awaited once): the best a client can do.
// A change whose anchor is no longer in the reference throws: the reference changed, so must this.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

type Change = [anchor: string, replacement: string];

function patched(source: string, changes: Change[]): string {
  for (const [anchor, replacement] of changes) {
    if (!source.includes(anchor)) throw new Error(`reference-variants: the reference no longer contains ${JSON.stringify(anchor.slice(0, 80))}`);
    source = source.replace(anchor, replacement);
  }
  return source;
}

const RING = `JSON.stringify(Array.from({ length: 20 }, (_, i) => ({ kind: "PAYMENT_COMPLETED", change: 1, referenceId: "01234567-89ab-cdef-0123-4567" + String(i).padStart(8, "0"), at: "2026-11-25T04:30:00.000Z" })))`;

const p10Schema: Change[] = [
  ["CREATE TABLE journal_entries (id INTEGER PRIMARY KEY,", "CREATE TABLE journal_entries (id INTEGER PRIMARY KEY AUTOINCREMENT,"],
  [
    "CREATE TABLE payments (id TEXT PRIMARY KEY, from_agent_id TEXT NOT NULL, to_agent_id TEXT NOT NULL,",
    "CREATE TABLE payments (id TEXT PRIMARY KEY, from_agent_id TEXT NOT NULL REFERENCES agents(id), to_agent_id TEXT NOT NULL REFERENCES agents(id),",
  ],
  [
    "CREATE TABLE postings (id INTEGER PRIMARY KEY, entry_id INTEGER NOT NULL, account_id INTEGER NOT NULL,",
    "CREATE TABLE postings (id INTEGER PRIMARY KEY AUTOINCREMENT, entry_id INTEGER NOT NULL REFERENCES journal_entries(id), account_id INTEGER NOT NULL REFERENCES accounts(id),",
  ],
  [
    "CREATE TABLE messages (id TEXT PRIMARY KEY, recipient_id TEXT NOT NULL, sender_id TEXT, type TEXT NOT NULL, subject TEXT NOT NULL, body TEXT NOT NULL,\n  metadata TEXT, read_at INTEGER,",
    "CREATE TABLE messages (id TEXT PRIMARY KEY, recipient_id TEXT NOT NULL REFERENCES agents(id), sender_id TEXT, type TEXT NOT NULL, subject TEXT NOT NULL, body TEXT NOT NULL,\n  metadata TEXT, read INTEGER NOT NULL DEFAULT 0, read_at INTEGER,",
  ],
  [
    '${APPEND ? "" : ", PRIMARY KEY (agent_id, key)"});`);',
    `, PRIMARY KEY (agent_id, key));
CREATE INDEX journal_entries_reference_idx ON journal_entries (reference_type, reference_id);
CREATE INDEX postings_entry_id_idx ON postings (entry_id);
CREATE INDEX messages_unread_idx ON messages (recipient_id, created_at) WHERE read = 0;
CREATE INDEX messages_recipient_type_idx ON messages (recipient_id, type, created_at);\`);
    db.exec("PRAGMA foreign_keys = ON");`,
  ],
  [`setScore.run('[{"e":"PAYMENT_COMPLETED"}]', from)`, `setScore.run(${RING}, from)`],
];

const p9Rules: Change[] = [
  [
    "for (let i = 0; i < N; i++) await sql`INSERT INTO p9_accounts",
    `await sql.unsafe(\`
DROP TABLE IF EXISTS p9_journal, p9_agents, p9_usage, p9_messages, p9_inbox;
CREATE TABLE p9_journal (id BIGSERIAL PRIMARY KEY, type TEXT NOT NULL, reference_type TEXT NOT NULL, reference_id TEXT NOT NULL, created_at BIGINT NOT NULL);
CREATE INDEX p9_journal_reference_idx ON p9_journal (reference_type, reference_id);
CREATE TABLE p9_agents (id TEXT PRIMARY KEY, name TEXT, score INTEGER NOT NULL DEFAULT 0, score_events TEXT NOT NULL DEFAULT '[]');
CREATE TABLE p9_usage (bucket BIGINT NOT NULL, agent_id TEXT NOT NULL, currency TEXT NOT NULL, amount BIGINT NOT NULL, PRIMARY KEY (bucket, agent_id, currency));
CREATE TABLE p9_messages (id UUID PRIMARY KEY, recipient_id TEXT NOT NULL, sender_id TEXT, type TEXT NOT NULL, subject TEXT NOT NULL, body TEXT NOT NULL,
  read BOOLEAN NOT NULL DEFAULT false, created_at BIGINT NOT NULL);
CREATE INDEX p9_messages_recipient_idx ON p9_messages (recipient_id, created_at);
CREATE INDEX p9_messages_unread_idx ON p9_messages (recipient_id, created_at) WHERE NOT read;
CREATE INDEX p9_messages_type_idx ON p9_messages (recipient_id, type, created_at);
CREATE TABLE p9_inbox (agent_id TEXT NOT NULL, type TEXT NOT NULL, total INTEGER NOT NULL, unread INTEGER NOT NULL, PRIMARY KEY (agent_id, type));\`);
const RING = ${RING};
for (let i = 0; i < N; i++) await sql\`INSERT INTO p9_agents (id, name) VALUES (\${\`agent_\${i}\`}, \${\`agent \${i}\`})\`;
for (let i = 0; i < N; i++) await sql\`INSERT INTO p9_accounts`,
  ],
  [
    "await sql.begin(async (tx) => {\n",
    `await sql.begin(async (tx) => {
            const seen = await tx\`SELECT request_hash FROM p9_idempotency WHERE agent_id = \${from} AND key = \${key}\`;
            if (seen.length) throw Object.assign(new Error("reused"), { status: 409, code: "IDEMPOTENCY_KEY_REUSED" });
`,
  ],
  [
    "await tx`INSERT INTO p9_postings",
    `await tx\`INSERT INTO p9_journal (type, reference_type, reference_id, created_at) VALUES ('payment', 'payment', \${id}, \${now}) RETURNING id\`;
            const bucket = Math.floor(now / 600_000);
            await Promise.all([
              tx\`UPDATE p9_agents SET score = score + 1, score_events = \${RING} WHERE id = \${from}\`,
              tx\`INSERT INTO p9_usage (bucket, agent_id, currency, amount) VALUES (\${bucket}, \${from}, 'USD', \${amount}) ON CONFLICT (bucket, agent_id, currency) DO UPDATE SET amount = p9_usage.amount + excluded.amount\`,
              tx\`INSERT INTO p9_messages (id, recipient_id, type, subject, body, created_at) VALUES (\${Bun.randomUUIDv7()}, \${to}, 'payment.received', 'Payment received', \${reason ?? ""}, \${now})\`,
              tx\`INSERT INTO p9_inbox (agent_id, type, total, unread) VALUES (\${to}, 'payment.received', 1, 1) ON CONFLICT (agent_id, type) DO UPDATE SET total = p9_inbox.total + 1, unread = p9_inbox.unread + 1\`,
            ]);
            await tx\`INSERT INTO p9_postings`,
  ],
];

/** Writes the variants into `dir` (beside the references' own files, which they do not change); returns their paths. */
export function writeVariants(referenceFolder: string, dir: string): { p10Schema: string; p9Rules: string } {
  const files = { p10Schema: join(dir, "p10-agentbank-schema.ts"), p9Rules: join(dir, "p9-rules.ts") };
  writeFileSync(files.p10Schema, patched(readFileSync(join(referenceFolder, "p10-rules.ts"), "utf8"), p10Schema));
  writeFileSync(files.p9Rules, patched(readFileSync(join(referenceFolder, "p9-pg-transfer.ts"), "utf8"), p9Rules));
  return files;
}
