"""`{% play_now %}`: the "Play now" grid (and the waiting panel) on the home page and the lobby."""

from __future__ import annotations

from typing import Any

from django import template

from pairing import selectors, services
from pairing.cells import cell_parse

register = template.Library()


@register.inclusion_tag("pairing/_play_now.html", takes_context=True)
def play_now(context: template.Context) -> dict[str, Any]:
    request = context["request"]
    status = selectors.pool_status(request.user)
    stake = cell_parse(status["cell"]).stake if status.get("cell") else 0
    return {
        "status": status,
        "grid": selectors.grid(stake),
        "next": request.get_full_path(),
        "csrf_token": context.get("csrf_token"),
        "confirm_seconds": round(services.confirm_seconds()),
        "house_fill_seconds": round(services.house_fill_after_seconds()),
        "stale_seconds": round(services.stale_seconds()),
    }
