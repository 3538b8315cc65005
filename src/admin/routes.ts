// Every operator route (/admin/…), each feature's admin-routes.ts and the operator's own, as one plugin
// that src/app.ts mounts after the agents' routes (one plugin: the app's chain of plugins stays within
// what the type checker follows).
import { Elysia } from "elysia";
import { betAdminRoutes } from "../betting/admin-routes";
import { chainAdminRoutes } from "../chain/admin-routes";
import { mailAdminRoutes } from "../mail/admin-routes";
import { agentAdminRoutes } from "../profile/admin-routes";
import { walletAdminRoutes } from "../wallets/admin-routes";
import { webhookAdminRoutes } from "../webhooks/admin-routes";
import { adminRoutes } from "./admin-routes";
import { operatorAdminRoutes } from "./operators-routes";

export const operatorApi = new Elysia({ name: "operator-api" })
  .use(betAdminRoutes)
  .use(chainAdminRoutes)
  .use(walletAdminRoutes)
  .use(agentAdminRoutes)
  .use(mailAdminRoutes)
  .use(webhookAdminRoutes)
  .use(operatorAdminRoutes)
  .use(adminRoutes);
