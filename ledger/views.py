"""The locker, the daily claim, the Commissary and the staff adjustment form. Thin: forms parse,
services decide. No view takes an account: the player is always the one logged in."""

from __future__ import annotations

import uuid

from django.contrib import admin, messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required, permission_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.models import User
from ledger import selectors, services
from ledger.forms import AdjustmentForm, BuyForm
from ledger.models import Adjustment

HISTORY_PAGE = 20


@login_required
def locker(request: HttpRequest) -> HttpResponse:
    user = request.user
    page = Paginator(selectors.history_of(user), HISTORY_PAGE).get_page(request.GET.get("page"))
    claim = selectors.claim_of(user)
    return render(
        request,
        "ledger/locker.html",
        {
            "locker": selectors.locker_of(user),
            "claim": claim,
            "wait": selectors.wait_text(claim.wait_seconds),
            "page": page,
            "rows": selectors.history_rows(page.object_list, user),
            "allowance": selectors.allowance_text(),
        },
    )


@login_required
@require_POST
def claim(request: HttpRequest) -> HttpResponse:
    try:
        services.allowance_claim(user=request.user)
    except services.AlreadyClaimed as exc:
        wait = selectors.wait_text(selectors.claim_of(request.user).wait_seconds)
        messages.error(request, f"{exc.message} " + _("Next claim in %(wait)s.") % {"wait": wait})
    except services.LedgerError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            _("Claimed today's allowance: %(amount)s.") % {"amount": selectors.allowance_text()},
        )
    return redirect("ledger:locker")


@login_required
def commissary(
    request: HttpRequest, form: BuyForm | None = None, status: int = 200
) -> HttpResponse:
    # Each buy form carries a token of its own: sent twice, it buys once.
    offers = [(good, uuid.uuid4()) for good in selectors.store_goods()]
    return render(
        request,
        "ledger/commissary.html",
        {
            "offers": offers,
            "books": selectors.books_of(request.user),
            "form": form,
            "errors": _buy_errors(form),
            # The refusal shows on the card of the good it was about, else above the shelves.
            "failed_good": _failed_good(form, [good.pk for good, _token in offers]),
        },
        status=status,
    )


def _buy_errors(form: BuyForm | None) -> list[str]:
    if form is None:
        return []
    return [str(e) for errors in form.errors.values() for e in errors]


def _failed_good(form: BuyForm | None, shown: list[int]) -> int | None:
    if form is None:
        return None
    value = str(form.data.get("good", ""))
    return int(value) if value.isdigit() and int(value) in shown else None


@login_required
@require_POST
def buy(request: HttpRequest) -> HttpResponse:
    form = BuyForm(request.POST)
    if not form.is_valid():
        return commissary(request, form, status=400)
    try:
        order = services.commissary_buy(
            user=request.user,
            good_id=form.cleaned_data["good"],
            quantity=form.cleaned_data["quantity"],
            token=form.cleaned_data["token"],
        )
    except services.LedgerError as exc:
        form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        return commissary(request, form, status=400)
    messages.success(
        request,
        _("Bought %(goods)s for %(total)s. It is in your locker.")
        % {
            "goods": services.amount_text(
                services.good_unit(order.good_id), order.quantity, {order.good_id: order.good}
            ),
            "total": services.amount_text(services.BOOKS, order.total),
        },
    )
    return redirect("ledger:commissary")


@staff_member_required
@permission_required("ledger.add_adjustment", raise_exception=True)
def adjust(request: HttpRequest) -> HttpResponse:
    """Staff: a correction of one player's balance, against the house, with a reason."""
    initial = {"token": uuid.uuid4()}
    if request.GET.get("player", "").isdigit():
        initial["player"] = User.objects.filter(pk=int(request.GET["player"])).first()
    form = AdjustmentForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        currency, good_id = form.currency_and_good()
        # A form sent again (a reload, a double click) posts nothing new, whatever it now says:
        # the message names what was posted the first time.
        sent_before = Adjustment.objects.filter(token=form.cleaned_data["token"]).exists()
        try:
            adjustment = services.adjustment_make(
                staff=request.user,
                user=form.cleaned_data["player"],
                currency=currency,
                good_id=good_id,
                amount=form.cleaned_data["amount"],
                reason=form.cleaned_data["reason"],
                token=form.cleaned_data["token"],
            )
        except services.LedgerError as exc:
            field = {"user": "player"}.get(exc.field or "", exc.field)
            form.add_error(field if field in form.fields else None, exc.message)
        else:
            posted = {
                "n": adjustment.pk,
                "amount": services.amount_text(
                    (adjustment.currency, adjustment.good_id), adjustment.amount
                ),
                "player": adjustment.user,
            }
            if sent_before:
                messages.warning(
                    request,
                    _(
                        "This form was already sent: adjustment %(n)s of %(amount)s for "
                        "%(player)s was posted then, and nothing new has been posted now."
                    )
                    % posted,
                )
            else:
                messages.success(
                    request,
                    _("Adjustment %(n)s posted against the house: %(amount)s for %(player)s.")
                    % posted,
                )
            return redirect(reverse("admin:ledger_adjustment_changelist"))
    return render(
        request,
        "admin/ledger/adjust.html",
        {
            **admin.site.each_context(request),
            "form": form,
            "title": _("Make an adjustment"),
        },
        status=400 if form.errors else 200,
    )
