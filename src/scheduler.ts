// Every timed transition registers a job here. Jobs run on a croner schedule, and all at once when
// the test clock moves (POST /admin/clock/advance), so due work is done before that call answers.
// A job must be idempotent and apply only what is due at clock.nowMs().
import { Cron } from "croner";

type Job = { name: string; run: () => Promise<void> | void; cron: Cron | null };

const jobs: Job[] = [];

export function registerJob(name: string, run: () => Promise<void> | void): void {
  if (jobs.some((job) => job.name === name)) return;
  jobs.push({ name, run, cron: null });
}

async function runJob(job: Job): Promise<void> {
  try {
    await job.run();
  } catch (error) {
    console.error(JSON.stringify({ level: "error", msg: "job failed", job: job.name, error: String(error) }));
  }
}

/** Starts every registered job on the same cadence (every 5 s; croner's protect skips overlaps). */
export function startScheduler(): void {
  for (const job of jobs) {
    job.cron = new Cron("*/5 * * * * *", { protect: true }, () => runJob(job));
  }
}

export function stopScheduler(): void {
  for (const job of jobs) job.cron?.stop();
}

/** Runs every job once, in registration order (for the test clock and for start-up catch-up). */
export async function runAllJobs(): Promise<void> {
  for (const job of jobs) await runJob(job);
}

