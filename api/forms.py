"""The API tokens page's form: a name and the scopes a new personal token gets. The rules (a
name, at least one known scope, the cap) are api.tokens.token_create's; its TokenError lands on
the field it names."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from api.models import Scope
from api.tokens import TokenError


class TokenForm(forms.Form):
    name = forms.CharField(
        label=_("Name"),
        required=False,
        help_text=_("What the token is for, so you can tell it apart: “My bot”, “Stats script”."),
        widget=forms.TextInput(attrs={"maxlength": 60, "autocomplete": "off"}),
    )
    scopes = forms.MultipleChoiceField(
        label=_("What it may do"),
        required=False,
        choices=Scope.choices,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Give it only what your program needs."),
    )

    def add_token_error(self, error: TokenError) -> None:
        field = error.field if error.field in self.fields else None
        self.add_error(field, error.message)
