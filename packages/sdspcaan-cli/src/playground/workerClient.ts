/** The page's end of its worker (worker.ts): requests typed by the page's protocol. */

import { type RequestOptions, WorkerChannel } from "sdspcaan/worker";
import type { Answers, Request } from "./protocol.js";

/**
 * The worker through the library's channel (sdspcaan/worker), typed by this page's
 * requests. A cancel on a page without shared memory ends the worker (the channel
 * says so with `ended`); `restart` then starts a fresh one.
 */
export class WorkerClient {
  private channel = WorkerClient.spawn();

  private static spawn(): WorkerChannel {
    return new WorkerChannel(
      new Worker(new URL("worker.js", document.baseURI), { type: "module" }),
    );
  }

  request<T extends Request["type"]>(
    body: Extract<Request, { type: T }>,
    options: RequestOptions = {},
  ): Promise<Answers[T]> {
    return this.channel.request<Answers[T]>(body, options);
  }

  /** Whether the worker was ended (a cancel without shared memory). */
  get ended(): boolean {
    return this.channel.terminated;
  }

  /** A fresh worker in place of the ended one. */
  restart(): void {
    this.channel = WorkerClient.spawn();
  }
}
