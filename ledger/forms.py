"""Forms of the ledger: the stake's part of the create-table form, buying, staff adjustments.

None of them names an account: the player is always the one logged in, and the only things a
player chooses are a good and a quantity. Forms parse; services decide.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin.widgets import AutocompleteSelect
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from ledger.models import Adjustment, Currency, Good
from ledger.services import (
    CANTEEN_MODES,
    DOLLAR_MODES,
    MAX_ADJUSTMENT,
    MAX_BUNDLE_ITEM,
    MAX_ORDER,
    MAX_STAKE,
    StakeSpec,
)

CANTEEN_PREFIX = "canteen_"


class StakeForm:
    """The stake's part of the create-table form (tables.stakes.StakeForm; tables.forms.TableForm
    adds its fields): a stake in Dollars, or a canteen bundle of goods, one field per good."""

    def __init__(self) -> None:
        self.goods = list(Good.objects.all())

    def fields(self) -> dict[str, forms.Field]:
        fields: dict[str, forms.Field] = {
            "stake": forms.IntegerField(
                label=_("Stake (Dominologist Dollars)"),
                min_value=0,
                max_value=MAX_STAKE,
                initial=10,
                required=False,
                help_text=_(
                    "What each player puts in the pot. 0 plays for nothing. To sit, a player "
                    "needs twice the stake at house tables (a skunk owes one more stake); in "
                    "Fives and Threes, the stake."
                ),
            )
        }
        for good in self.goods:
            fields[f"{CANTEEN_PREFIX}{good.pk}"] = forms.IntegerField(
                label=str(good),
                min_value=0,
                max_value=MAX_BUNDLE_ITEM,
                initial=0,
                required=False,
            )
        return fields

    @property
    def canteen_names(self) -> list[str]:
        return [f"{CANTEEN_PREFIX}{good.pk}" for good in self.goods]

    def spec(self, data: dict[str, Any]) -> StakeSpec | None:
        mode = data.get("mode")
        if mode in DOLLAR_MODES:
            return StakeSpec(dollars=data.get("stake") or 0)
        if mode in CANTEEN_MODES:
            bundle = tuple(
                (good.pk, data.get(f"{CANTEEN_PREFIX}{good.pk}") or 0) for good in self.goods
            )
            return StakeSpec(bundle=tuple((g, q) for g, q in bundle if q))
        return None  # Gym tables play for a workout

    def field_for(self, field: str | None) -> str | None:
        """A refusal about the canteen bet goes on its first good's field."""
        if field == "canteen":
            return self.canteen_names[0] if self.canteen_names else None
        return field


class BuyForm(forms.Form):
    good = forms.IntegerField(widget=forms.HiddenInput)
    quantity = forms.IntegerField(label=_("How many"), min_value=1, max_value=MAX_ORDER, initial=1)
    token = forms.UUIDField(widget=forms.HiddenInput)


class AdjustmentForm(forms.Form):
    """Staff: correct one player's balance. The house takes the other side of it."""

    player = forms.ModelChoiceField(
        label=_("Player"),
        queryset=User.objects.all(),
        # Searched as staff type (admin's autocomplete on the players' list), not a list of
        # every account.
        widget=AutocompleteSelect(Adjustment._meta.get_field("user"), admin.site),
        help_text=_("The player whose balance is corrected: type part of a name or address."),
    )
    unit = forms.ChoiceField(label=_("What"))
    amount = forms.IntegerField(
        label=_("Amount"),
        min_value=-MAX_ADJUSTMENT,
        max_value=MAX_ADJUSTMENT,
        help_text=_("Positive adds to the player's balance, negative takes from it. Never 0."),
    )
    reason = forms.CharField(
        label=_("Reason"),
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=500,
        help_text=_("Required: why this correction is made. It is kept with your name."),
    )
    token = forms.UUIDField(widget=forms.HiddenInput)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices: list[tuple[str, Any]] = [
            (Currency.DOLLARS.value, Currency.DOLLARS.label),
            (Currency.BOOKS.value, Currency.BOOKS.label),
        ]
        choices += [(f"good:{g.pk}", str(g)) for g in Good.objects.all()]
        self.fields["unit"].choices = choices

    def clean_amount(self) -> int:
        amount = self.cleaned_data["amount"]
        if amount == 0:
            raise forms.ValidationError(_("An adjustment of 0 changes nothing."))
        return int(amount)

    def clean_reason(self) -> str:
        reason = str(self.cleaned_data["reason"]).strip()
        if not reason:
            raise forms.ValidationError(_("Say why: an adjustment needs a reason."))
        return reason

    def currency_and_good(self) -> tuple[str, int | None]:
        unit = self.cleaned_data["unit"]
        if unit.startswith("good:"):
            return Currency.GOODS.value, int(unit.removeprefix("good:"))
        return unit, None
