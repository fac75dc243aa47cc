"""The forms of the clubs' pages: founding a club, a leader's edit, the search. The services
check every value again (`clubs.services`); a refusal lands on its own field, in words."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from clubs.models import DESCRIPTION_MAX, NAME_MAX, Policy
from clubs.services import NAME_MIN


class ClubEditForm(forms.Form):
    description = forms.CharField(
        label=_("About the club"),
        widget=forms.Textarea(attrs={"rows": 4}),
        required=False,
        max_length=DESCRIPTION_MAX,
        help_text=_("Optional: who you are, when you play, what you play. Shown on its page."),
    )
    policy = forms.ChoiceField(
        label=_("Who may join"),
        choices=Policy.choices,
        initial=Policy.OPEN,
        widget=forms.RadioSelect,
        help_text=_(
            "Leaders can change this later. Either way, a leader may remove a member at any time."
        ),
    )


class ClubFoundForm(ClubEditForm):
    name = forms.CharField(label=_("Club name"), min_length=NAME_MIN, max_length=NAME_MAX)

    field_order = ["name", "description", "policy"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["name"].help_text = gettext(
            "%(min)d to %(max)d characters. No two clubs share a name, whatever their capitals, "
            "and a club's name can't be changed: it makes its page's address."
        ) % {"min": NAME_MIN, "max": NAME_MAX}


class ClubSearchForm(forms.Form):
    q = forms.CharField(label=_("Search by name"), required=False, max_length=NAME_MAX)
