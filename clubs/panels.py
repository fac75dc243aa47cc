"""Parts of a club's page that other apps own: the club's upcoming events and series, say.

Apps above clubs (tournaments) may not be imported by it, so they register a *panel* from their
AppConfig.ready(): a function of the request and the club that returns the HTML of its part of
the page (already escaped: it is shown as it is), or "" for nothing to show. The club page
renders every panel in the order they were registered, in its "Events" section:

    from clubs.panels import panel_register
    panel_register(my_club_panel)

A panel that raises is logged and left out, so one app's bug does not take the club's page down.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from django.http import HttpRequest
from django.utils.safestring import SafeString, mark_safe

if TYPE_CHECKING:
    from clubs.models import Club

log = logging.getLogger(__name__)

Panel = Callable[[HttpRequest, "Club"], str]

#: The registered panels, in the order the club page shows them.
PANELS: list[Panel] = []


def panel_register(panel: Panel) -> None:
    """Add a panel to every club's page (once, however often the app's ready() runs)."""
    if panel not in PANELS:
        PANELS.append(panel)


def panels_render(request: HttpRequest, club: Club) -> list[SafeString]:
    """Each panel's HTML for this club and reader, in order; empty ones left out."""
    shown = []
    for panel in list(PANELS):
        try:
            html = panel(request, club)
        except Exception:  # one app's panel must not take the club's page down
            log.exception("club %s: the panel %r failed", club.pk, panel)
            continue
        if html:
            shown.append(mark_safe(html))  # panels return escaped HTML (see above)
    return shown
