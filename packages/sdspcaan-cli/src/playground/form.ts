/**
 * The method form, generated from the method's own option declarations (its
 * descriptor's `options`: type, range, default, doc, expert), so a method registered
 * in the library appears on the page with its options and no page change. Expert
 * options are folded away. Values are checked by the library itself when the method
 * is created, so the page shows the library's own messages.
 */
import type { MethodDescriptor, OptionSpec } from "sdspcaan/methods";

/** An option's field and how to read it back. */
interface Field {
  readonly name: string;
  read(): unknown;
}

export interface MethodForm {
  /** The options the user set (fields left at "default" are omitted). */
  values(): Record<string, unknown>;
}

function rangeHint(spec: OptionSpec): string {
  if (spec.type !== "integer" && spec.type !== "number") return "";
  const lo = spec.min;
  const hi = spec.max;
  const open = spec.type === "number" && spec.exclusiveMin ? "(" : "[";
  if (lo === undefined && hi === undefined) return "";
  const fraction = spec.type === "integer" && spec.fraction ? ", or a fraction in (0, 1)" : "";
  return ` Range ${lo === undefined ? "(-inf" : `${open}${lo}`}, ${hi === undefined ? "inf)" : `${hi}]`}${fraction}.`;
}

function field(name: string, spec: OptionSpec): { row: HTMLElement; field: Field } {
  const row = document.createElement("label");
  row.className = "option";
  row.title = `${spec.doc}${rangeHint(spec)}`;
  const title = document.createElement("span");
  title.className = "option-name";
  title.textContent = name;
  const doc = document.createElement("span");
  doc.className = "option-doc";
  doc.textContent = spec.doc;
  let control: HTMLInputElement | HTMLSelectElement;
  let read: () => unknown;
  switch (spec.type) {
    case "integer":
    case "number": {
      const input = document.createElement("input");
      input.type = "number";
      const fraction = spec.type === "integer" && spec.fraction === true;
      if (spec.min !== undefined) input.min = fraction ? "0" : String(spec.min);
      if (spec.max !== undefined) input.max = String(spec.max);
      // A k that may be a variance fraction (PCA) takes decimals too.
      input.step = spec.type === "integer" && !fraction ? "1" : "any";
      if (spec.default === null) input.placeholder = "auto";
      else input.value = String(spec.default);
      // A default as long as eps's or lambdaCap's would be cut off in the usual width;
      // rounding it instead would change the value sent to the library.
      if (input.value.length > 10) input.style.width = `calc(${input.value.length + 2}ch + 16px)`;
      read = () => {
        const t = input.value.trim();
        // An emptied field means the declared default; the library checks the rest.
        if (t === "") return undefined;
        return Number(t);
      };
      control = input;
      break;
    }
    case "enum": {
      const select = document.createElement("select");
      for (const v of spec.values) {
        const o = document.createElement("option");
        o.value = v;
        o.textContent = v;
        select.append(o);
      }
      select.value = spec.default;
      read = () => select.value;
      control = select;
      break;
    }
    case "boolean": {
      const box = document.createElement("input");
      box.type = "checkbox";
      box.checked = spec.default;
      read = () => box.checked;
      control = box;
      break;
    }
  }
  control.name = name;
  control.dataset.option = name;
  row.append(title, control, doc);
  return { row, field: { name, read } };
}

/** Fills `container` with the form of `descriptor`'s options. */
export function buildMethodForm(container: HTMLElement, descriptor: MethodDescriptor): MethodForm {
  const fields: Field[] = [];
  const main = document.createElement("div");
  main.className = "options";
  const expert = document.createElement("details");
  expert.className = "expert";
  const summary = document.createElement("summary");
  summary.textContent = "Expert options";
  const expertBody = document.createElement("div");
  expertBody.className = "options";
  expert.append(summary, expertBody);
  for (const [name, spec] of Object.entries(descriptor.options)) {
    const f = field(name, spec);
    fields.push(f.field);
    (spec.expert ? expertBody : main).append(f.row);
  }
  const about = document.createElement("p");
  about.className = "method-summary";
  about.textContent = descriptor.summary;
  container.replaceChildren(about, main, ...(expertBody.childElementCount > 0 ? [expert] : []));
  return {
    values() {
      const out: Record<string, unknown> = {};
      for (const f of fields) {
        const v = f.read();
        if (v !== undefined) out[f.name] = v;
      }
      return out;
    },
  };
}
