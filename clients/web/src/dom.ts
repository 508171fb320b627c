// A tiny element builder: views rebuild their sections from state with `h()`; no framework.
type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2), value);
    } else if (name === "value" && "value" in el) {
      (el as HTMLInputElement).value = String(value);
    } else if (name === "checked" && "checked" in el) {
      (el as HTMLInputElement).checked = Boolean(value);
    } else {
      el.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el: HTMLElement, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces a section's content, keeping keyboard focus on the element with the same id,
 * unfolding again each `<details data-key>` the reader had unfolded and opening again each
 * `[data-pin]` element the reader had pinned open (class `open`; it then gets a `reopen`
 * event): a live update redraws the section, and must not close what someone is reading. */
export function replace(section: HTMLElement, ...children: Child[]): void {
  const focused = document.activeElement;
  const focusId = focused && section.contains(focused) ? focused.id : "";
  const unfolded = new Set(
    Array.from(section.querySelectorAll<HTMLDetailsElement>("details[data-key]"))
      .filter((details) => details.open)
      .map((details) => details.dataset.key),
  );
  const pinned = new Set(
    pins(section)
      .filter(([el]) => el.classList.contains("open"))
      .map(([, place]) => place),
  );
  section.replaceChildren();
  append(section, children);
  for (const details of section.querySelectorAll<HTMLDetailsElement>("details[data-key]")) {
    if (unfolded.has(details.dataset.key)) details.open = true;
  }
  for (const [el, place] of pins(section)) {
    if (!pinned.has(place)) continue;
    el.classList.add("open");
    el.dispatchEvent(new Event("reopen"));
  }
  if (focusId) document.getElementById(focusId)?.focus();
}

/** Each `[data-pin]` element with its place, which a redraw of the same content gives again:
 * the key of the part it is in, its pin, and how many before it there have both. */
function pins(section: HTMLElement): [HTMLElement, string][] {
  const seen = new Map<string, number>();
  return Array.from(section.querySelectorAll<HTMLElement>("[data-pin]"), (el) => {
    const part = el.parentElement?.closest<HTMLElement>("[data-key]")?.dataset.key ?? "";
    const name = `${part}\n${el.dataset.pin}`;
    const before = seen.get(name) ?? 0;
    seen.set(name, before + 1);
    return [el, `${name}\n${before}`];
  });
}

export function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  if (!control.id) control.id = `f-${Math.random().toString(36).slice(2, 9)}`;
  return h(
    "div",
    { class: "field" },
    h("label", { for: control.id }, label),
    control,
    hint ? h("small", { class: "hint" }, hint) : null,
  );
}
