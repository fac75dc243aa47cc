"""Every new player gets the sign-up grant, however the account was made (sign-up, admin, shell)."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.models import User


@receiver(post_save, sender=User, dispatch_uid="ledger_signup_grant")
def grant_on_signup(sender: type[User], instance: User, created: bool, raw: bool, **_: Any) -> None:
    if created and not raw:
        from ledger.services import signup_grant

        signup_grant(user=instance)
