"""Small self-contained SVG charts for the HTML report: grouped horizontal bars and a labelled
scatter plot. Strings in, escaped SVG text out; no plotting library."""

from __future__ import annotations

from html import escape

PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1")
_ROW, _BAR, _LABEL, _WIDTH = 22, 16, 190, 360


def grouped_bars(
    groups: dict[str, dict[str, float]],
    *,
    maximum: float | None = None,
    percent: bool = False,
) -> str:
    """One block of bars per group (e.g. answer type), one bar per series (e.g. setting),
    with a legend; values are drawn against ``maximum`` (default: the largest value)."""
    series = list(dict.fromkeys(name for bars in groups.values() for name in bars))
    top = maximum or max((v for bars in groups.values() for v in bars.values()), default=1) or 1
    y, parts = 4, []
    for group, bars in groups.items():
        parts.append(f'<text x="0" y="{y + 13}" font-weight="bold">{escape(group)}</text>')
        y += _ROW
        for i, name in enumerate(series):
            if name not in bars:
                continue
            value = bars[name]
            width = max(1.0, _WIDTH * value / top)
            shown = f"{value:.1%}" if percent else f"{value:g}"
            parts.append(
                f'<text x="8" y="{y + 12}">{escape(name)}</text>'
                f'<rect x="{_LABEL}" y="{y}" width="{width:.1f}" height="{_BAR}" '
                f'fill="{PALETTE[i % len(PALETTE)]}"><title>{escape(name)}: {shown}</title></rect>'
                f'<text x="{_LABEL + width + 4:.1f}" y="{y + 12}">{shown}</text>'
            )
            y += _ROW
        y += 6
    return _svg(_LABEL + _WIDTH + 70, y, "".join(parts))


def scatter(points: dict[str, tuple[float, float]], *, x_label: str, y_label: str) -> str:
    """Labelled points ``name -> (x, y)``, y a share in [0, 1], x from 0 to the largest x."""
    width, height, left, bottom = 460, 260, 50, 40
    x_top = max((x for x, _ in points.values()), default=1) * 1.15 or 1
    inner_w, inner_h = width - left - 20, height - bottom - 10
    parts = [
        f'<line x1="{left}" y1="{10 + inner_h}" x2="{left + inner_w}" y2="{10 + inner_h}" '
        'stroke="#333"/>',
        f'<line x1="{left}" y1="10" x2="{left}" y2="{10 + inner_h}" stroke="#333"/>',
        f'<text x="{left + inner_w / 2}" y="{height - 5}" text-anchor="middle">'
        f"{escape(x_label)}</text>",
        f'<text x="12" y="{10 + inner_h / 2}" transform="rotate(-90 12 {10 + inner_h / 2})" '
        f'text-anchor="middle">{escape(y_label)}</text>',
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = 10 + inner_h * (1 - tick)
        parts.append(f'<text x="{left - 6}" y="{y + 4}" text-anchor="end">{tick:.0%}</text>')
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        x = left + inner_w * tick
        parts.append(
            f'<line x1="{x:.1f}" y1="{10 + inner_h}" x2="{x:.1f}" y2="{14 + inner_h}" '
            'stroke="#333"/>'
            f'<text x="{x:.1f}" y="{26 + inner_h}" text-anchor="middle">{x_top * tick:.1f}</text>'
        )
    for i, (name, (x, share)) in enumerate(points.items()):
        cx, cy = left + inner_w * x / x_top, 10 + inner_h * (1 - share)
        parts.append(
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="6" fill="{PALETTE[i % len(PALETTE)]}">'
            f"<title>{escape(name)}: {share:.1%} at {x:.2f}</title></circle>"
            f'<text x="{cx + 9:.1f}" y="{cy + 4:.1f}">{escape(name)} ({share:.0%}, {x:.1f})</text>'
        )
    return _svg(width + 120, height, "".join(parts))


def _svg(width: float, height: float, body: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'font-family="sans-serif" font-size="12">{body}</svg>'
    )
