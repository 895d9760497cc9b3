/**
 * What a container gets of a command or argument string, as Kubernetes expands it
 * (https://kubernetes.io/docs/tasks/inject-data-application/define-command-argument-container/,
 * the API reference of `args`): `$(NAME)` becomes the variable's value when the
 * environment has it, and stays as written when not; `$$` becomes `$`; an unclosed
 * `$(`, a lone `$` before another character and a `$` at the end stay as they are.
 */
export function kubernetesExpand(text: string, env: Readonly<Record<string, string>>): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    if (text[i] !== "$" || i + 1 === text.length) {
      out += text[i++];
      continue;
    }
    const next = text[i + 1];
    if (next === "$") {
      out += "$";
      i += 2;
    } else if (next === "(") {
      const close = text.indexOf(")", i + 2);
      if (close < 0) {
        out += "$(";
        i += 2;
      } else {
        const name = text.slice(i + 2, close);
        out += Object.hasOwn(env, name) ? env[name] : `$(${name})`;
        i = close + 1;
      }
    } else {
      out += `$${next}`;
      i += 2;
    }
  }
  return out;
}
