from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = _("Tournaments")

    def ready(self) -> None:
        # A match's table: its seats are the tournament's (tables.services asks every guard).
        from tables import services as tables
        from tournaments.services import seat_guard

        if seat_guard not in tables.SEAT_GUARDS:
            tables.SEAT_GUARDS.append(seat_guard)
        # An arena's berserk made at the table (its Berserk button) counts in the standings.
        from tournaments.arenas import berserk_heard

        if berserk_heard not in tables.SEAT_CLOCK_HALVED:
            tables.SEAT_CLOCK_HALVED.append(berserk_heard)

        # A club's page lists its own events and series (clubs may not import tournaments).
        from clubs.panels import panel_register
        from tournaments.club_panel import club_panel

        panel_register(club_panel)

        # Pages watch the list and one event on the site-wide notices socket (social).
        from social.notices import watch_topic_register
        from tournaments.broadcast import LIST_GROUP, event_version, group_name, list_version

        watch_topic_register(
            "tournaments", lambda _id: LIST_GROUP, needs_id=False, version=list_version
        )
        watch_topic_register(
            "tournament",
            lambda number: group_name(int(number or 0)),
            needs_id=True,
            version=event_version,
        )
