"""A challenge's table in words, in the reader's language: mode, players, length, stake."""

from __future__ import annotations

from django.utils.translation import gettext as _

from ledger.models import Good
from ledger.services import DOLLARS, amounts_text, good_unit
from social.models import Challenge
from tables.forms import GYM, HEAD_TO_HEAD, SHAPES
from tables.models import MODE_CHOICES


def shape_of(options: dict[str, object]) -> str:
    players = options.get("players", 2)
    if options.get("partners"):
        return "partners"
    return "one_on_one" if players == 2 else f"cut_throat_{players}"


def challenge_terms(challenge: Challenge) -> list[str]:
    """["Citizen", "One on one (2 players)", "game to 150", "stake: 10 Dollars"]."""
    options = challenge.options
    words = [str(dict(MODE_CHOICES).get(challenge.mode, challenge.mode))]
    words.append(str(dict(SHAPES).get(shape_of(options), "")))
    if challenge.mode in HEAD_TO_HEAD:
        if options.get("limit"):
            words.append(_("first to %(n)s") % {"n": options["limit"]})
    elif options.get("target"):
        words.append(_("game to %(n)s") % {"n": options["target"]})
    if challenge.mode in GYM:
        if "clock" in options and options["clock"] is None:
            words.append(_("no clock"))
        elif options.get("clock"):
            words.append(_("%(n)s s clock") % {"n": options["clock"]})
        words.append(_("played for a workout"))
    elif challenge.stake_dollars:
        words.append(
            _("stake: %(amount)s") % {"amount": amounts_text({DOLLARS: challenge.stake_dollars})}
        )
    elif challenge.stake_bundle:
        ids = [int(g) for g, _q in challenge.stake_bundle]
        goods = {g.pk: g for g in Good.objects.filter(pk__in=ids)}
        amounts = {good_unit(int(g)): int(q) for g, q in challenge.stake_bundle}
        words.append(_("canteen bet: %(amount)s") % {"amount": amounts_text(amounts, goods)})
    else:
        words.append(_("played for nothing"))
    if not challenge.rated:
        words.append(_("casual (not rated)"))
    if challenge.private:
        words.append(_("private table"))
    return words
