// Every timed transition registers a job here. Jobs run on a croner schedule, and all at once when
// the test clock moves (POST /admin/clock/advance), so due work is done before that call answers.
// A job must be idempotent and apply only what is due at clock.nowMs(). All jobs run under one lock
// shared by every instance on the database: one instance at a time runs them, and when it dies its
// lock is released and another instance's next tick takes over.
import { Cron } from "croner";
import { refreshTestClock } from "./clock";
import { config } from "./config";
import { exclusive } from "./db";
import { logLine } from "./log";

type Job = { name: string; run: () => Promise<unknown> | void };

/** How long a caller that waits for the jobs lock (the test clock, start-up) waits for another instance's run. */
const JOBS_WAIT_MS = 60_000;

const jobs: Job[] = [];
let cron: Cron | null = null;

export function registerJob(name: string, run: () => Promise<unknown> | void): void {
  if (jobs.some((job) => job.name === name)) return;
  jobs.push({ name, run });
}

async function runJob(job: Job): Promise<void> {
  try {
    await job.run();
  } catch (error) {
    logLine({ level: "error", msg: "job failed", job: job.name, error: String(error) });
  }
}

/**
 * Runs every job once, in registration order. `wait`: wait for the instance that holds the jobs lock
 * (the test clock, start-up), up to JOBS_WAIT_MS (then SERVICE_BUSY); otherwise skip this round when
 * another instance is running them.
 */
export async function runAllJobs(wait: boolean): Promise<void> {
  await exclusive("jobs", wait ? JOBS_WAIT_MS : 0, async () => {
    // Another instance may have moved the (shared) test clock.
    if (config.testClock) await refreshTestClock();
    for (const job of jobs) await runJob(job);
  });
}

/** Every 5 s (croner's protect skips a tick while the previous one still runs). */
export function startScheduler(): void {
  cron = new Cron("*/5 * * * * *", { protect: true }, () => runAllJobs(false));
}

export function stopScheduler(): void {
  cron?.stop();
}
