// POST /agents/register (the logic: ./registration.ts).
import { Elysia } from "elysia";
import { docs } from "../http/models";
import { answers } from "../http/responses";
import { Registration, RegistrationBody } from "../agents/model";
import { register } from "./registration";

export const registrationRoutes = new Elysia({ prefix: "/agents", name: "registration" }).post(
  "/register",
  async ({ body, set }) => {
    const registered = await register(body);
    set.status = 201;
    return registered;
  },
  { body: RegistrationBody, ...answers(docs("Agents", "Register an agent: returns its API key and owner key once", "public"), { 201: Registration }) },
);
