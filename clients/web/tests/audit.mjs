// What the layout and contrast tests measure in a page: both run inside the browser, on the
// page as rendered, and return what they found so that a failure names its element.

/** Resizes `page` to `width` and reports what sticks out: the document's scroll width against
 * the viewport it was given (a mobile browser zooms out to fit a page wider than the device,
 * which makes `innerWidth` grow with it), and every element whose box ends past the right
 * edge or that scrolls sideways inside itself, the widest first. */
export async function measureFit(page, width) {
  const { height } = page.viewportSize();
  await page.setViewportSize({ width, height });
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  return page.evaluate((width) => {
    const root = document.documentElement;
    const name = (el) => {
      const cls = typeof el.className === "string" && el.className.trim() ? `.${el.className.trim().split(/\s+/).join(".")}` : "";
      return `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${cls}`;
    };
    const wide = [];
    for (const el of document.body.querySelectorAll("*")) {
      const box = el.getBoundingClientRect();
      if (!box.width || !box.height) continue;
      const style = getComputedStyle(el);
      const scrollsInside =
        /auto|scroll/.test(style.overflowX) && !/^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName) && el.scrollWidth > el.clientWidth + 1;
      if (box.right > width + 1 || scrollsInside) {
        wide.push({ element: name(el), right: Math.round(box.right), scrollWidth: scrollsInside ? el.scrollWidth : undefined });
      }
    }
    wide.sort((a, b) => b.right - a.right);
    return {
      width,
      innerWidth: innerWidth,
      scrollWidth: root.scrollWidth,
      fits: root.scrollWidth <= innerWidth && innerWidth === width && wide.length === 0,
      widest: wide.slice(0, 5),
    };
  }, width);
}

/** Every visible text (text nodes, and the values shown by inputs and selects) whose contrast
 * with what is behind it is below WCAG 2.x AA: 4.5:1, or 3:1 for large text (24 px, or
 * 18.66 px bold). Colours are composited as the browser paints them: each ancestor's
 * background and opacity up to the canvas. Text of a disabled control is exempt, as WCAG
 * exempts inactive components. */
export async function contrastProblems(page) {
  return page.evaluate(() => {
    const parse = (value) => {
      const m = value.match(/^rgba?\(([\d.]+),? ([\d.]+),? ([\d.]+)(?:,? \/? ?([\d.]+))?\)$/);
      if (!m) throw new Error(`cannot read the colour ${value}`);
      return { r: +m[1] / 255, g: +m[2] / 255, b: +m[3] / 255, a: m[4] === undefined ? 1 : +m[4] };
    };
    // Premultiplied colours: "a over b".
    const pre = (c) => ({ r: c.r * c.a, g: c.g * c.a, b: c.b * c.a, a: c.a });
    const over = (a, b) => ({ r: a.r + b.r * (1 - a.a), g: a.g + b.g * (1 - a.a), b: a.b + b.b * (1 - a.a), a: a.a + b.a * (1 - a.a) });
    const fade = (c, o) => ({ r: c.r * o, g: c.g * o, b: c.b * o, a: c.a * o });
    const WHITE = { r: 1, g: 1, b: 1, a: 1 };
    // What a pixel of `el` shows, with `text` painted on it (or nothing): each element from
    // `el` up is a layer (its background under its content), faded by its opacity.
    const paint = (el, text) => {
      let pixel = text ? pre(text) : { r: 0, g: 0, b: 0, a: 0 };
      for (let node = el; node instanceof Element; node = node.parentElement) {
        const style = getComputedStyle(node);
        pixel = fade(over(pixel, pre(parse(style.backgroundColor))), Number(style.opacity));
      }
      return over(pixel, WHITE);
    };
    const luminance = (c) => {
      const channel = (v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
    };
    const ratio = (a, b) => {
      const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
      return (hi + 0.05) / (lo + 0.05);
    };
    const hex = (c) => `#${[c.r, c.g, c.b].map((v) => Math.round(v * 255).toString(16).padStart(2, "0")).join("")}`;
    const clipped = (el) => {
      for (let node = el; node instanceof Element; node = node.parentElement) {
        const style = getComputedStyle(node);
        if (style.clip !== "auto" && style.position === "absolute") return true;
        const box = node.getBoundingClientRect();
        if (style.overflow !== "visible" && (box.width <= 1 || box.height <= 1)) return true;
      }
      return false;
    };
    const shown = (el, rects) =>
      el.checkVisibility({ opacityProperty: true, visibilityProperty: true }) &&
      [...rects].some((r) => r.width > 0 && r.height > 0) &&
      !clipped(el);

    const texts = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      if (!el || !node.textContent.trim() || /^(SCRIPT|STYLE|NOSCRIPT|OPTION)$/.test(el.tagName)) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      if (shown(el, range.getClientRects())) texts.push({ el, text: node.textContent.trim() });
    }
    for (const el of document.body.querySelectorAll("input:not([type=checkbox]):not([type=radio]), select")) {
      const text = el.tagName === "SELECT" ? el.selectedOptions[0]?.textContent ?? "" : el.value;
      if (text.trim() && shown(el, el.getClientRects())) texts.push({ el, text: text.trim() });
    }

    const problems = [];
    for (const { el, text } of texts) {
      if (el.closest(":disabled")) continue;
      const style = getComputedStyle(el);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      const fg = paint(el, parse(style.color));
      const bg = paint(el, null);
      const found = ratio(fg, bg);
      const needed = large ? 3 : 4.5;
      if (found < needed) {
        const id = el.id ? `#${el.id}` : "";
        const cls = typeof el.className === "string" && el.className ? `.${el.className.trim().split(/\s+/).join(".")}` : "";
        problems.push({
          element: `${el.tagName.toLowerCase()}${id}${cls}`,
          text: text.slice(0, 40),
          ratio: Math.round(found * 100) / 100,
          needed,
          colours: `${hex(fg)} on ${hex(bg)}, ${size}px`,
        });
      }
    }
    return problems;
  });
}
