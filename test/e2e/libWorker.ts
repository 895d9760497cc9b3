/** The worker of the sdspcaan/worker page (libWorkerPage.ts): the library's serveFits. */
import { serveFits } from "sdspcaan/worker";

serveFits();
