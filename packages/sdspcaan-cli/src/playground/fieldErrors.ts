/**
 * Messages on the page: an error about one field shown beside that field (its fold
 * opened, the field marked invalid until it changes), any other in its step's box.
 */

import { DataFormatError, ValidationError } from "sdspcaan";
import { $ } from "./dom.js";

/** A value the page itself refuses, with the control that holds it. */
export class FieldError extends Error {
  constructor(
    readonly control: HTMLElement,
    message: string,
  ) {
    super(message);
  }
}

/** The steps of the page; each has a box beside its controls for messages about no one field. */
export type Step = "data" | "fit" | "model";

const STEP_BOX: Record<Step, string> = {
  data: "data-error",
  fit: "fit-error",
  model: "model-error",
};

/** The controls showing a message now, by step, to clear with the step's box. */
const flagged: Record<Step, HTMLElement[]> = { data: [], fit: [], model: [] };

function clearFieldError(control: HTMLElement): void {
  const id = control.getAttribute("aria-describedby");
  if (id !== null) document.getElementById(id)?.remove();
  control.removeAttribute("aria-describedby");
  control.removeAttribute("aria-invalid");
}

export function clearErrors(step: Step): void {
  const box = $(STEP_BOX[step]);
  box.hidden = true;
  box.textContent = "";
  for (const control of flagged[step]) clearFieldError(control);
  flagged[step] = [];
}

let fieldErrorCount = 0;

/** Shows `err` beside `control` when there is one on the page, else in the step's box. */
export function showError(step: Step, err: unknown, control: HTMLElement | null = null): void {
  const e = err instanceof Error ? err : new Error(String(err));
  if (control === null || !control.isConnected) {
    const box = $(STEP_BOX[step]);
    box.textContent = e.message;
    box.hidden = false;
    return;
  }
  // A field in a fold (expert or reading options) is unfolded, or its message would be hidden.
  for (
    let d = control.closest("details");
    d !== null;
    d = d.parentElement?.closest("details") ?? null
  ) {
    d.open = true;
  }
  clearFieldError(control);
  const message = document.createElement("span");
  message.className = "field-error";
  message.setAttribute("role", "alert");
  message.id = `field-error-${++fieldErrorCount}`;
  message.textContent = e.message;
  // In an option's row the message goes right under the control; the labels file's
  // control is a hidden input inside its button, so there it closes the row.
  const row = control.closest(".labels-file");
  if (row !== null) row.append(message);
  else control.after(message);
  control.setAttribute("aria-invalid", "true");
  control.setAttribute("aria-describedby", message.id);
  control.addEventListener("input", () => clearFieldError(control), { once: true });
  flagged[step].push(control);
}

/**
 * The control a worker's error is about, when it names one this step has
 * (`labelsFile`: the name of the labels file the data was read with, if any).
 */
export function controlOf(step: Step, err: unknown, labelsFile: string | null): HTMLElement | null {
  const argument = err instanceof ValidationError ? err.argument : undefined;
  const file = err instanceof DataFormatError ? err.file : undefined;
  if (step === "fit" && argument !== undefined) {
    return document.querySelector<HTMLElement>(
      `#method-form [data-option="${CSS.escape(argument)}"]`,
    );
  }
  if (step === "data") {
    const byArgument: Record<string, string> = {
      xVar: "x-var",
      yVar: "y-var",
      labelColumn: "label-col",
      labelsFile: "labels-file",
    };
    if (argument !== undefined && argument in byArgument) return $(byArgument[argument]);
    if (file !== undefined && labelsFile !== null && file === labelsFile) {
      return $("labels-file");
    }
  }
  return null;
}
