import { index, integer, table, text, uniqueIndex } from "../db/tables";
import { agents } from "../agents/schema";

/** A person who owns agents, known by an e-mail address they proved they read (a link sent there was opened). */
export const owners = table(
  "owners",
  {
    id: text().primaryKey(),
    /** Lower-cased; unique: one account per address. */
    email: text().notNull(),
    createdAt: integer().notNull(),
  },
  (t) => [uniqueIndex("owners_email_idx").on(t.email)],
);

/** Which owner claimed an agent (at most one); an agent without a row is unclaimed. */
export const agentOwners = table(
  "agent_owners",
  {
    agentId: text().primaryKey().references(() => agents.columns.id),
    ownerId: text().notNull().references(() => owners.columns.id),
    claimedAt: integer().notNull(),
  },
  (t) => [index("agent_owners_owner_idx").on(t.ownerId, t.claimedAt)],
);

export type LinkPurpose = "claim" | "sign_in";

/**
 * A single-use link mailed to an address: a claim of an agent (to its registration's ownerEmail, 7
 * days) or a sign-in to the console (15 minutes). Stored as the SHA-256 of its token.
 */
export const ownerLinks = table(
  "owner_links",
  {
    /** The SHA-256 of the link's token. */
    id: text().primaryKey(),
    purpose: text<LinkPurpose>().notNull(),
    email: text().notNull(),
    /** The agent a claim link claims; null for a sign-in link. */
    agentId: text().references(() => agents.columns.id),
    /** Where a sign-in link leads once signed in (a /console/… path); null: the overview. */
    next: text(),
    createdAt: integer().notNull(),
    expiresAt: integer().notNull(),
    usedAt: integer(),
  },
  (t) => [index("owner_links_email_idx").on(t.email, t.createdAt), index("owner_links_expires_idx").on(t.expiresAt)],
);
