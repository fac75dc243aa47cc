"""OAuth 2 (authorization code with PKCE, django-oauth-toolkit): an app acts for a player with
their consent, with the scopes they granted. Its access tokens are checked here, as personal
tokens are in api.tokens; a player revokes an app's access from their account's API page."""

from __future__ import annotations

import hashlib

from django.utils import timezone
from oauth2_provider.models import get_access_token_model

from api.models import Scope
from api.tokens import Bearer


def oauth_bearer(token: str) -> Bearer | None:
    """The live OAuth access token with this value, if any."""
    if not token or len(token) > 255:
        return None
    model = get_access_token_model()
    found = (
        model.objects.select_related("user", "application")
        .filter(token_checksum=hashlib.sha256(token.encode()).hexdigest())
        .first()
    )
    if found is None or found.user is None or found.expires <= timezone.now():
        return None
    scopes = frozenset(s for s in found.scope.split() if s in Scope.values)
    return Bearer(
        user=found.user,
        scopes=scopes,
        token_id=None,
        app=found.application.name if found.application else "",
    )
