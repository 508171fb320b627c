// What a rule id means, in one plain sentence and in the page's language, wherever an answer
// names the rules it applied. The rules themselves, with these ids, are in docs/rules.md;
// rules.json has a text for every id defined there (tests/web checks it).
import texts from "./rules.json";
import { h } from "./dom.js";
import { lang } from "./i18n.js";

const TEXTS: Record<string, { en: string; it: string } | undefined> = texts;
const RULE_ID = /\bR-[A-Z]+-\d+\b/g;
const MARGIN = 8;

export function ruleText(id: string): string | null {
  return TEXTS[id]?.[lang] ?? null;
}

let tips = 0;

/** A rule id that explains itself: hovering it or focusing it by keyboard shows its text, a
 * tap pins the text open (another tap, Escape or a tap elsewhere hides it), and a screen
 * reader hears the text as the button's description. An id this page has no text for (from
 * a newer service) is shown as it is. */
export function ruleRef(id: string): HTMLElement {
  const text = ruleText(id);
  if (text === null) return h("code", { class: "rule" }, id);
  const tipId = `rule-tip-${++tips}`;
  const tip = h("span", { class: "rule-tip", role: "tooltip", id: tipId }, text);
  // Pinned open, it stays open when a live update redraws its section (`replace`).
  const ref = h("span", { class: "rule-ref", "data-rule": id, "data-pin": id });
  const place = () => keepInView(tip);
  ref.addEventListener("reopen", place);
  const button = h(
    "button",
    {
      type: "button",
      class: "rule",
      "aria-describedby": tipId,
      onclick: () => {
        ref.classList.toggle("open");
        place();
      },
      onmouseenter: place,
      onfocus: place,
      onmouseleave: () => ref.classList.remove("dismissed"),
      onblur: () => ref.classList.remove("dismissed"),
    },
    id,
  );
  ref.append(button, tip);
  return ref;
}

/** A text from the service (a note) with the rule ids it mentions explained. */
export function withRules(text: string): (string | HTMLElement)[] {
  const parts: (string | HTMLElement)[] = [];
  let at = 0;
  for (const match of text.matchAll(RULE_ID)) {
    parts.push(text.slice(at, match.index), ruleRef(match[0]));
    at = match.index + match[0].length;
  }
  parts.push(text.slice(at));
  return parts.filter((part) => part !== "");
}

/** Shifts a shown tip left as far as it would stick out past the viewport's right edge, so
 * that it never makes the page scroll sideways (its width is capped at the viewport's). */
function keepInView(tip: HTMLElement): void {
  tip.style.left = "0px";
  const box = tip.getBoundingClientRect();
  if (!box.width) return;
  const over = box.right - (document.documentElement.clientWidth - MARGIN);
  if (over > 0) tip.style.left = `${-Math.min(over, box.left - MARGIN)}px`;
}

// One pair of listeners for every tip: a tap elsewhere closes the pinned ones, Escape hides
// every tip shown, hovered or focused ones included, until the pointer or focus leaves it.
document.addEventListener("click", (event) => {
  for (const ref of document.querySelectorAll(".rule-ref.open")) {
    if (!ref.contains(event.target as Node)) ref.classList.remove("open");
  }
});
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  for (const ref of document.querySelectorAll(".rule-ref")) {
    ref.classList.remove("open");
    if (ref.matches(":hover, :focus-within")) ref.classList.add("dismissed");
  }
});
