// The console's Overview (/console): balances, the history page by page, and the history as a CSV
// download (a GET with the range in the query, or the Overview's form).
import { Elysia, t } from "elysia";
import { historyCsv, type CsvRequest } from "./csv";
import { consoleDoor, field, Form } from "./door";
import { overview } from "./pages";
import { type AgentId } from "../ids";

const CsvQuery = t.Object({ from: t.Optional(t.String({ maxLength: 40 })), to: t.Optional(t.String({ maxLength: 40 })), currency: t.Optional(t.String({ maxLength: 40 })) });
/** A bad range or too many rows: the reason on the Overview's frame, 400. */
const EXPORT = { title: "Export", path: "/console" };

/** The history as a CSV download. */
async function csvAnswer(agentId: AgentId, asked: CsvRequest) {
  const { text, filename } = await historyCsv(agentId, asked);
  return new Response(text, {
    headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${filename}"`, "cache-control": "no-store", "x-content-type-options": "nosniff" },
  });
}

export const overviewRoutes = new Elysia({ name: "console-overview" })
  .use(consoleDoor)
  .get(
    "",
    async ({ session, render, query, w }) => {
      const pageNumber = Math.max(1, Math.min(100_000, Number(query.page ?? 1) || 1));
      return render("Overview", "/console", await overview(session.agentId, pageNumber, session.csrfToken, w));
    },
    { page: true, query: t.Object({ page: t.Optional(t.String({ maxLength: 10 })) }), detail: { hide: true } },
  )
  .get("/history.csv", ({ session, query }) => csvAnswer(session.agentId, query), { page: true, section: EXPORT, query: CsvQuery, detail: { hide: true } })
  .post("/history.csv", ({ session, body }) => csvAnswer(session.agentId, { from: field(body, "from"), to: field(body, "to"), currency: field(body, "currency") }), {
    form: true,
    section: EXPORT,
    body: Form,
    detail: { hide: true },
  });
