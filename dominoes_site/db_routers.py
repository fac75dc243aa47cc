"""Keeps the channel layer's tables in their own SQLite file and everything else out of it."""

from typing import Any

from channels_lite.router import ChannelsRouter


class HouseRouter(ChannelsRouter):  # type: ignore[misc]
    def allow_migrate(
        self, db: str, app_label: str, model_name: str | None = None, **hints: Any
    ) -> bool:
        if app_label in self.route_app_labels:
            return bool(db == self.database)
        return db == "default"
