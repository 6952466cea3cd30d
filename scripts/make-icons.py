#!/usr/bin/env python3
"""Draws DoseTap's app icon: a countdown ring on true black, in the night palette.

Writes Sources/DoseServer/Resources/icon.svg and icon-192.png / icon-512.png from the same geometry (the PNGs
with 4×4 supersampling, standard library only). The art sits inside the central 80 % circle, so the PNGs also
serve as maskable icons. Run it again after changing the geometry; the outputs are committed.
"""
import math, os, struct, zlib

BACKGROUND = (0, 0, 0)
RING = (0xFF, 0x6B, 0x5F)      # --accent
KNOB = (0xFF, 0xB3, 0xAB)      # --fg
TRACK = (0x5C, 0x1F, 0x1A)     # --line
CENTER, RADIUS, WIDTH = 0.5, 0.28, 0.075
SWEEP = 300                    # degrees of the ring drawn, clockwise from 12 o'clock
KNOB_RADIUS = 0.07

def knob_center():
    angle = math.radians(-90 + SWEEP)
    return CENTER + RADIUS * math.cos(angle), CENTER + RADIUS * math.sin(angle)

def colour_at(x, y):
    kx, ky = knob_center()
    if (x - kx) ** 2 + (y - ky) ** 2 <= KNOB_RADIUS ** 2:
        return KNOB
    distance = math.hypot(x - CENTER, y - CENTER)
    if abs(distance - RADIUS) <= WIDTH / 2:
        angle = (math.degrees(math.atan2(y - CENTER, x - CENTER)) + 90) % 360
        return RING if angle <= SWEEP else TRACK
    return BACKGROUND

def png(size, path):
    samples = 4
    rows = bytearray()
    for row in range(size):
        rows.append(0)
        for column in range(size):
            total = [0, 0, 0]
            for sy in range(samples):
                for sx in range(samples):
                    c = colour_at((column + (sx + 0.5) / samples) / size, (row + (sy + 0.5) / samples) / size)
                    total = [t + v for t, v in zip(total, c)]
            rows.extend(round(t / samples ** 2) for t in total)
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0))
    data += chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(data)

def svg(path):
    hexc = lambda c: "#%02x%02x%02x" % c
    end_x, end_y = knob_center()
    start_x, start_y = CENTER, CENTER - RADIUS
    large = 1 if SWEEP > 180 else 0
    s = 512
    text = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {s} {s}">'
        f'<rect width="{s}" height="{s}" fill="{hexc(BACKGROUND)}"/>'
        f'<circle cx="{CENTER*s:g}" cy="{CENTER*s:g}" r="{RADIUS*s:g}" fill="none" stroke="{hexc(TRACK)}" stroke-width="{WIDTH*s:g}"/>'
        f'<path d="M{start_x*s:.2f} {start_y*s:.2f}A{RADIUS*s:g} {RADIUS*s:g} 0 {large} 1 {end_x*s:.2f} {end_y*s:.2f}" '
        f'fill="none" stroke="{hexc(RING)}" stroke-width="{WIDTH*s:g}"/>'
        f'<circle cx="{end_x*s:.2f}" cy="{end_y*s:.2f}" r="{KNOB_RADIUS*s:g}" fill="{hexc(KNOB)}"/></svg>\n'
    )
    with open(path, "w") as f:
        f.write(text)

if __name__ == "__main__":
    out = os.path.join(os.path.dirname(__file__), "..", "Sources", "DoseServer", "Resources")
    svg(os.path.join(out, "icon.svg"))
    for size in (192, 512):
        png(size, os.path.join(out, f"icon-{size}.png"))
    print("icons written to", os.path.normpath(out))
