"""The embedded Celery broker: kombu's filesystem transport, with messages written atomically.

kombu's own `_put` creates the message file and then writes it, so a worker that lists the
folder in between moves away an empty file, fails to decode it and stops ("Unrecoverable
error: JSONDecodeError"), as a 50-table run of bench/clock_precision.py showed. Here a message
is written under a name the reader skips and renamed into place when complete (a rename is atomic
within a folder). Selected by the `housefs://` broker URL (the embedded default).
"""

from __future__ import annotations

import os
import uuid
from time import monotonic
from typing import Any

from kombu.transport import TRANSPORT_ALIASES, filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        # A leading dot: the reader takes only names whose part after the first dot is
        # "<queue>.msg", so it never sees a message half written.
        partial = os.path.join(self.data_folder_out, f".{name}.part")
        try:
            with open(partial, "wb") as f:
                f.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            raise filesystem.ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel


TRANSPORT_ALIASES.setdefault("housefs", "dominoes_site.broker:Transport")
