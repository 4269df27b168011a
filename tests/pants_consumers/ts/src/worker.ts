// A job worker built on the TypeScript runner that //schemas/jobs generates. The generated files
// are not copied here: Pants puts them into the sandbox at schemas/jobs/ts/ (the package depends
// on the schema_library, see BUILD) and `tsc --strict` compiles them with this file.
import {
  createRunner,
  QueueStatus,
  type Queryable,
  type Runner,
  UqJobNameActorError,
} from "../../../../schemas/jobs/ts/index.js";

/** What `enqueueStrict` reports: the new job, or the Pending twin that blocked it. */
export type StrictOutcome =
  | { readonly kind: "enqueued"; readonly id: string }
  | { readonly kind: "duplicate"; readonly error: UqJobNameActorError };

export class Worker {
  private readonly runner: Runner;

  constructor(db: Queryable, readonly actor: string) {
    this.runner = createRunner(db);
  }

  /** Enqueues a job; `null` when a Pending twin absorbed it (`unless conflict`). */
  async enqueue(name: string, payload?: { readonly [key: string]: string }): Promise<string | null> {
    const row = await this.runner.query.enqueueJob({ name, actor: this.actor, payload: payload ?? null });
    return row?.id ?? null;
  }

  /** Enqueues with the plain insert: a Pending twin is the typed unique-violation error. */
  async enqueueStrict(name: string): Promise<StrictOutcome> {
    try {
      const { id } = await this.runner.query.enqueueJobStrict({ name, actor: this.actor });
      return { kind: "enqueued", id };
    } catch (err) {
      if (err instanceof UqJobNameActorError) {
        return { kind: "duplicate", error: err };
      }
      throw err;
    }
  }

  /** Enqueues many names in one round trip; returns the ids of the jobs created. */
  async enqueueMany(names: readonly string[]): Promise<string[]> {
    const rows = await this.runner.query.enqueueJobs({ names, actor: this.actor });
    return rows.map((r) => r.id);
  }

  /** Claims a job (Pending -> Running); returns its status after the claim. */
  async claim(id: string): Promise<QueueStatus | null> {
    const claimed = await this.runner.query.claimJob({ id });
    if (claimed === null) {
      return null;
    }
    const job = await this.runner.query.getJob({ id: claimed.id });
    return job?.status ?? null;
  }

  /** The names of this actor's Pending jobs, by name. */
  async pendingNames(max = 100): Promise<string[]> {
    const rows = await this.runner.query.listPendingJobs({ actor: this.actor, max });
    return rows.map((r) => r.name);
  }

  /** Enqueues `names` in one transaction: all of them, or none when `check` rejects. */
  async enqueueAllOrNothing(names: readonly string[], check: (ids: string[]) => void): Promise<string[]> {
    return this.runner.transaction(async (tx) => {
      const ids: string[] = [];
      for (const name of names) {
        const row = await tx.query.enqueueJobStrict({ name, actor: this.actor });
        ids.push(row.id);
      }
      check(ids);
      return ids;
    });
  }
}

export { QueueStatus, UqJobNameActorError };
