"""`{% play_now %}`: the "Play now" grid (and the waiting panel) on the home page and the lobby."""

from __future__ import annotations

from typing import Any

from django import template

from pairing import selectors, services
from pairing.cells import cell_parse

register = template.Library()


@register.simple_tag(takes_context=True)
def ready_by(context: template.Context, table: Any) -> str:
    """When the reader must press Ready at this table Play now seated them at (epoch ms), or ""
    (not such a table, not seated there, or ready already): the table page counts it down."""
    user = getattr(context.get("request"), "user", None)
    if user is None or not user.is_authenticated:
        return ""
    status = selectors.pool_status(user)
    if status["state"] != "seated" or status["table"] != table.pk or status["ready"]:
        return ""
    return str(status["confirm_by"])


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
