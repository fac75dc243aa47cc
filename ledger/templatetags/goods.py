"""A Commissary good's picture as inline SVG: `{% load goods %}{% good_icon good %}`.

The catalogue stores an emoji (staff pick it in admin), and an emoji is a box on a device
without an emoji font; the page draws the known ones as small line pictures instead, and any
other good as a parcel. Decorative: the good's name is always written beside it."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

_OPEN = (
    '<svg class="good-icon" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" '
    'focusable="false" fill="none" stroke="currentColor" stroke-width="1.8" '
    'stroke-linecap="round" stroke-linejoin="round">'
)

#: By the catalogue's emoji (ledger/migrations/0003_commissary_catalogue.py).
_PICTURES = {
    # soup: a bowl with steam
    "🍜": '<path d="M3 12h18a9 9 0 0 1-18 0z"/><path d="M8 8c0-1.5 1-1.5 1-3M12 8c0-1.5 1-1.5 1-3'
    'M16 8c0-1.5 1-1.5 1-3"/>',
    # coffee: a cup with a handle and steam
    "☕": '<path d="M4 10h12v5a5 5 0 0 1-5 5H9a5 5 0 0 1-5-5z"/><path d="M16 11h1.5a2.5 2.5 0 0 1 '
    '0 5H16"/><path d="M8 7c0-1.2 1-1.2 1-2.5M12 7c0-1.2 1-1.2 1-2.5"/>',
    # honey bun: a swirl bun
    "🍯": '<ellipse cx="12" cy="14" rx="9" ry="6"/><path d="M12 14c0-1.5 2-1.5 2 0s-1 3-3 3-4-1.5'
    '-4-3.5S9 9 12 9s6 2 6 5"/>',
    # stamp: an envelope
    "✉️": '<rect x="3" y="6" width="18" height="12" rx="1.5"/><path d="M3.5 7l8.5 6 8.5-6"/>',
}
_PICTURES["✉"] = _PICTURES["✉️"]
#: Anything else: a parcel.
_PARCEL = '<path d="M3 8l9-4 9 4v8l-9 4-9-4z"/><path d="M3 8l9 4 9-4M12 12v8"/>'


@register.simple_tag
def good_icon(good: Any) -> SafeString:
    picture = _PICTURES.get((getattr(good, "icon", "") or "").strip(), _PARCEL)
    return mark_safe(_OPEN + picture + "</svg>")  # our own constant markup
