import { t } from "elysia";

export const WebhookUrl = t.Union([t.String({ format: "uri", maxLength: 2048 }), t.Null()], {
  description: "https URL that receives event POSTs; null disables delivery",
});

export const RegistrationBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 100 }),
  ownerName: t.String({ minLength: 1, maxLength: 100 }),
  ownerEmail: t.String({ format: "email", maxLength: 254 }),
  description: t.Optional(t.String({ maxLength: 2000 })),
  capabilities: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
  webhookUrl: t.Optional(WebhookUrl),
});
