// POST /agents/register (the logic: ./registration.ts).
import { Elysia } from "elysia";
import { Registration, RegistrationBody } from "../agents/model";
import { door } from "../door";
import { docs } from "../http/models";
import { answers } from "../http/responses";
import { assertRegistrationCallable, register } from "./registration";

export const registrationRoutes = new Elysia({ prefix: "/agents", name: "registration" }).use(door).post(
  "/register",
  async ({ body, write, status }) => status(201, await write(() => register(body))),
  {
    body: RegistrationBody,
    beforeHandle: ({ body }) => assertRegistrationCallable(body),
    ...answers(docs("Agents", "Register an agent: returns its API key and owner key once", "public"), { 201: Registration }),
  },
);
