// The operator's routes of the mail outbox: the list of every message and where it went, and a test
// message to check the mail settings (SMTP_URL, or the outbox folder).
import { t } from "elysia";
import { MAX_ADDRESS_LENGTH } from "../email";
import { docs, paged, PageQuery } from "../http/models";
import { operatorRoutes } from "../door/operator";
import { answers } from "../http/responses";
import { MAIL_STATUSES, MailMessage, MailPage } from "./model";
import { mailList, queueTestMail } from "./service";

const Address = t.String({ format: "email", maxLength: MAX_ADDRESS_LENGTH, description: "one e-mail address, local@domain" });

export const mailAdminRoutes = operatorRoutes("mail-admin")
  .get("/mail", ({ query, read }) => paged(query, (window) => read(mailList({ status: query.status, to: query.to }, window))), {
    query: t.Object({
      ...PageQuery.properties,
      status: t.Optional(t.Union(MAIL_STATUSES.map((status) => t.Literal(status)))),
      to: t.Optional(Address),
    }),
    ...answers(docs("Operator", "Every message of the mail outbox, newest first: its status, attempts, last error and where it went (smtp, or its file in the outbox folder)", "admin"), { 200: MailPage }),
  })
  .post(
    "/mail/test",
    async ({ body, write, status }) => status(202, await write(() => queueTestMail(body.to, body.reference), body.to)),
    {
      action: "mail.test",
      body: t.Object({
        to: Address,
        reference: t.Optional(t.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_-]+$", description: "names the test: the same reference and address again queue nothing more" })),
      }),
      ...answers(docs("Operator", "Queue a test message to `to`, sent like every message (SMTP_URL, or a file in the outbox folder); its progress shows in GET /admin/mail", "admin"), { 202: MailMessage }),
    },
  );
