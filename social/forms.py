"""The challenge form is the create-table form (tables.forms.TableForm: the same settings, the
same checks, every refusal on its field); the preference form picks who may challenge."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from social.models import ChallengesFrom
from tables.forms import TableForm


class ChallengeForm(TableForm):
    """A table to challenge someone to. Private by default: it is for the two of them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["private"].initial = True
        self.fields["private"].help_text = _(
            "A private table is not listed in the lobby; with more than two seats, share its "
            "link to fill the others."
        )


class ChallengePreferenceForm(forms.Form):
    challenges_from = forms.ChoiceField(
        label=_("Who may challenge me"),
        choices=ChallengesFrom.choices,
        widget=forms.RadioSelect,
        help_text=_(
            "Players you follow are your friends. Whoever may not challenge you is told so when "
            "they try; house players never challenge anyone."
        ),
    )
    games_watchable = forms.BooleanField(
        label=_("Let other players watch my games"),
        required=False,
        widget=forms.CheckboxInput(attrs={"aria-describedby": "watchable-help"}),
        help_text=_(
            "On: your games in play are listed on the Watch page and anyone may watch them (never "
            "your bones: a watcher sees what everyone at the table sees). Off: they are not "
            "listed, and nobody may watch a Play now, challenge or tournament table of yours. A "
            "public table you sit at is public all the same."
        ),
    )
    bots_rated = forms.BooleanField(
        label=_("Let bots challenge me to rated games"),
        required=False,
        widget=forms.CheckboxInput(attrs={"aria-describedby": "bots-rated-help"}),
        help_text=_(
            "Bot accounts are programs, marked BOT wherever their names show. On: a bot may "
            "challenge you to a rated game, you may challenge one to a rated game, and Play now "
            "may pair you with bots. Off: a challenge between you and a bot must be casual (it "
            "never changes your rating), and Play now never pairs you with a bot."
        ),
    )
