// The companion's icon, drawn once here and written two ways by the build: an SVG for the
// page, and favicon.ico (16 and 32 px) for browsers that ask the service's root for one. The
// ICO holds uncompressed bitmaps, so the same shape always gives the same bytes.

// A white Latin cross on the companion's red, on a 32-unit grid whose edges fall on whole
// pixels at 16 px too.
const ICON = {
  grid: 32,
  radius: 6,
  ground: [0x7a, 0x1f, 0x1f],
  mark: [0xff, 0xff, 0xff],
  cross: [
    [14, 6, 4, 20],
    [8, 10, 16, 4],
  ],
};

const hex = (rgb) => `#${rgb.map((v) => v.toString(16).padStart(2, "0")).join("")}`;

export function iconSvg() {
  const { grid, radius, ground, mark, cross } = ICON;
  const bars = cross.map(([x, y, w, h]) => `<rect x="${x}" y="${y}" width="${w}" height="${h}"/>`).join("");
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${grid} ${grid}">` +
    `<rect width="${grid}" height="${grid}" rx="${radius}" fill="${hex(ground)}"/>` +
    `<g fill="${hex(mark)}">${bars}</g></svg>\n`
  );
}

function insideGround(x, y) {
  const { grid, radius } = ICON;
  const cx = Math.min(Math.max(x, radius), grid - radius);
  const cy = Math.min(Math.max(y, radius), grid - radius);
  return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2;
}

const insideMark = (x, y) => ICON.cross.some(([bx, by, w, h]) => x >= bx && x < bx + w && y >= by && y < by + h);

/** RGBA rows, top first, each pixel the average of 4x4 samples (the round corners smooth). */
function raster(size) {
  const samples = 4;
  const scale = ICON.grid / size;
  const pixels = [];
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      const sum = [0, 0, 0];
      let covered = 0;
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const x = (px + (sx + 0.5) / samples) * scale;
          const y = (py + (sy + 0.5) / samples) * scale;
          if (!insideGround(x, y)) continue;
          const rgb = insideMark(x, y) ? ICON.mark : ICON.ground;
          for (let c = 0; c < 3; c++) sum[c] += rgb[c];
          covered++;
        }
      }
      const rgb = covered ? sum.map((v) => Math.round(v / covered)) : [0, 0, 0];
      pixels.push([...rgb, Math.round((covered * 255) / samples ** 2)]);
    }
  }
  return pixels;
}

/** One ICO image: a BITMAPINFOHEADER, BGRA rows bottom first, then the 1-bit mask. */
function bitmap(size) {
  const pixels = raster(size);
  const maskRow = Math.ceil(size / 32) * 4;
  const header = Buffer.alloc(40);
  header.writeUInt32LE(40, 0);
  header.writeInt32LE(size, 4);
  header.writeInt32LE(size * 2, 8); // colour and mask, stacked
  header.writeUInt16LE(1, 12);
  header.writeUInt16LE(32, 14);
  header.writeUInt32LE(size * size * 4 + maskRow * size, 20);
  const colour = Buffer.alloc(size * size * 4);
  const mask = Buffer.alloc(maskRow * size);
  for (let row = 0; row < size; row++) {
    const y = size - 1 - row;
    for (let x = 0; x < size; x++) {
      const [r, g, b, a] = pixels[y * size + x];
      colour.set([b, g, r, a], (row * size + x) * 4);
      if (a === 0) mask[row * maskRow + (x >> 3)] |= 0x80 >> (x & 7);
    }
  }
  return Buffer.concat([header, colour, mask]);
}

export function faviconIco(sizes = [16, 32]) {
  const images = sizes.map(bitmap);
  const head = Buffer.alloc(6 + 16 * sizes.length);
  head.writeUInt16LE(0, 0);
  head.writeUInt16LE(1, 2);
  head.writeUInt16LE(sizes.length, 4);
  let offset = head.length;
  sizes.forEach((size, i) => {
    const entry = 6 + 16 * i;
    head.writeUInt8(size % 256, entry);
    head.writeUInt8(size % 256, entry + 1);
    head.writeUInt16LE(1, entry + 4);
    head.writeUInt16LE(32, entry + 6);
    head.writeUInt32LE(images[i].length, entry + 8);
    head.writeUInt32LE(offset, entry + 12);
    offset += images[i].length;
  });
  return Buffer.concat([head, ...images]);
}
